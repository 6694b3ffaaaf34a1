#pragma once
// Internal to server/net: what every connection shares — the limits, the handlers, the counters,
// the connection caps and the registry that stop() walks. Plain C++: no Asio or Beast here.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "server/net/memory_budget.hpp"
#include "server/net/server.hpp"

namespace arbiter::server::net::detail {

/// Something stop() can close: an HTTP or a WebSocket session.
class Connection {
  public:
    virtual ~Connection() = default;
    /// Graceful: WebSockets close with going_away after their queued frames, idle HTTP
    /// connections close. Forced: the socket closes at once. Thread-safe.
    virtual void shut_down(bool force) = 0;
    /// Its outgoing queue as a memory shed weighs it; nullopt for a connection that queues
    /// nothing (HTTP). Reads atomics only: called under SharedState's lock.
    virtual std::optional<QueueHolder> queue_use() const noexcept { return std::nullopt; }
    /// Closes it with try_again_later to free its queue (the outgoing memory budget), unless it
    /// is closing already. Thread-safe.
    virtual void shed() {}
};

/// Where a connection comes from.
struct RemoteInfo {
    std::string address;
    bool loopback = false;
    /// Whom it counts against, as its last request said (X-Forwarded-For from a trusted proxy).
    ClientAddress client{};
};

/// How requests are judged: whose X-Forwarded-For is believed, which origins may upgrade.
struct RequestPolicy {
    std::vector<AddressRange> trusted_proxies;
    std::vector<std::string> allowed_origins;
};

class SharedState;

/// One connection's slot under max_connections and max_connections_per_address, or, for a
/// connection over a cap, one of the few slots for answering it `503` before it is closed; gives
/// the slot back (and leaves the registry) when destroyed.
class ConnectionTicket {
  public:
    ConnectionTicket(std::shared_ptr<SharedState> state, std::uint64_t id, std::string address,
                     bool refused);
    ConnectionTicket(ConnectionTicket&& other) noexcept;
    ConnectionTicket& operator=(ConnectionTicket&&) = delete;
    ConnectionTicket(const ConnectionTicket&) = delete;
    ConnectionTicket& operator=(const ConnectionTicket&) = delete;
    ~ConnectionTicket();

    std::uint64_t id() const noexcept { return id_; }
    /// Over a cap: the connection is answered 503 and closed.
    bool refused() const noexcept { return refused_; }

  private:
    std::shared_ptr<SharedState> state_;
    std::uint64_t id_;
    std::string address_;
    bool refused_;
};

/// Counters behind NetStats.
struct Counters {
    std::atomic<std::uint64_t> slow_consumer_closes{0};
    std::atomic<std::uint64_t> dropped_frames{0};
    std::atomic<std::uint64_t> too_large_closes{0};
    std::atomic<std::uint64_t> binary_closes{0};
    std::atomic<std::uint64_t> ping_flood_closes{0};
    std::atomic<std::uint64_t> origin_refusals{0};
    std::atomic<std::uint64_t> idle_closes{0};
    std::atomic<std::uint64_t> rejected_per_address{0};
    std::atomic<std::uint64_t> rejected_total{0};
    std::atomic<std::uint64_t> handler_errors{0};
    std::atomic<std::size_t> peak_queue_bytes{0};
    std::atomic<std::uint64_t> memory_sheds{0};
};

class SharedState : public std::enable_shared_from_this<SharedState> {
  public:
    SharedState(NetLimits limits, RequestPolicy policy, std::shared_ptr<PeerHandler> peers,
                std::shared_ptr<HttpHandler> http, std::function<void(std::string_view)> log);

    const NetLimits& limits() const noexcept { return limits_; }
    const RequestPolicy& policy() const noexcept { return policy_; }
    PeerHandler& peers() const noexcept { return *peers_; }
    HttpHandler& http() const noexcept { return *http_; }
    void log(std::string_view line) const;

    /// Connections over a cap that are answered `503` at once; beyond, they are closed at accept,
    /// so that a client over its cap holds no sockets and costs no TLS handshakes.
    static constexpr std::size_t kMaxRefusalsAnswering = 16;

    /// A slot for a new connection from `address`. When a cap is reached (counted): a refused
    /// ticket while fewer than kMaxRefusalsAnswering are being answered, else nothing.
    std::optional<ConnectionTicket> admit(const std::string& address);
    /// Unique per process, never reused (Peer::id).
    std::uint64_t next_id() noexcept { return next_id_.fetch_add(1) + 1; }

    /// Makes `connection` the one stop() closes for `id` (replaces an earlier one: the HTTP
    /// session hands its ticket to the WebSocket session it upgrades to).
    void track(std::uint64_t id, std::weak_ptr<Connection> connection);
    /// Closes every tracked connection.
    void shut_down_all(bool force);
    /// Connections holding a slot now.
    std::size_t open_count() const noexcept { return open_.load(); }

    /// Records an outgoing queue size for NetStats::peak_queue_bytes.
    void note_queue_bytes(std::size_t bytes) noexcept;

    /// `bytes` more are queued for some connection (the server-wide total of
    /// NetLimits::max_outgoing_bytes). Crossing the high-water mark asks for a shed, once until
    /// it has run: a frame costs an atomic add and a compare, never a scan of the connections.
    /// Says whether the server is over its budget now (see closes_over_budget).
    bool queued(std::size_t bytes) noexcept;
    /// `bytes` left a queue: sent, or dropped.
    void unqueued(std::size_t bytes) noexcept { queued_bytes_.fetch_sub(bytes); }
    /// How a shed is asked for: the network posts it to its control strand, at most a few times
    /// a second (set once, before the first connection).
    void on_over_budget(std::function<void()> schedule) { schedule_shed_ = std::move(schedule); }
    /// Closes the connections holding the most unsent bytes, players last, until the total would
    /// be under the low-water mark (connections_to_shed); nothing when it is no longer over the
    /// high-water mark. Returns how many it closed.
    std::size_t shed();
    NetStats stats() const noexcept;

    Counters counters;

  private:
    friend class ConnectionTicket;
    void release(std::uint64_t id, const std::string& address, bool refused) noexcept;
    std::optional<ConnectionTicket> refuse();  // under mutex_

    const NetLimits limits_;
    const RequestPolicy policy_;
    const std::shared_ptr<PeerHandler> peers_;
    const std::shared_ptr<HttpHandler> http_;
    const std::function<void(std::string_view)> log_;
    std::atomic<std::uint64_t> next_id_{0};
    std::atomic<std::size_t> open_{0};
    const OutgoingBudget budget_;
    std::atomic<std::size_t> queued_bytes_{0};
    std::atomic<bool> shed_asked_{false};  ///< a shed is scheduled and has not run yet
    std::function<void()> schedule_shed_;
    std::size_t refusing_ = 0;  ///< refused tickets alive (under mutex_)
    mutable std::mutex mutex_;
    std::unordered_map<std::string, std::size_t> per_address_;
    std::unordered_map<std::uint64_t, std::weak_ptr<Connection>> connections_;
};

}  // namespace arbiter::server::net::detail
