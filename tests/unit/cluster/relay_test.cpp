#include "server/cluster/relay.hpp"

#include <gtest/gtest.h>

#include "test_cluster.hpp"

namespace arbiter::server::cluster {
namespace {

using testing::RecordingBus;
using testing::RecordingCatchUp;

class RelayTest : public ::testing::Test {
  protected:
    Relay make(RelayLimits limits = {}) {
        return Relay(
            bus_, catch_up_,
            [this](ConnectionId viewer, const std::string& message) {
                delivered_[viewer].push_back(std::stoull(message));
            },
            limits);
    }
    /// An event whose message is its seq, so that viewers record seqs.
    static Event event(std::uint64_t seq, std::uint64_t epoch = 1, std::string owner = "node-a") {
        return Event{"g1", seq, std::move(owner), epoch, std::to_string(seq), "", 0};
    }
    static std::vector<Event> events(std::uint64_t first, std::uint64_t last,
                                     std::uint64_t epoch = 1) {
        std::vector<Event> out;
        for (auto seq = first; seq <= last; ++seq) {
            out.push_back(event(seq, epoch));
        }
        return out;
    }
    static std::vector<std::uint64_t> run(std::uint64_t first, std::uint64_t last) {
        std::vector<std::uint64_t> out;
        for (auto seq = first; seq <= last; ++seq) {
            out.push_back(seq);
        }
        return out;
    }

    RecordingBus bus_;
    RecordingCatchUp catch_up_;
    std::map<ConnectionId, std::vector<std::uint64_t>> delivered_;
    TimePoint now_{};
};

TEST_F(RelayTest, SubscribesForTheFirstViewerAndCatchesUpOnceSubscribed) {
    auto relay = make();
    relay.add_viewer("g1", 1, 3, now_);
    EXPECT_TRUE(bus_.subscribed.contains("game:g1"));
    EXPECT_TRUE(catch_up_.requests.empty());  // not before the subscription is live
    relay.on_subscribed("g1", now_);
    ASSERT_EQ(catch_up_.requests.size(), 1U);
    EXPECT_EQ(catch_up_.requests[0], std::make_pair(std::string("g1"), std::uint64_t{3}));
    // The event published between the state read and the subscription comes from the database.
    relay.on_catch_up("g1", events(4, 4), now_);
    relay.on_event(event(5), now_);
    EXPECT_EQ(delivered_[1], run(4, 5));
    EXPECT_EQ(relay.counters().relayed, 2U);
}

TEST_F(RelayTest, AGapIsFilledFromTheDatabaseAndNothingIsDeliveredTwice) {
    auto relay = make();
    relay.add_viewer("g1", 1, 0, now_);
    relay.add_viewer("g1", 2, 0, now_);
    relay.on_event(event(1), now_);
    relay.on_event(event(4), now_);  // 2 and 3 were lost
    relay.on_event(event(5), now_);
    EXPECT_EQ(delivered_[1], run(1, 1));
    EXPECT_EQ(relay.counters().gaps, 2U);
    ASSERT_EQ(catch_up_.requests.size(), 1U);  // one in flight at a time
    EXPECT_EQ(catch_up_.requests[0].second, 1U);
    relay.on_event(event(1), now_);  // a duplicate on the bus
    EXPECT_EQ(relay.counters().duplicates, 1U);
    relay.on_catch_up("g1", events(2, 5), now_);
    relay.on_event(event(6), now_);
    EXPECT_EQ(delivered_[1], run(1, 6));
    EXPECT_EQ(delivered_[2], run(1, 6));
    EXPECT_EQ(relay.relayed_seq("g1"), 6U);
}

TEST_F(RelayTest, AViewerWhoJoinsBehindIsBroughtUpWithoutRepeatsForTheOthers) {
    auto relay = make();
    relay.add_viewer("g1", 1, 5, now_);
    relay.on_event(event(6), now_);
    relay.add_viewer("g1", 2, 2, now_);  // its state was older
    ASSERT_EQ(catch_up_.requests.size(), 1U);
    EXPECT_EQ(catch_up_.requests[0].second, 2U);
    relay.on_event(event(7), now_);  // not for viewer 2 yet: it lacks 3..6
    relay.on_catch_up("g1", events(3, 7), now_);
    EXPECT_EQ(delivered_[1], run(6, 7));
    EXPECT_EQ(delivered_[2], run(3, 7));
}

TEST_F(RelayTest, ReconnectionAndANewEpochEachCatchUp) {
    auto relay = make();
    relay.add_viewer("g1", 1, 0, now_);
    relay.on_event(event(1), now_);
    relay.on_bus_state(bus::BusState::disconnected, now_);
    EXPECT_TRUE(catch_up_.requests.empty());
    relay.on_bus_state(bus::BusState::reconnected, now_);
    ASSERT_EQ(catch_up_.requests.size(), 1U);
    relay.on_catch_up("g1", events(2, 3), now_);
    // The owner changes: the old owner's last event may have been lost in the handover.
    relay.on_event(event(4, 2, "node-c"), now_);
    EXPECT_EQ(relay.counters().epoch_changes, 1U);
    EXPECT_EQ(relay.owner_of("g1"), (Owner{"node-c", 2}));
    ASSERT_EQ(catch_up_.requests.size(), 2U);
    EXPECT_EQ(catch_up_.requests[1].second, 4U);
    relay.on_catch_up("g1", {}, now_);
    // An event of the old epoch that was still in flight carries a durable seq: it is in order.
    relay.on_event(event(5, 1), now_);
    EXPECT_EQ(relay.owner_of("g1"), (Owner{"node-c", 2}));
    EXPECT_EQ(delivered_[1], run(1, 5));
}

TEST_F(RelayTest, AFailedCatchUpIsAskedAgainAfterTheRetryWait) {
    auto relay = make(RelayLimits{.max_buffered_per_game = 256, .catch_up_retry = Millis{500}});
    relay.add_viewer("g1", 1, 0, now_);
    relay.on_event(event(3), now_);
    ASSERT_EQ(catch_up_.requests.size(), 1U);
    relay.on_catch_up("g1", unexpected(std::string("database down")), now_);
    EXPECT_EQ(relay.counters().catch_up_failures, 1U);
    EXPECT_EQ(relay.next_deadline(), now_ + Millis{500});
    relay.tick(now_ + Millis{499});
    EXPECT_EQ(catch_up_.requests.size(), 1U);
    relay.tick(now_ + Millis{500});
    ASSERT_EQ(catch_up_.requests.size(), 2U);
    // A catch-up that brings nothing new waits too, rather than asking in a loop.
    relay.on_catch_up("g1", {}, now_ + Millis{510});
    EXPECT_EQ(catch_up_.requests.size(), 2U);
    relay.tick(now_ + Millis{1010});
    ASSERT_EQ(catch_up_.requests.size(), 3U);
    relay.on_catch_up("g1", events(1, 3), now_ + Millis{1020});
    EXPECT_EQ(delivered_[1], run(1, 3));
    EXPECT_FALSE(relay.next_deadline().has_value());
}

TEST_F(RelayTest, TheBufferIsBoundedAndTheCatchUpFetchesWhatItDropped) {
    auto relay = make(RelayLimits{.max_buffered_per_game = 3});
    relay.add_viewer("g1", 1, 0, now_);
    for (std::uint64_t seq = 2; seq <= 10; ++seq) {
        relay.on_event(event(seq), now_);
    }
    EXPECT_EQ(relay.counters().overflowed, 6U);
    ASSERT_EQ(catch_up_.requests.size(), 1U);
    // The database pages: the relay asks again while it knows of more.
    relay.on_catch_up("g1", events(1, 5), now_);
    ASSERT_EQ(catch_up_.requests.size(), 2U);
    EXPECT_EQ(catch_up_.requests[1].second, 5U);
    relay.on_catch_up("g1", events(6, 10), now_);
    EXPECT_EQ(delivered_[1], run(1, 10));
    EXPECT_EQ(catch_up_.requests.size(), 2U);
}

TEST_F(RelayTest, TheLastViewerLeavingUnsubscribesAndForgetsTheGame) {
    auto relay = make();
    relay.add_viewer("g1", 1, 0, now_);
    relay.add_viewer("g1", 2, 0, now_);
    relay.remove_viewer("g1", 1);
    EXPECT_TRUE(bus_.subscribed.contains("game:g1"));
    relay.on_event(event(1), now_);
    relay.remove_viewer("g1", 2);
    EXPECT_FALSE(bus_.subscribed.contains("game:g1"));
    EXPECT_EQ(relay.games(), 0U);
    relay.on_event(event(2), now_);  // in flight when the last one left
    relay.on_catch_up("g1", events(1, 2), now_);
    EXPECT_EQ(delivered_[2], run(1, 1));
    EXPECT_TRUE(delivered_[1].empty());
}

}  // namespace
}  // namespace arbiter::server::cluster
