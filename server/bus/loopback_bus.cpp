#include "server/bus/loopback_bus.hpp"

#include <utility>

namespace arbiter::server::bus {

LoopbackBus::LoopbackBus(BusHandlers handlers) : handlers_(std::move(handlers)) {
    events_.push_back({Kind::state, {}, {}, BusState::connected});
    thread_ = std::thread([this] { run(); });
}

LoopbackBus::~LoopbackBus() {
    {
        const std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
}

void LoopbackBus::publish(std::string channel, std::string bytes) {
    {
        const std::lock_guard lock(mutex_);
        if (!broker_up_ || events_.size() >= kMaxQueued) {
            counters_.dropped();
            return;
        }
        counters_.published();
        // Like Redis: a message reaches the channels subscribed when it is published.
        if (!subscribed_.contains(channel)) {
            return;
        }
        events_.push_back({Kind::message, std::move(channel), std::move(bytes), {}});
    }
    wake_.notify_one();
}

void LoopbackBus::subscribe(std::string channel) {
    {
        const std::lock_guard lock(mutex_);
        subscribed_.insert(channel);
        if (!broker_up_) {
            unconfirmed_.insert(std::move(channel));
            return;
        }
        events_.push_back({Kind::subscribed, std::move(channel), {}, {}});
    }
    wake_.notify_one();
}

void LoopbackBus::unsubscribe(std::string channel) {
    const std::lock_guard lock(mutex_);
    subscribed_.erase(channel);
    unconfirmed_.erase(channel);
}

void LoopbackBus::set_broker_up(bool up) {
    {
        const std::lock_guard lock(mutex_);
        if (up == broker_up_) {
            return;
        }
        broker_up_ = up;
        if (!up) {
            // What the broker had not delivered yet is lost with it.
            std::erase_if(events_, [](const Event& event) { return event.kind != Kind::state; });
            events_.push_back({Kind::state, {}, {}, BusState::disconnected});
        } else {
            for (auto& channel : unconfirmed_) {
                events_.push_back({Kind::subscribed, channel, {}, {}});
            }
            unconfirmed_.clear();
            events_.push_back({Kind::state, {}, {}, BusState::reconnected});
        }
    }
    wake_.notify_one();
}

bool LoopbackBus::still_wanted(const Event& event) const {
    return event.kind == Kind::state || subscribed_.contains(event.channel);
}

void LoopbackBus::run() {
    std::unique_lock lock(mutex_);
    for (;;) {
        wake_.wait(lock, [this] { return stopping_ || !events_.empty(); });
        if (stopping_) {
            return;
        }
        Event event = std::move(events_.front());
        events_.pop_front();
        if (!still_wanted(event)) {
            continue;
        }
        lock.unlock();
        switch (event.kind) {
            case Kind::message:
                counters_.received();
                if (handlers_.on_message) {
                    handlers_.on_message(event.channel, event.bytes);
                }
                break;
            case Kind::state:
                if (event.state == BusState::reconnected) {
                    counters_.reconnected();
                }
                if (handlers_.on_state) {
                    handlers_.on_state(event.state);
                }
                break;
            case Kind::subscribed:
                if (handlers_.on_subscribed) {
                    handlers_.on_subscribed(event.channel);
                }
                break;
        }
        lock.lock();
    }
}

}  // namespace arbiter::server::bus
