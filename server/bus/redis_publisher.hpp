#pragma once
/// \file
/// The Redis bus's publishing connection and its thread. Internal to arbiter_bus.

#include <atomic>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/bus/bus_counters.hpp"
#include "server/bus/redis_bus.hpp"
#include "server/bus/redis_link.hpp"

namespace arbiter::server::bus::detail {

/// Sends the queued messages with PUBLISH, pipelined, on a connection of its own. While it has
/// no connection, publish() drops at once; when a connection fails under a batch, the messages
/// Redis had not confirmed are counted as dropped (some may have gone out).
class RedisPublisher {
  public:
    /// `link_changed` runs on the publisher's thread whenever up() changes.
    RedisPublisher(RedisAddress address, const RedisBusOptions& options,
                   AtomicBusCounters& counters, std::function<void()> link_changed);
    ~RedisPublisher();
    RedisPublisher(const RedisPublisher&) = delete;
    RedisPublisher& operator=(const RedisPublisher&) = delete;
    RedisPublisher(RedisPublisher&&) = delete;
    RedisPublisher& operator=(RedisPublisher&&) = delete;

    /// Queues a message or drops it; never waits for Redis. Thread-safe.
    void publish(std::string channel, std::string bytes);
    /// Whether the publisher has a connection. Thread-safe.
    bool up() const { return up_.load(std::memory_order_acquire); }
    /// Ends the thread; called before the subscriber goes, as link_changed reaches it.
    void stop();

  private:
    struct Message {
        std::string channel;
        std::string bytes;
    };

    void run();
    /// Sends `batch` and reads its replies; false when the connection failed.
    bool send(const std::vector<Message>& batch);
    /// Connection lost: drops it, and what waits in the queue.
    void lose_connection();
    void set_up(bool up);

    const RedisAddress address_;
    const RedisBusOptions options_;
    AtomicBusCounters& counters_;
    const std::function<void()> link_changed_;
    Waker waker_;
    std::atomic<bool> up_{false};
    std::atomic<bool> stopping_{false};
    std::mutex mutex_;
    std::vector<Message> queue_;    ///< guarded by mutex_
    std::size_t queued_bytes_ = 0;  ///< guarded by mutex_
    Context context_;               ///< the thread's alone
    std::thread thread_;
};

}  // namespace arbiter::server::bus::detail
