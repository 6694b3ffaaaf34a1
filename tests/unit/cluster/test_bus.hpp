#pragma once
// Test support for the cluster's links: one broker that several nodes' buses publish to, which
// the test hands over by hand (pump), and an executor that runs what is posted at once.

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "server/bus/bus.hpp"
#include "server/net/runtime.hpp"

namespace arbiter::server::app::testing {

/// One broker for every node: what is published waits in `queue` until the test hands it to the
/// node whose channel it names. While `up` is false, publishes are lost.
class Broker {
  public:
    struct Message {
        std::string channel;
        std::string bytes;
    };
    std::deque<Message> queue;
    bool up = true;
};

/// One node's bus to the broker: what it subscribed, and the drops it reports.
class NodeBus final : public bus::Bus {
  public:
    explicit NodeBus(Broker& broker) : broker_(broker) {}
    void publish(std::string channel, std::string bytes) override {
        if (broker_.up) {
            broker_.queue.push_back({std::move(channel), std::move(bytes)});
        }
    }
    void subscribe(std::string channel) override { subscribed.push_back(std::move(channel)); }
    void unsubscribe(std::string /*channel*/) override {}
    bus::BusCounters counters() const override {
        bus::BusCounters counters;
        counters.dropped = dropped;
        return counters;
    }
    std::vector<std::string> subscribed;
    std::uint64_t dropped = 0;  ///< what the bus says it dropped (a full queue)

  private:
    Broker& broker_;
};

/// Runs what is posted at once, on the caller's thread.
class InlineExecutor final : public Executor {
  public:
    void post(std::function<void()> task) override { task(); }
    std::shared_ptr<Timer> post_after(std::chrono::milliseconds /*delay*/,
                                      std::function<void()> task) override {
        task();
        return nullptr;
    }
};

}  // namespace arbiter::server::app::testing
