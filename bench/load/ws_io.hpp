#pragma once
// The WebSocket side of arbiter-load, free of Asio and Beast types: ws_io.cpp is the only TU that
// includes them (STYLE: Beast kept inside the few files that need it). One EventLoop is one
// io_context run by one thread; everything a loop owns is touched only from that thread, so the
// load driver needs no locks.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace arbiter::bench::load {

/// Where to connect: an IPv4 address (no name lookup), a port and the WebSocket path.
struct Endpoint {
    std::string host = "127.0.0.1";
    std::uint16_t port = 8080;
    std::string path = "/ws";
};

/// Callbacks of one client connection, all run on its loop's thread.
struct LinkHandler {
    std::function<void()> on_open;
    std::function<void(std::string_view text)> on_message;
    /// close_code: the WebSocket close code the server sent, or 0 when the socket failed or the
    /// handshake did not complete; what: a short description for the error report.
    std::function<void(int close_code, std::string what)> on_close;
};

/// How one client connection is opened.
struct LinkOptions {
    std::string source_address;  ///< local IPv4 address to bind (empty: the kernel picks)
    int receive_buffer = 0;      ///< SO_RCVBUF in bytes (0: the kernel default)
};

/// One client WebSocket connection with an unbounded outgoing queue and one write in flight.
class Link {
  public:
    virtual ~Link() = default;
    /// Queues a text frame.
    virtual void send(std::string text) = 0;
    /// Stops reading: the server's messages pile up in the socket buffers (a slow consumer).
    virtual void pause_reading() = 0;
    /// Reads again after pause_reading().
    virtual void resume_reading() = 0;
    /// Starts a normal close (1000).
    virtual void close() = 0;
};

/// One io_context and the thread that runs it.
class EventLoop {
  public:
    EventLoop();
    ~EventLoop();
    EventLoop(const EventLoop&) = delete;
    EventLoop& operator=(const EventLoop&) = delete;

    /// Opens a connection; the handler's callbacks run on this loop's thread.
    std::shared_ptr<Link> connect(const Endpoint& endpoint, const LinkOptions& options,
                                  LinkHandler handler);
    /// Runs `task` on this loop's thread after `delay` (zero: as soon as possible).
    void after(std::chrono::microseconds delay, std::function<void()> task);
    /// Starts the thread.
    void start();
    /// Stops the io_context and joins the thread; pending handlers are dropped.
    void stop();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// What a bare server (one that does nothing a game server does) answers to a text frame.
enum class BareMode {
    /// The frame back to its sender: one message in, one out, the machine's baseline.
    echo,
    /// The frame back to its sender and to its partner: a move's pattern (a request in, a `moved`
    /// out to each player) and nothing else. A connection's first frame names its pair,
    /// `{"pair":N}`; when both have, each gets `{"paired":N}`.
    relay,
};

/// A bare Beast WebSocket server. Listens on address:port (port 0: any free one), calls
/// on_listening with the bound port, then serves on `threads` threads until the process ends.
void run_bare_server(const std::string& address, std::uint16_t port, unsigned threads,
                     BareMode mode, const std::function<void(std::uint16_t)>& on_listening);

}  // namespace arbiter::bench::load
