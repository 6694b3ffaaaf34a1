#include "server/app/game_clock.hpp"

#include <gtest/gtest.h>

namespace arbiter::server::app {
namespace {

using namespace std::chrono_literals;
using rules::Side;
using TimePoint = GameClock::TimePoint;

const TimePoint kStart{};

TEST(GameClock, FirstMovesAreNotCharged) {
    GameClock clock({60'000, 2'000});
    clock.start_turn(Side::first, kStart, /*running=*/false);
    const auto charge = clock.charge(kStart + 5s);
    EXPECT_EQ(charge.think_ms, 5'000);
    EXPECT_EQ(charge.remaining_ms, 60'000);
    EXPECT_FALSE(charge.flagged);
    EXPECT_EQ(clock.flag_falls_at(), std::nullopt);
}

TEST(GameClock, ChargesThinkTimeAndAddsIncrement) {
    GameClock clock({60'000, 2'000});
    clock.start_turn(Side::second, kStart, /*running=*/true);
    const auto charge = clock.charge(kStart + 7s);
    EXPECT_EQ(charge.think_ms, 7'000);
    EXPECT_EQ(charge.remaining_ms, 55'000);
    EXPECT_EQ(clock.at(kStart + 7s)[1], 53'000);
    EXPECT_EQ(clock.at(kStart + 7s)[0], 60'000);
}

// protocol.md, Lag compensation: the lag credited is not charged, and never more than the move
// took; the flag waits for the grace it is given.
TEST(GameClock, TheCreditedLagIsNotCharged) {
    GameClock clock({1'000, 0});
    clock.start_turn(Side::first, kStart, /*running=*/true);
    const auto credited = clock.charge(kStart + 300ms, 200);
    EXPECT_EQ(credited.think_ms, 300);
    EXPECT_EQ(credited.remaining_ms, 900);
    EXPECT_EQ(clock.charge(kStart + 300ms, 5'000).remaining_ms, 1'000) << "at most the 300 ms";
    EXPECT_EQ(clock.charge(kStart + 300ms, -50).remaining_ms, 700);
    // Arrived 150 ms after the clock read 0, 200 ms of it lag: in time.
    EXPECT_FALSE(clock.charge(kStart + 1'150ms, 200).flagged);
    EXPECT_EQ(clock.charge(kStart + 1'150ms, 200).remaining_ms, 50);
    EXPECT_TRUE(clock.charge(kStart + 1'200ms, 200).flagged);
    EXPECT_EQ(clock.flag_falls_at(200), kStart + 1'200ms);
    EXPECT_EQ(clock.flag_falls_at(-5), kStart + 1'000ms);
}

TEST(GameClock, FlagsWhenTimeRunsOutBeforeTheMove) {
    GameClock clock({1'000, 5'000});
    clock.start_turn(Side::first, kStart, /*running=*/true);
    EXPECT_FALSE(clock.charge(kStart + 999ms).flagged);
    const auto late = clock.charge(kStart + 1'000ms);
    EXPECT_TRUE(late.flagged);
    EXPECT_EQ(late.remaining_ms, 0) << "no increment for a move that arrived too late";
    EXPECT_EQ(clock.flag_falls_at(), kStart + 1'000ms);  // 600 ms after kStart + 400 ms
    EXPECT_EQ(clock.at(kStart + 3s)[0], 0) << "never below zero";
}

TEST(GameClock, SetRestoresBothSides) {
    GameClock clock({10'000, 0});
    clock.set({4'000, 7'000});
    clock.start_turn(Side::second, kStart, true);
    EXPECT_EQ(clock.at(kStart + 1s)[1], 6'000);
    clock.stop();
    EXPECT_EQ(clock.at(kStart + 5s)[1], 7'000) << "a stopped clock does not run";
}

}  // namespace
}  // namespace arbiter::server::app
