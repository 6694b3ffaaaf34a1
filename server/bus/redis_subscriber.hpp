#pragma once
/// \file
/// The Redis bus's subscribing connection and its thread, which runs every handler. Internal to
/// arbiter_bus.

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "server/bus/bus.hpp"
#include "server/bus/bus_counters.hpp"
#include "server/bus/redis_bus.hpp"
#include "server/bus/redis_link.hpp"
#include "server/bus/redis_publisher.hpp"

struct redisReply;

namespace arbiter::server::bus::detail {

/// Listens on a connection in subscribe mode. Subscriptions are asked for by any thread and sent
/// by this one; the channels wanted are kept here and sent again after every reconnection. The
/// bus's state is this connection's and the publisher's together.
class RedisSubscriber {
  public:
    /// `waker` wakes this thread: for its requests, and for the publisher when its link changes.
    RedisSubscriber(RedisAddress address, const RedisBusOptions& options, BusHandlers handlers,
                    AtomicBusCounters& counters, const RedisPublisher& publisher,
                    const Waker& waker);
    ~RedisSubscriber();
    RedisSubscriber(const RedisSubscriber&) = delete;
    RedisSubscriber& operator=(const RedisSubscriber&) = delete;
    RedisSubscriber(RedisSubscriber&&) = delete;
    RedisSubscriber& operator=(RedisSubscriber&&) = delete;

    /// Thread-safe.
    void subscribe(std::string channel) { request(true, std::move(channel)); }
    /// Thread-safe.
    void unsubscribe(std::string channel) { request(false, std::move(channel)); }

  private:
    struct Request {
        bool subscribe = true;
        std::string channel;
    };
    using Clock = std::chrono::steady_clock;

    void request(bool subscribe, std::string channel);
    void run();
    /// Connects and sends every wanted channel; false when Redis cannot be reached.
    bool connect_and_resubscribe();
    /// Takes the pending requests and sends them; false when the connection failed.
    bool apply_requests();
    /// Hands each complete reply to handle(); false on a reply that makes no sense.
    bool dispatch_replies();
    bool handle(const redisReply& reply);
    /// Pings after a silence, gives up after an unanswered ping; false when the link is dead.
    bool keep_alive();
    void lose_connection();
    /// Reports connected / disconnected / reconnected when the bus's state changed.
    void report_state();
    std::optional<std::chrono::milliseconds> wait_limit() const;

    const RedisAddress address_;
    const RedisBusOptions options_;
    const BusHandlers handlers_;
    AtomicBusCounters& counters_;
    const RedisPublisher& publisher_;
    const Waker& waker_;
    std::atomic<bool> stopping_{false};

    std::mutex mutex_;
    std::vector<Request> requests_;  ///< guarded by mutex_

    // The thread's alone:
    Context context_;
    std::set<std::string> wanted_;         ///< the channels asked for, as of the last request
    std::set<std::string> to_confirm_;     ///< subscribe() calls not yet confirmed by Redis
    std::set<std::string> resubscribing_;  ///< sent again after a reconnection, not yet confirmed
    Clock::time_point last_heard_{};
    std::optional<Clock::time_point> ping_sent_;
    bool reported_up_ = false;
    bool ever_up_ = false;

    std::thread thread_;
};

}  // namespace arbiter::server::bus::detail
