// The liveness rule (server/net/liveness.hpp) with time as a value: when the server pings, what a
// pong measures, how the round trip is smoothed, and when a silence makes a connection gone.
#include "server/net/liveness.hpp"

#include <gtest/gtest.h>

namespace arbiter::server::net {
namespace {

using namespace std::chrono_literals;
using std::chrono::microseconds;
using TimePoint = Liveness::TimePoint;

constexpr LivenessTimes kTimes{2000ms, 8000ms};
const TimePoint kOpened{1h};

TEST(RoundTripEstimate, IsTheMedianOfTheLastFiveSamples) {
    RoundTripEstimate estimate;
    EXPECT_EQ(estimate.value(), std::nullopt);
    estimate.add(100ms);
    EXPECT_EQ(estimate.value(), microseconds(100ms));
    estimate.add(120ms);
    EXPECT_EQ(estimate.value(), microseconds(100ms));  // the lower middle of two
    for (auto sample : {110ms, 90ms, 105ms}) {
        estimate.add(sample);
    }
    EXPECT_EQ(estimate.value(), microseconds(105ms));
}

TEST(RoundTripEstimate, OneLatePongDoesNotMoveIt) {
    RoundTripEstimate estimate;
    for (int i = 0; i < 5; ++i) {
        estimate.add(100ms);
    }
    estimate.add(3000ms);
    EXPECT_EQ(estimate.value(), microseconds(100ms));
    estimate.add(2500ms);
    EXPECT_EQ(estimate.value(), microseconds(100ms)) << "two of five are still outliers";
}

TEST(RoundTripEstimate, FollowsALastingChangeAfterThreeSamples) {
    RoundTripEstimate estimate;
    for (int i = 0; i < 5; ++i) {
        estimate.add(20ms);
    }
    for (int i = 0; i < 3; ++i) {
        estimate.add(200ms);
    }
    EXPECT_EQ(estimate.value(), microseconds(200ms));
}

TEST(Liveness, PingsEveryIntervalAndWakesForTheNext) {
    Liveness liveness(kTimes, kOpened);
    auto tick = liveness.tick(kOpened + 1s, true);
    EXPECT_FALSE(tick.gone);
    EXPECT_EQ(tick.ping, std::nullopt);
    EXPECT_EQ(tick.wake, kOpened + 2s);
    tick = liveness.tick(kOpened + 2s, true);
    EXPECT_EQ(tick.ping, "1");
    EXPECT_EQ(tick.wake, kOpened + 4s);
    liveness.heard(kOpened + 3s);
    tick = liveness.tick(kOpened + 4s, true);
    EXPECT_EQ(tick.ping, "2");
    EXPECT_EQ(tick.wake, kOpened + 6s);
}

TEST(Liveness, AnAnsweredPingIsARoundTripSample) {
    Liveness liveness(kTimes, kOpened);
    EXPECT_EQ(liveness.round_trip(), std::nullopt);
    const auto ping = liveness.tick(kOpened + 2s, true).ping;
    ASSERT_TRUE(ping);
    liveness.pong(*ping, kOpened + 2s + 150ms);
    EXPECT_EQ(liveness.round_trip(), microseconds(150ms));
    EXPECT_EQ(liveness.last_heard(), kOpened + 2s + 150ms);
    // The same pong again, or one that answers no ping of ours: heard, no sample.
    liveness.pong(*ping, kOpened + 3s);
    liveness.pong("hello", kOpened + 3s + 1ms);
    liveness.pong("", kOpened + 3s + 2ms);
    EXPECT_EQ(liveness.round_trip(), microseconds(150ms));
    EXPECT_EQ(liveness.last_heard(), kOpened + 3s + 2ms);
}

TEST(Liveness, APongThatComesAfterTheNextPingMeasuresItsOwnPing) {
    Liveness liveness(kTimes, kOpened);
    const auto first = liveness.tick(kOpened + 2s, true).ping;
    const auto second = liveness.tick(kOpened + 4s, true).ping;
    ASSERT_TRUE(first && second);
    liveness.pong(*second, kOpened + 4s + 100ms);
    liveness.pong(*first, kOpened + 4s + 200ms);
    // Samples 100 ms and 2200 ms: the lower middle of the two.
    EXPECT_EQ(liveness.round_trip(), microseconds(100ms));
    liveness.tick(kOpened + 6s, true);
    liveness.pong("3", kOpened + 6s + 100ms);
    EXPECT_EQ(liveness.round_trip(), microseconds(100ms));
}

TEST(Liveness, APingStillBeingWrittenSkipsTheNextOne) {
    Liveness liveness(kTimes, kOpened);
    auto tick = liveness.tick(kOpened + 2s, false);
    EXPECT_EQ(tick.ping, std::nullopt);
    EXPECT_EQ(tick.wake, kOpened + 4s) << "skipped, not retried at once";
    EXPECT_EQ(liveness.tick(kOpened + 4s, true).ping, "1");
}

TEST(Liveness, SilenceForTheTimeoutIsGoneAndNotBefore) {
    Liveness liveness(kTimes, kOpened);
    liveness.tick(kOpened + 2s, true);
    liveness.tick(kOpened + 4s, true);
    auto tick = liveness.tick(kOpened + 6s, true);
    EXPECT_FALSE(tick.gone);
    EXPECT_EQ(tick.wake, kOpened + 8s) << "wakes at the silence deadline, before the next ping";
    EXPECT_FALSE(liveness.tick(kOpened + 8s - 1ms, true).gone);
    EXPECT_TRUE(liveness.tick(kOpened + 8s, true).gone);
}

TEST(Liveness, AnythingHeardPutsTheDeadlineOff) {
    Liveness liveness(kTimes, kOpened);
    liveness.heard(kOpened + 7s);
    EXPECT_FALSE(liveness.tick(kOpened + 8s, true).gone);
    liveness.pong("nothing of ours", kOpened + 14s);
    EXPECT_FALSE(liveness.tick(kOpened + 15s, true).gone);
    EXPECT_FALSE(liveness.tick(kOpened + 21s, true).gone);
    EXPECT_TRUE(liveness.tick(kOpened + 22s, true).gone);
}

TEST(Liveness, PingsAtLeastTwicePerSilenceTimeout) {
    // A client that answers every ping must never look silent for the whole timeout.
    const LivenessTimes short_timeout{2000ms, 1000ms};
    EXPECT_EQ(short_timeout.ping_period(), 500ms);
    Liveness liveness(short_timeout, kOpened);
    const auto tick = liveness.tick(kOpened + 500ms, true);
    EXPECT_EQ(tick.ping, "1");
    liveness.pong(*tick.ping, kOpened + 600ms);
    EXPECT_FALSE(liveness.tick(kOpened + 1500ms, true).gone);
}

TEST(Liveness, UnresponsiveAfterOneAndAHalfPingPeriods) {
    EXPECT_EQ(Liveness::unresponsive_after(kTimes), 3000ms);
    EXPECT_EQ(Liveness::unresponsive_after({2000ms, 1000ms}), 750ms);
}

}  // namespace
}  // namespace arbiter::server::net
