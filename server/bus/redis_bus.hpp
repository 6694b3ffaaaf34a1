#pragma once
/// \file
/// RedisBus: the Bus over Redis pub/sub (Redis 7, through hiredis). Two connections, each on a
/// thread of its own: the publisher sends what publish() queued, pipelined; the subscriber
/// listens, sends SUBSCRIBE and UNSUBSCRIBE, and runs every handler. A lost connection is
/// retried with a capped backoff; on reconnection every subscription is sent again, and
/// BusState::reconnected is reported once all of them are confirmed and the publisher is up too.

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "server/bus/bus.hpp"
#include "server/bus/bus_counters.hpp"
#include "server/bus/redis_link.hpp"
#include "server/bus/redis_uri.hpp"

namespace arbiter::server::bus {

namespace detail {
class RedisPublisher;
class RedisSubscriber;
}  // namespace detail

/// How patient the bus is with Redis.
struct RedisBusOptions {
    std::chrono::milliseconds connect_timeout{1000};
    /// A read or write on a connection that takes longer fails it (and the bus reconnects).
    std::chrono::milliseconds io_timeout{2000};
    std::chrono::milliseconds first_retry{50};  ///< the first wait after a failed connection
    std::chrono::milliseconds max_retry{2000};  ///< the longest wait between attempts
    /// The subscriber pings Redis after this long without hearing from it, and gives the link up
    /// when the answer has not come after as long again.
    std::chrono::milliseconds ping_after{2000};
    /// Bytes (channel + message) that may wait for the publisher; beyond, publish() drops.
    std::size_t max_queued_bytes = std::size_t{16} << 20U;
};

/// A Bus over one Redis server. Starts connecting at construction; see BusState for what it
/// reports and when.
class RedisBus final : public Bus {
  public:
    RedisBus(RedisAddress address, BusHandlers handlers, RedisBusOptions options = {});
    ~RedisBus() override;
    RedisBus(const RedisBus&) = delete;
    RedisBus& operator=(const RedisBus&) = delete;
    RedisBus(RedisBus&&) = delete;
    RedisBus& operator=(RedisBus&&) = delete;

    void publish(std::string channel, std::string bytes) override;
    void subscribe(std::string channel) override;
    void unsubscribe(std::string channel) override;
    BusCounters counters() const override;

  private:
    detail::AtomicBusCounters counters_;
    detail::Waker subscriber_waker_;  ///< the subscriber's; the publisher rings it too
    std::unique_ptr<detail::RedisPublisher> publisher_;
    std::unique_ptr<detail::RedisSubscriber> subscriber_;
};

}  // namespace arbiter::server::bus
