#pragma once
// A tiny HTTP/WebSocket client over POSIX sockets for the net tests: independent of Beast (so the
// server is checked against RFC 6455 as written, not against itself) and cheap to compile.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace arbiter::test {

/// A connected TCP socket to 127.0.0.1 (the tests never target another address).
class Socket {
  public:
    /// `receive_buffer` > 0 shrinks SO_RCVBUF before connecting (a slow consumer's window).
    explicit Socket(std::uint16_t port, int receive_buffer = 0);
    ~Socket();
    Socket(Socket&& other) noexcept;
    Socket& operator=(Socket&&) = delete;
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;

    bool connected() const noexcept { return fd_ >= 0; }
    bool write_all(std::string_view bytes);
    /// Reads up to `max` bytes; empty on EOF, error or timeout.
    std::string read_some(std::size_t max, std::chrono::milliseconds timeout);
    /// Reads until `bytes` are buffered in `buffer`; false on EOF, error or timeout.
    bool read_into(std::string& buffer, std::size_t bytes, std::chrono::milliseconds timeout);
    void close();
    /// The kernel's TCP state of this end (TCP_ESTABLISHED, TCP_CLOSE, ... from <netinet/tcp.h>),
    /// or -1 when there is no socket.
    int tcp_state() const;

  private:
    int fd_ = -1;
};

/// One parsed HTTP response.
struct HttpReply {
    int status = 0;
    std::string head;  ///< status line and headers, as received
    std::string body;
    /// The value of header `name` (case-insensitive), or empty.
    std::string header(std::string_view name) const;
};

/// Reads one response from `socket`; `head_only` for HEAD (no body whatever Content-Length says).
std::optional<HttpReply> read_http_reply(Socket& socket, std::string& buffer, bool head_only);

/// One request on a fresh connection (Connection: close).
std::optional<HttpReply> http_request(std::uint16_t port, std::string_view method,
                                      std::string_view target, std::string_view body = {});

/// A WebSocket frame as received.
struct Frame {
    std::uint8_t opcode = 0;
    std::string payload;
    /// For a close frame: its status code, or 1005 when it carries none.
    std::uint16_t close_code() const;
};

/// A WebSocket client (RFC 6455): masks what it sends, answers pings.
class WsClient {
  public:
    /// `extra_headers`: more header lines for the handshake, each ending in "\r\n".
    explicit WsClient(std::uint16_t port, std::string_view target = "/ws", int receive_buffer = 0,
                      std::string_view extra_headers = {});
    /// The handshake's HTTP status: 101 when the upgrade succeeded.
    int status() const noexcept { return status_; }

    bool send_frame(std::uint8_t opcode, std::string_view payload);
    bool send_text(std::string_view text) { return send_frame(0x1, text); }
    /// The next data or close frame; nothing on EOF or timeout.
    std::optional<Frame> read_frame(std::chrono::milliseconds timeout = std::chrono::seconds(5));
    /// The next text frame's payload, or nothing.
    std::optional<std::string> read_text(
        std::chrono::milliseconds timeout = std::chrono::seconds(5));
    /// Skips data frames until a close frame; its code, or nothing on EOF or timeout.
    std::optional<std::uint16_t> read_close(
        std::chrono::milliseconds timeout = std::chrono::seconds(10));
    /// Sends a close frame (code 1000).
    bool close();
    /// Waits for the server to end the TCP connection after the close handshake (RFC 6455
    /// section 7.1.1: the server closes first), then closes this side; true on EOF in time.
    bool wait_eof(std::chrono::milliseconds timeout = std::chrono::seconds(5));
    /// See Socket::tcp_state.
    int tcp_state() const { return socket_.tcp_state(); }

  private:
    Socket socket_;
    std::string buffer_;
    int status_ = 0;
};

}  // namespace arbiter::test
