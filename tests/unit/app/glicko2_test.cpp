// Glicko-2 against Glickman's worked example, and at its edges: a period without games, a long
// absence, very high deviations, extreme results, and the symmetries a rating system must keep.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "server/app/glicko2.hpp"

namespace arbiter::server::app::glicko2 {
namespace {

const Config kPaper{};  // tau = 0.5, the paper's example

// "Example of the Glicko-2 system", Glickman (2013): a 1500 player (RD 200, volatility 0.06)
// beats a 1400 (RD 30), then loses to a 1550 (RD 100) and a 1700 (RD 300): 1464.06 / 151.52 /
// 0.05999. The paper rounds each intermediate value to four decimals (mu' = -0.2069,
// sigma' = 0.05999); computed without rounding the rating is 1464.0507 and the volatility
// 0.059996, hence the tolerances of one unit in the paper's last printed digit.
TEST(Glicko2, ReproducesThePapersWorkedExample) {
    const std::vector<GameResult> games{
        {{1400, 30, 0.06}, 1.0}, {{1550, 100, 0.06}, 0.0}, {{1700, 300, 0.06}, 0.0}};
    const Rating after = rate({1500, 200, 0.06}, games, kPaper);
    EXPECT_NEAR(after.rating, 1464.06, 0.01);
    EXPECT_NEAR(after.deviation, 151.52, 0.01);
    EXPECT_NEAR(after.volatility, 0.05999, 0.00001);
}

// Step 6 alone: a period without games leaves the rating and volatility and widens the deviation.
TEST(Glicko2, APeriodWithoutGamesOnlyWidensTheDeviation) {
    const Rating before{1720, 200, 0.06};
    const Rating after = rate(before, {}, kPaper);
    EXPECT_EQ(after.rating, before.rating);
    EXPECT_EQ(after.volatility, before.volatility);
    const double phi = 200 / 173.7178;
    EXPECT_NEAR(after.deviation, 173.7178 * std::sqrt(phi * phi + 0.06 * 0.06), 1e-9);
    EXPECT_GT(after.deviation, before.deviation);
    EXPECT_EQ(after_idle(before, 1.0, kPaper).deviation, after.deviation);
}

TEST(Glicko2, TimeAwayWidensTheDeviationUpToANewPlayersOnly) {
    const Rating settled{1800, 60, 0.06};
    const Rating half = after_idle(settled, 0.5, kPaper);
    const Rating year = after_idle(settled, 78.0, kPaper);
    EXPECT_GT(half.deviation, settled.deviation);
    EXPECT_LT(half.deviation, after_idle(settled, 1.0, kPaper).deviation);
    EXPECT_GT(year.deviation, half.deviation);
    EXPECT_EQ(after_idle(settled, 1e6, kPaper).deviation, 350.0) << "capped at the initial RD";
    EXPECT_EQ(after_idle(settled, 0.0, kPaper).deviation, settled.deviation);
    EXPECT_EQ(after_idle(settled, -3.0, kPaper).deviation, settled.deviation);
    EXPECT_EQ(year.rating, settled.rating);
}

TEST(Glicko2, EqualPlayersWhoDrawKeepTheirRatingsAndGrowSurer) {
    const Rating player{1500, 350, 0.06};
    const std::vector<GameResult> draw{{player, 0.5}};
    const Rating after = rate(player, draw, kPaper);
    EXPECT_NEAR(after.rating, 1500.0, 1e-9);
    EXPECT_LT(after.deviation, player.deviation);
}

TEST(Glicko2, AWinAndTheMatchingLossMoveTwinPlayersByTheSameAmount) {
    const Rating twin{1600, 120, 0.06};
    const std::vector<GameResult> win{{twin, 1.0}};
    const std::vector<GameResult> loss{{twin, 0.0}};
    const Rating winner = rate(twin, win, kPaper);
    const Rating loser = rate(twin, loss, kPaper);
    EXPECT_GT(winner.rating, twin.rating);
    EXPECT_NEAR(winner.rating - twin.rating, twin.rating - loser.rating, 1e-9);
    EXPECT_NEAR(winner.deviation, loser.deviation, 1e-9);
}

TEST(Glicko2, BeatingAStrongerPlayerGainsMoreThanBeatingAWeakerOne) {
    const Rating player{1500, 100, 0.06};
    const std::vector<GameResult> strong{{{1900, 80, 0.06}, 1.0}};
    const std::vector<GameResult> weak{{{1100, 80, 0.06}, 1.0}};
    EXPECT_GT(rate(player, strong, kPaper).rating, rate(player, weak, kPaper).rating);
    EXPECT_GT(rate(player, weak, kPaper).rating, player.rating);
}

// New players move a lot, settled ones little, for the same result.
TEST(Glicko2, AnUncertainRatingMovesMoreThanASettledOne) {
    const std::vector<GameResult> win{{{1500, 60, 0.06}, 1.0}};
    const Rating newcomer = rate({1500, 350, 0.06}, win, kPaper);
    const Rating settled = rate({1500, 50, 0.06}, win, kPaper);
    EXPECT_GT(newcomer.rating - 1500, 5 * (settled.rating - 1500));
    EXPECT_LT(newcomer.rating, 1500 + 350) << "one game moves a rating by less than its RD";
    EXPECT_LT(newcomer.deviation, 350);
}

// An upset far outside expectations takes the iteration's other branch (delta^2 > phi^2 + v):
// it converges, and everything stays finite and in range.
TEST(Glicko2, ExtremeResultsStayFiniteAndInRange) {
    const Rating weak{800, 40, 0.06};
    const Rating strong{2800, 40, 0.06};
    const std::vector<GameResult> upsets(10, GameResult{strong, 1.0});
    const Rating after = rate(weak, upsets, kPaper);
    EXPECT_TRUE(std::isfinite(after.rating));
    EXPECT_GT(after.rating, weak.rating);
    EXPECT_GT(after.volatility, weak.volatility) << "a surprising period raises the volatility";
    EXPECT_GT(after.deviation, 0.0);
    const std::vector<GameResult> collapse(10, GameResult{weak, 0.0});
    const Rating fallen = rate(strong, collapse, kPaper);
    EXPECT_TRUE(std::isfinite(fallen.rating));
    EXPECT_LT(fallen.rating, strong.rating);
    EXPECT_GT(fallen.volatility, strong.volatility);
    // Very high deviations on both sides.
    const Rating wild =
        rate({1500, 1000, 0.5}, std::vector<GameResult>{{{1500, 1000, 0.5}, 1.0}}, kPaper);
    EXPECT_TRUE(std::isfinite(wild.rating));
    EXPECT_TRUE(std::isfinite(wild.volatility));
    EXPECT_LT(wild.deviation, 1000);
}

}  // namespace
}  // namespace arbiter::server::app::glicko2
