#pragma once
/// \file
/// LoopbackBus: the Bus inside one process, for the unit tests of what is built on the bus. It
/// keeps the Redis bus's contract (handlers on a thread of its own, order per channel, drops while
/// down) and lets a test take the "broker" away and bring it back.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "server/bus/bus.hpp"
#include "server/bus/bus_counters.hpp"

namespace arbiter::server::bus {

/// An in-process Bus. Reports BusState::connected once its thread starts.
class LoopbackBus final : public Bus {
  public:
    /// At most this many deliveries wait for the bus's thread; more are dropped and counted.
    static constexpr std::size_t kMaxQueued = 65536;

    explicit LoopbackBus(BusHandlers handlers);
    ~LoopbackBus() override;
    LoopbackBus(const LoopbackBus&) = delete;
    LoopbackBus& operator=(const LoopbackBus&) = delete;
    LoopbackBus(LoopbackBus&&) = delete;
    LoopbackBus& operator=(LoopbackBus&&) = delete;

    void publish(std::string channel, std::string bytes) override;
    void subscribe(std::string channel) override;
    void unsubscribe(std::string channel) override;
    BusCounters counters() const override { return counters_.snapshot(); }

    /// Takes the broker away (false: disconnected, queued messages lost, publishes dropped) or
    /// brings it back (true: reconnected, with every subscription kept).
    void set_broker_up(bool up);

  private:
    enum class Kind : std::uint8_t { message, state, subscribed };
    struct Event {
        Kind kind = Kind::message;
        std::string channel;
        std::string bytes;
        BusState state = BusState::connected;
    };

    void run();
    /// Whether `event` should still reach the handlers; mutex_ held.
    bool still_wanted(const Event& event) const;

    BusHandlers handlers_;
    detail::AtomicBusCounters counters_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Event> events_;           ///< guarded by mutex_
    std::set<std::string> subscribed_;   ///< guarded by mutex_
    std::set<std::string> unconfirmed_;  ///< subscribed while down; guarded by mutex_
    bool broker_up_ = true;              ///< guarded by mutex_
    bool stopping_ = false;              ///< guarded by mutex_
    std::thread thread_;
};

}  // namespace arbiter::server::bus
