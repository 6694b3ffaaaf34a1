#pragma once
/// \file
/// How the server's game logic sees the network: a Peer is one WebSocket connection, a
/// PeerHandler receives its messages, an HttpHandler answers plain HTTP requests. Only the files
/// in server/net/ include Asio or Beast; everything else talks through these plain interfaces.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/net/client_address.hpp"

namespace arbiter::server::net {

/// WebSocket close codes the server uses (RFC 6455 section 7.4.1).
enum class CloseCode : std::uint16_t {
    normal = 1000,
    going_away = 1001,        ///< server shutting down
    policy_violation = 1008,  ///< rate limit abuse, too many connections from one address
    too_big = 1009,           ///< a frame over the size limit
    internal_error = 1011,    ///< a bug in a handler
    service_restart = 1012,   ///< a cluster node lost the game: reconnect and resume elsewhere
    try_again_later = 1013,   ///< slow consumer, or the server's outgoing memory budget
};

/// One WebSocket connection. Thread-safe: any thread may send or close.
class Peer {
  public:
    virtual ~Peer() = default;
    /// Unique per process, never reused.
    virtual std::uint64_t id() const noexcept = 0;
    /// The remote IP address as text.
    virtual const std::string& address() const noexcept = 0;
    /// Whom the per-client limits count this connection against: the client's address key, from
    /// X-Forwarded-For when the connection came through a trusted proxy (client_address()).
    /// The default: a client on this machine, limited per connection.
    virtual const ClientAddress& client() const noexcept {
        static const ClientAddress kLocal{"", true};
        return kLocal;
    }
    /// The Cookie field of the WebSocket upgrade request (several lines joined by ", "), which
    /// may carry the session that signs the connection in; nullopt when none was sent. Never
    /// logged.
    virtual const std::optional<std::string>& upgrade_cookie() const noexcept {
        static const std::optional<std::string> kNone;
        return kNone;
    }
    /// The connection's round trip as the server's own pings last measured it; nullopt before
    /// the first answer (and for connections that measure none).
    virtual std::optional<std::chrono::milliseconds> round_trip() const noexcept {
        return std::nullopt;
    }
    /// Whether the connection still answers: something (a frame, a pong to the server's pings)
    /// came from it within about one and a half ping periods. False for a half-open connection,
    /// whose link died without a FIN, before its silence is long enough to drop it.
    virtual bool responsive() const noexcept { return true; }
    /// The game logic says whether this connection holds a seat in a game: when the server's
    /// outgoing memory budget is exceeded, players are closed last (NetLimits::max_outgoing_bytes).
    /// An atomic store: it never calls back, so it may be called under the caller's lock.
    virtual void set_player(bool /*player*/) noexcept {}
    /// Queues one text frame. When the outgoing queue is over its bounds (count or bytes) the
    /// connection is closed with CloseCode::try_again_later and false is returned; the message
    /// is never silently dropped while the connection stays open.
    virtual bool send(std::shared_ptr<const std::string> text) = 0;
    /// Sends a close frame after the frames already queued, then drops the connection.
    virtual void close(CloseCode code, std::string_view reason) = 0;
};

/// Receives the life of every WebSocket connection. For one peer, calls never overlap and come in
/// order: on_open, on_message*, on_close (exactly once, also after close() or an I/O error).
class PeerHandler {
  public:
    virtual ~PeerHandler() = default;
    virtual void on_open(const std::shared_ptr<Peer>& peer) = 0;
    virtual void on_message(const std::shared_ptr<Peer>& peer, std::string_view text) = 0;
    /// A frame over the size limit arrived; the connection closes with too_big right after.
    virtual void on_too_large(const std::shared_ptr<Peer>& peer) = 0;
    virtual void on_close(const std::shared_ptr<Peer>& peer) = 0;
};

/// A plain HTTP request (not a WebSocket upgrade), as the handler sees it.
struct HttpRequest {
    std::string method;  ///< "GET", "HEAD", ...
    std::string target;  ///< path and query, e.g. "/api/games?status=ended"
    std::string remote_address;
    bool loopback = false;  ///< the client connected from 127.0.0.0/8 or ::1
    std::string body;
    /// The conditional request headers (RFC 9110 13.1), each line of one joined by ", ";
    /// nullopt when not sent. (`{}`: a request written {method, target, ...} may leave them out
    /// without -Wmissing-field-initializers.)
    std::optional<std::string> if_none_match{};
    std::optional<std::string> if_modified_since{};
    /// Whom the request counts against (see Peer::client()).
    ClientAddress client{};
    /// The Cookie and Authorization fields, nullopt when not sent (a session token rides in
    /// either). Never logged.
    std::optional<std::string> cookie{};
    std::optional<std::string> authorization{};
    /// The request came over TLS (a session cookie is then marked Secure).
    bool secure = false;
};

/// The answer; Content-Length and Server are added by the net layer (no Content-Length on a 304,
/// which has no content).
struct HttpResponse {
    unsigned status = 200;
    std::string content_type = "text/plain; charset=utf-8";  ///< empty: none (say, on a 304)
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
};

/// Answers HTTP requests. Called from network threads, possibly concurrently: thread-safe.
class HttpHandler {
  public:
    /// Takes the answer to one request: called once, on any thread, during handle() or after
    /// it (an answer that needs storage is made on the reader thread).
    using Respond = std::function<void(HttpResponse)>;

    virtual ~HttpHandler() = default;
    virtual void handle(const HttpRequest& request, Respond respond) = 0;
};

}  // namespace arbiter::server::net
