#pragma once
/// \file
/// The network front: one io_context per network thread, a listener on one port that speaks HTTP
/// and upgrades /ws to WebSocket, and strands for the game logic. The only Asio/Beast owner.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/net/client_address.hpp"
#include "server/net/peer.hpp"
#include "server/net/runtime.hpp"

namespace arbiter::server::net {

/// Every bound the network layer enforces; all are command-line flags.
struct NetLimits {
    std::size_t max_frame_bytes = 64UL * 1024;        ///< incoming WebSocket message
    std::size_t max_queue_messages = 1024;            ///< outgoing frames queued per connection
    std::size_t max_queue_bytes = 4UL * 1024 * 1024;  ///< outgoing bytes queued per connection
    /// Outgoing bytes queued for all connections together (memory_budget.hpp; a frame shared by
    /// several queues counts in each, since each one pins it). Past it the connections holding
    /// the most are closed with try_again_later, players last, until the total is a quarter
    /// under it. The server's flag defaults to an eighth of the machine's memory.
    std::size_t max_outgoing_bytes = 256UL * 1024 * 1024;
    /// SO_SNDBUF of a WebSocket connection (the kernel doubles it); 0 leaves the kernel's
    /// autotuning, which grows a buffer up to net.ipv4.tcp_wmem's maximum (4 MB here) for a
    /// reader that stopped reading, so that it is found slow only after ~16,000 frames.
    std::size_t socket_send_buffer_bytes = 64UL * 1024;
    std::size_t max_connections = 20000;  ///< in total
    std::size_t max_connections_per_address = 256;
    /// Nothing received (no frame, no pong) for this long: the connection is dropped, and its
    /// player counts as gone (protocol.md, "Liveness").
    std::chrono::milliseconds idle_timeout{8000};
    /// The server pings every WebSocket connection this often (at least twice per idle timeout)
    /// and measures its round trip from the pongs (Peer::round_trip).
    std::chrono::milliseconds ping_interval{2000};
    std::chrono::seconds handshake_timeout{10};
    /// A close handshake not finished by then ends with a reset: a peer that stopped reading
    /// cannot take the close frame, and a socket closed gently with a full send buffer and a zero
    /// window would stay in FIN-WAIT-1, holding its buffer, without the peer ever hearing of it.
    std::chrono::milliseconds close_timeout{5000};
    std::size_t max_http_body_bytes = 16UL * 1024;
    /// Ping frames a client may send a second, sustained (a burst of kPingBurstSeconds' worth);
    /// past it the connection is closed with policy_violation: beast answers each ping with a
    /// pong, so a ping flood costs the server a write per frame (1M pings: 2.4 s of CPU).
    double max_pings_per_second = 4;
    static constexpr double kPingBurstSeconds = 4;
};

struct NetConfig {
    /// Network threads, each running an io_context of its own; connections and strands are
    /// spread over them in turn. One io_context shared by several threads wakes an idle one for
    /// nearly every handler queued while another runs: at a moderate rate most of a move's CPU
    /// went into those hand-offs (8 context switches a move with two threads, 2.7 with one).
    unsigned threads = 1;
    std::string bind_address = "127.0.0.1";
    std::uint16_t port = 8080;  ///< 0: any free port (see Network::port())
    NetLimits limits;
    /// Both set: every connection on the port speaks TLS (https:// and wss://); a file that
    /// does not load makes the Network constructor throw.
    std::string tls_cert_file;  ///< PEM certificate chain
    std::string tls_key_file;   ///< PEM private key
    /// Where a reverse proxy whose X-Forwarded-For is believed connects from (--trusted-proxy;
    /// see client_address()). Default: this machine.
    std::vector<AddressRange> trusted_proxies = loopback_ranges();
    /// Origins, besides the server's own, whose pages may open a WebSocket (--allowed-origin;
    /// see origin_allowed()).
    std::vector<std::string> allowed_origins;
    /// Where the network layer reports errors (one line each); empty: standard error.
    std::function<void(std::string_view)> log;
};

/// What the bounds did since start: every refusal and forced close is counted (STYLE: a bound
/// hit gives a close code and a metric).
struct NetStats {
    std::uint64_t slow_consumer_closes = 0;  ///< closed with try_again_later (queue bound hit)
    std::uint64_t dropped_frames = 0;     ///< outgoing frames not sent: over the bound or closing
    std::uint64_t too_large_closes = 0;   ///< closed with too_big (frame over max_frame_bytes)
    std::uint64_t binary_closes = 0;      ///< closed because a binary frame arrived
    std::uint64_t ping_flood_closes = 0;  ///< closed: pings over max_pings_per_second
    std::uint64_t origin_refusals = 0;    ///< upgrades refused 403: an Origin not allowed
    std::uint64_t idle_closes = 0;        ///< dropped: silent for idle_timeout, pings unanswered
    std::uint64_t rejected_per_address = 0;  ///< refused: max_connections_per_address reached
    std::uint64_t rejected_total = 0;        ///< refused: max_connections reached
    std::uint64_t handler_errors = 0;        ///< exceptions caught from handlers
    std::size_t peak_queue_bytes = 0;        ///< the largest outgoing queue seen, in bytes
    std::size_t queued_bytes = 0;    ///< outgoing bytes queued now, all connections together
    std::uint64_t memory_sheds = 0;  ///< closed with try_again_later: max_outgoing_bytes reached
};

/// Owns the io_contexts, their threads and the listener.
class Network {
  public:
    /// Throws std::runtime_error when the address cannot be bound or the TLS certificate or key
    /// does not load (start-up failures).
    Network(NetConfig config, std::shared_ptr<PeerHandler> peers,
            std::shared_ptr<HttpHandler> http);
    ~Network();
    Network(const Network&) = delete;
    Network& operator=(const Network&) = delete;

    /// The port actually bound.
    std::uint16_t port() const noexcept;
    /// A new strand, for one room or other serial state (on the io_contexts in turn).
    std::shared_ptr<Executor> make_strand();
    /// Runs the io_contexts, one per thread (this one runs the first), until stop(); SIGINT and
    /// SIGTERM call `on_signal` once (which is expected to call stop()).
    void run(std::function<void()> on_signal);
    /// Stops accepting, closes every WebSocket with going_away, and ends run() once the
    /// connections are closed (or after a short grace period). Thread-safe, idempotent.
    void stop();
    /// Connections open now.
    std::size_t connection_count() const noexcept;
    /// The counters so far (each read atomically; the set is not one snapshot).
    NetStats stats() const noexcept;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace arbiter::server::net
