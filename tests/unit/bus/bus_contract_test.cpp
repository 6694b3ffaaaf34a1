// The Bus contract, run against LoopbackBus and against RedisBus over a private redis-server:
// delivery and order per channel, unsubscribe, large and binary messages, the broker going away
// and coming back (states, drops, subscriptions kept), publish never blocking.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "server/bus/bus.hpp"
#include "server/bus/loopback_bus.hpp"
#include "server/bus/redis_bus.hpp"
#include "tests/unit/bus/redis_server.hpp"

namespace arbiter::server::bus {
namespace {

using namespace std::chrono_literals;

/// What the handlers saw, in order, for the test's thread to wait on.
class Recorder {
  public:
    struct Message {
        std::string channel;
        std::string bytes;
    };

    BusHandlers handlers() {
        return {
            [this](std::string_view channel, std::string_view bytes) {
                record([&] { messages_.push_back({std::string(channel), std::string(bytes)}); });
            },
            [this](BusState state) { record([&] { states_.push_back(state); }); },
            [this](std::string_view channel) {
                record([&] { subscribed_.emplace_back(channel); });
            }};
    }

    /// Waits up to 5 s for `done` (called under the lock); whether it came true.
    bool wait(const std::function<bool()>& done) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, 5s, done);
    }
    bool wait_for_state(BusState state) {
        return wait([&] { return !states_.empty() && states_.back() == state; });
    }
    bool wait_for_subscribed(std::size_t count) {
        return wait([&] { return subscribed_.size() >= count; });
    }
    bool wait_for_messages(std::size_t count) {
        return wait([&] { return messages_.size() >= count; });
    }

    std::vector<Message> messages() const {
        const std::lock_guard lock(mutex_);
        return messages_;
    }
    std::vector<BusState> states() const {
        const std::lock_guard lock(mutex_);
        return states_;
    }

  private:
    void record(const std::function<void()>& change) {
        {
            const std::lock_guard lock(mutex_);
            change();
        }
        changed_.notify_all();
    }

    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<Message> messages_;
    std::vector<BusState> states_;
    std::vector<std::string> subscribed_;
};

/// Polls `done` for up to 5 s (for what no handler reports, such as a counter).
bool eventually(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::sleep_for(2ms);
    }
    return true;
}

enum class Kind { loopback, redis };

constexpr auto kPingAfter = 200ms;

std::string name_of(const testing::TestParamInfo<Kind>& info) {
    return info.param == Kind::loopback ? "Loopback" : "Redis";
}

void PrintTo(Kind kind, std::ostream* out) {
    *out << (kind == Kind::loopback ? "loopback" : "redis");
}

class BusContract : public testing::TestWithParam<Kind> {
  protected:
    void SetUp() override {
        if (GetParam() == Kind::redis) {
            redis_ = std::make_unique<test::RedisServer>();
            const std::string failure = redis_->start();
            ASSERT_EQ(failure, "") << "the Redis bus tests need a private redis-server";
            RedisBusOptions options;
            options.connect_timeout = 500ms;
            options.io_timeout = 1s;
            options.first_retry = 10ms;
            options.max_retry = 100ms;
            options.ping_after = kPingAfter;
            bus_ = std::make_unique<RedisBus>(RedisAddress{"127.0.0.1", redis_->port()},
                                              recorder_.handlers(), options);
        } else {
            auto loopback = std::make_unique<LoopbackBus>(recorder_.handlers());
            loopback_ = loopback.get();
            bus_ = std::move(loopback);
        }
        ASSERT_TRUE(recorder_.wait_for_state(BusState::connected));
    }

    void TearDown() override { bus_.reset(); }

    void take_broker_away() {
        if (redis_) {
            redis_->kill();
        } else {
            loopback_->set_broker_up(false);
        }
    }
    void bring_broker_back() {
        if (redis_) {
            ASSERT_EQ(redis_->start(), "");
        } else {
            loopback_->set_broker_up(true);
        }
    }

    /// Subscribes to each channel and waits until every subscription took effect.
    void subscribe(const std::vector<std::string>& channels) {
        for (const auto& channel : channels) {
            bus_->subscribe(channel);
        }
        ASSERT_TRUE(recorder_.wait_for_subscribed(channels.size()));
    }

    Recorder recorder_;
    std::unique_ptr<test::RedisServer> redis_;
    LoopbackBus* loopback_ = nullptr;
    std::unique_ptr<Bus> bus_;
};

TEST_P(BusContract, DeliversEachChannelsMessagesInOrder) {
    subscribe({"game.1", "game.2"});
    constexpr int kEach = 200;
    for (int i = 0; i < kEach; ++i) {
        bus_->publish("game.1", std::to_string(i));
        bus_->publish("game.2", std::to_string(i));
    }
    ASSERT_TRUE(recorder_.wait_for_messages(2 * kEach));
    std::vector<int> next(3, 0);
    for (const auto& message : recorder_.messages()) {
        const int game = message.channel == "game.1" ? 1 : 2;
        EXPECT_EQ(message.bytes, std::to_string(next[game]++)) << message.channel;
    }
    EXPECT_EQ(next[1], kEach);
    EXPECT_EQ(next[2], kEach);
    // The publisher counts a message when Redis confirms it, which may come after delivery.
    EXPECT_TRUE(eventually([&] { return bus_->counters().published == 2U * kEach; }));
    const BusCounters counters = bus_->counters();
    EXPECT_EQ(counters.received, 2U * kEach);
    EXPECT_EQ(counters.dropped, 0U);
}

TEST_P(BusContract, DeliversNothingOnAChannelNobodySubscribed) {
    subscribe({"game.1"});
    bus_->publish("game.9", "not for us");
    bus_->publish("game.1", "marker");
    ASSERT_TRUE(recorder_.wait_for_messages(1));
    EXPECT_EQ(recorder_.messages().front().bytes, "marker");
}

TEST_P(BusContract, UnsubscribeStopsDelivery) {
    subscribe({"game.1", "game.2"});
    bus_->publish("game.1", "before");
    ASSERT_TRUE(recorder_.wait_for_messages(1));
    bus_->unsubscribe("game.1");
    bus_->publish("game.1", "after");
    bus_->publish("game.2", "marker");
    ASSERT_TRUE(recorder_.wait_for_messages(2));
    std::this_thread::sleep_for(50ms);  // room for a wrong delivery to show
    const auto messages = recorder_.messages();
    ASSERT_EQ(messages.size(), 2U);
    EXPECT_EQ(messages[0].bytes, "before");
    EXPECT_EQ(messages[1].bytes, "marker");
}

TEST_P(BusContract, CarriesLargeAndBinaryMessagesWhole) {
    subscribe({"game.1"});
    std::string every_byte;
    for (int value = 0; value < 256; ++value) {
        every_byte.push_back(static_cast<char>(value));
    }
    std::string large(64 * 1024, '\0');
    std::mt19937 random(43);
    for (auto& byte : large) {
        byte = static_cast<char>(random() & 0xFFU);
    }
    bus_->publish("game.1", every_byte);
    bus_->publish("game.1", large);
    bus_->publish("game.1", "");
    ASSERT_TRUE(recorder_.wait_for_messages(3));
    const auto messages = recorder_.messages();
    EXPECT_EQ(messages[0].bytes, every_byte);
    EXPECT_EQ(messages[1].bytes, large);
    EXPECT_EQ(messages[2].bytes, "");
}

TEST_P(BusContract, ReportsTheBrokerGoneAndBackAndKeepsSubscriptions) {
    subscribe({"game.1"});
    take_broker_away();
    ASSERT_TRUE(recorder_.wait_for_state(BusState::disconnected));

    // While the broker is away, publish drops and counts, and returns at once.
    constexpr int kWhileDown = 1000;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kWhileDown; ++i) {
        bus_->publish("game.1", "lost");
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, 500ms);
    ASSERT_TRUE(eventually([&] { return bus_->counters().dropped == kWhileDown; }))
        << "dropped " << bus_->counters().dropped;

    bring_broker_back();
    ASSERT_TRUE(recorder_.wait_for_state(BusState::reconnected));
    EXPECT_EQ(recorder_.states(),
              (std::vector<BusState>{BusState::connected, BusState::disconnected,
                                     BusState::reconnected}));
    EXPECT_EQ(bus_->counters().reconnects, 1U);

    bus_->publish("game.1", "after");
    ASSERT_TRUE(recorder_.wait_for_messages(1));
    const auto messages = recorder_.messages();
    ASSERT_EQ(messages.size(), 1U);
    EXPECT_EQ(messages[0].bytes, "after");
}

TEST_P(BusContract, ConfirmsASubscriptionAskedForWhileTheBrokerIsAway) {
    take_broker_away();
    ASSERT_TRUE(recorder_.wait_for_state(BusState::disconnected));
    bus_->subscribe("game.1");
    bring_broker_back();
    ASSERT_TRUE(recorder_.wait_for_state(BusState::reconnected));
    ASSERT_TRUE(recorder_.wait_for_subscribed(1));
    bus_->publish("game.1", "hello");
    ASSERT_TRUE(recorder_.wait_for_messages(1));
}

// A Redis that keeps the connection open but answers nothing (frozen, or a link that died without
// a word): the subscriber's unanswered ping gives it up, and it comes back once Redis answers.
using RedisLink = BusContract;  // only a real broker can freeze

TEST_P(RedisLink, GivesUpOnABrokerThatStoppedAnswering) {
    subscribe({"game.1"});
    const auto frozen_at = std::chrono::steady_clock::now();
    redis_->freeze();
    ASSERT_TRUE(recorder_.wait_for_state(BusState::disconnected));
    EXPECT_LT(std::chrono::steady_clock::now() - frozen_at, 3 * kPingAfter + 500ms);
    redis_->thaw();
    ASSERT_TRUE(recorder_.wait_for_state(BusState::reconnected));
    bus_->publish("game.1", "after");
    ASSERT_TRUE(recorder_.wait_for_messages(1));
}

INSTANTIATE_TEST_SUITE_P(Buses, BusContract, testing::Values(Kind::loopback, Kind::redis), name_of);
INSTANTIATE_TEST_SUITE_P(Buses, RedisLink, testing::Values(Kind::redis), name_of);

}  // namespace
}  // namespace arbiter::server::bus
