// A node's lease decisions with time as a value (server/storage/lease_rules.hpp): no database.
#include "server/storage/lease_rules.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace arbiter::server::storage {
namespace {

using namespace std::chrono_literals;

const LeaseClock::time_point kStart{std::chrono::seconds{1000}};

TEST(LeaseRules, NodeIdsAreShortAndPlain) {
    EXPECT_TRUE(check_node_id("node-1"));
    EXPECT_TRUE(check_node_id("eu-west_2-A"));
    EXPECT_TRUE(check_node_id(std::string(64, 'n')));
    EXPECT_FALSE(check_node_id(""));
    auto too_long = check_node_id(std::string(65, 'n'));
    ASSERT_FALSE(too_long);
    EXPECT_NE(too_long.error().find("at most 64"), std::string::npos) << too_long.error();
    // Ids as the cluster's envelopes take them (server/cluster/envelope.hpp): no '.' either.
    for (const char* refused : {"a b", "a/b", "a.b", "n\xc3\xbc", "a:1", "a\n"}) {
        auto checked = check_node_id(refused);
        ASSERT_FALSE(checked) << refused;
        EXPECT_NE(checked.error().find("only letters, digits"), std::string::npos)
            << checked.error();
    }
}

TEST(LeaseRules, TimingsSurviveOneLostHeartbeat) {
    EXPECT_TRUE(check_lease_timing(LeaseTiming{}));
    EXPECT_TRUE(check_lease_timing(LeaseTiming{250ms, 100ms, 50ms}));  // 2 * 100 + 50
    EXPECT_FALSE(check_lease_timing(LeaseTiming{249ms, 100ms, 50ms}));
    EXPECT_FALSE(check_lease_timing(LeaseTiming{3000ms, 0ms, 250ms}));
    EXPECT_FALSE(check_lease_timing(LeaseTiming{3000ms, -1ms, 250ms}));
    EXPECT_FALSE(check_lease_timing(LeaseTiming{3000ms, 1000ms, -1ms}));
    EXPECT_FALSE(check_lease_timing(LeaseTiming{3000ms, 1000ms, 3000ms}));
    auto short_lease = check_lease_timing(LeaseTiming{1500ms, 1000ms, 0ms});
    ASSERT_FALSE(short_lease);
    EXPECT_NE(short_lease.error().find("one lost heartbeat"), std::string::npos)
        << short_lease.error();
}

// The database set the end to its time when the statement ran, which came after the send: the
// local end is counted from the send, less the margin.
TEST(LeaseRules, ANodeWritesUntilItsLastGrantsSendPlusTheTtlLessTheMargin) {
    const LeaseTiming timing{3000ms, 1000ms, 250ms};
    EXPECT_EQ(writable_until(kStart, timing), kStart + 2750ms);
    EXPECT_TRUE(may_write(kStart, kStart, timing));
    EXPECT_TRUE(may_write(kStart, kStart + 2749ms, timing));
    EXPECT_FALSE(may_write(kStart, kStart + 2750ms, timing));
    EXPECT_FALSE(may_write(kStart, kStart + 1h, timing));
    // A later grant counts from its own send.
    EXPECT_TRUE(may_write(kStart + 1000ms, kStart + 3000ms, timing));
    // No grant, no writing, whatever the time.
    EXPECT_FALSE(may_write(std::nullopt, kStart, timing));
}

TEST(LeaseRules, TheNextHeartbeatIsOneIntervalAfterTheLastSent) {
    const LeaseTiming timing{3000ms, 1000ms, 250ms};
    EXPECT_EQ(next_heartbeat_at(kStart, timing), kStart + 1000ms);
    // Two in a row may be lost, and the third still comes before the local end.
    EXPECT_LT(next_heartbeat_at(next_heartbeat_at(kStart, timing), timing),
              writable_until(kStart, timing));
}

TEST(LeaseRules, AFailedHeartbeatSaysWhatTheNodeDoes) {
    const LeaseTiming timing{3000ms, 1000ms, 250ms};
    // The database did not answer: the lease holds while it surely holds, then writing stops.
    EXPECT_EQ(action_after(LeaseFailure::unreachable, kStart, kStart + 2s, timing),
              LeaseAction::keep_writing);
    EXPECT_EQ(action_after(LeaseFailure::unreachable, kStart, kStart + 2750ms, timing),
              LeaseAction::stop_writing);
    EXPECT_EQ(action_after(LeaseFailure::unreachable, std::nullopt, kStart, timing),
              LeaseAction::stop_writing);
    // The database said no: whatever the local clock believes.
    EXPECT_EQ(action_after(LeaseFailure::expired, kStart, kStart, timing),
              LeaseAction::drop_and_rejoin);
    EXPECT_EQ(action_after(LeaseFailure::taken, kStart, kStart, timing),
              LeaseAction::stop_for_good);
}

}  // namespace
}  // namespace arbiter::server::storage
