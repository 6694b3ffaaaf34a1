// arbiter-load's cap: when a game's moves leave under --rate.
#include "bench/load/pacing.hpp"

#include <gtest/gtest.h>

namespace arbiter::bench::load {
namespace {

using std::chrono::milliseconds;

const Clock::time_point t0{milliseconds(1000)};
const milliseconds interval{10};

TEST(Pacing, AMoveAnsweredInTimeWaitsForItsSlotInBothModes) {
    for (Pacing mode : {Pacing::closed, Pacing::grid}) {
        const Pace paced = pace(t0 + milliseconds(3), t0 + milliseconds(10), interval, mode);
        EXPECT_EQ(paced.leaves, t0 + milliseconds(10));
        EXPECT_EQ(paced.next, t0 + milliseconds(20));
    }
}

TEST(Pacing, ALateAnswerMovesTheClosedLoopsPhaseButNotTheGrids) {
    // Due at 10, answered at 14: the move leaves at once in both modes.
    const Pace closed =
        pace(t0 + milliseconds(14), t0 + milliseconds(10), interval, Pacing::closed);
    const Pace grid = pace(t0 + milliseconds(14), t0 + milliseconds(10), interval, Pacing::grid);
    EXPECT_EQ(closed.leaves, t0 + milliseconds(14));
    EXPECT_EQ(grid.leaves, t0 + milliseconds(14));
    EXPECT_EQ(closed.next, t0 + milliseconds(24));
    EXPECT_EQ(grid.next, t0 + milliseconds(20));
}

TEST(Pacing, GridSkipsTheSlotsAGameFellBehindInsteadOfBursting) {
    // Due at 10, answered at 45: the slots at 20, 30 and 40 are gone, the next is at 50.
    const Pace paced = pace(t0 + milliseconds(45), t0 + milliseconds(10), interval, Pacing::grid);
    EXPECT_EQ(paced.leaves, t0 + milliseconds(45));
    EXPECT_EQ(paced.next, t0 + milliseconds(50));
    // Exactly on a grid point: that point is now, so the next one is an interval later.
    EXPECT_EQ(pace(t0 + milliseconds(40), t0 + milliseconds(10), interval, Pacing::grid).next,
              t0 + milliseconds(50));
}

}  // namespace
}  // namespace arbiter::bench::load
