// The claim window after a disconnect as a function of the time control (claim_window.hpp).
#include "server/app/claim_window.hpp"

#include <gtest/gtest.h>

namespace arbiter::server::app {
namespace {

using namespace std::chrono_literals;
using protocol::ClockSpec;

constexpr std::chrono::milliseconds kFlag = 60'000ms;

TEST(ClaimWindow, IsATenthOfTheEstimatedGameBetweenTheFloorAndTheFlag) {
    EXPECT_EQ(claim_window(ClockSpec{60'000, 0}, kFlag), 10'000ms) << "1+0: the floor";
    EXPECT_EQ(claim_window(ClockSpec{15'000, 0}, kFlag), 10'000ms) << "faster still: the floor";
    EXPECT_EQ(claim_window(ClockSpec{120'000, 1'000}, kFlag), 16'000ms) << "2+1";
    EXPECT_EQ(claim_window(ClockSpec{180'000, 2'000}, kFlag), 26'000ms) << "3+2";
    EXPECT_EQ(claim_window(ClockSpec{300'000, 3'000}, kFlag), 42'000ms) << "5+3";
    EXPECT_EQ(claim_window(ClockSpec{600'000, 0}, kFlag), 60'000ms) << "10+0: the flag";
    EXPECT_EQ(claim_window(ClockSpec{900'000, 10'000}, kFlag), 60'000ms) << "15+10: the flag";
}

TEST(ClaimWindow, AnUntimedGameWaitsForTheFlag) {
    EXPECT_EQ(claim_window(std::nullopt, kFlag), kFlag);
    EXPECT_EQ(claim_window(std::nullopt, 90'000ms), 90'000ms);
}

TEST(ClaimWindow, TheFlagIsTheUpperBoundEvenBelowTheFloor) {
    EXPECT_EQ(claim_window(ClockSpec{180'000, 2'000}, 3'000ms), 3'000ms);
    EXPECT_EQ(claim_window(ClockSpec{60'000, 0}, 0ms), 0ms);
}

}  // namespace
}  // namespace arbiter::server::app
