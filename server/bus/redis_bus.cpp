#include "server/bus/redis_bus.hpp"

#include <utility>

#include "server/bus/redis_publisher.hpp"
#include "server/bus/redis_subscriber.hpp"

namespace arbiter::server::bus {

RedisBus::RedisBus(RedisAddress address, BusHandlers handlers, RedisBusOptions options)
    : publisher_(std::make_unique<detail::RedisPublisher>(address, options, counters_,
                                                          [this] { subscriber_waker_.notify(); })),
      subscriber_(std::make_unique<detail::RedisSubscriber>(std::move(address), options,
                                                            std::move(handlers), counters_,
                                                            *publisher_, subscriber_waker_)) {}

RedisBus::~RedisBus() {
    // The publisher's thread rings the subscriber's waker: it ends first.
    publisher_->stop();
    subscriber_.reset();
}

void RedisBus::publish(std::string channel, std::string bytes) {
    publisher_->publish(std::move(channel), std::move(bytes));
}

void RedisBus::subscribe(std::string channel) {
    subscriber_->subscribe(std::move(channel));
}

void RedisBus::unsubscribe(std::string channel) {
    subscriber_->unsubscribe(std::move(channel));
}

BusCounters RedisBus::counters() const {
    return counters_.snapshot();
}

}  // namespace arbiter::server::bus
