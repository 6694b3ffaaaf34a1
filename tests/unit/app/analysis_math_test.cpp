#include "server/app/analysis_math.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace arbiter::server::app {
namespace {

using rules::Side;

Score cp(int value) {
    return Score::centipawns(value);
}

TEST(AnalysisMath, WinPercentIsLichessFormula) {
    EXPECT_DOUBLE_EQ(win_percent(cp(0)), 50);
    // 50 + 50 * (2 / (1 + exp(-0.00368208 * 300)) - 1)
    EXPECT_NEAR(win_percent(cp(300)), 75.12, 0.01);
    EXPECT_NEAR(win_percent(cp(-300)), 24.88, 0.01);
}

TEST(AnalysisMath, CentipawnsAreCeiledAndMateCountsAsTheCeiling) {
    EXPECT_EQ(ceiled_centipawns(cp(5000)), 1000);
    EXPECT_EQ(ceiled_centipawns(cp(-5000)), -1000);
    EXPECT_EQ(ceiled_centipawns(Score::mate_in(3)), 1000);
    EXPECT_EQ(ceiled_centipawns(Score::mate_in(-1)), -1000);
    EXPECT_DOUBLE_EQ(win_percent(Score::mate_in(2)), win_percent(cp(1000)));
}

TEST(AnalysisMath, MarksFollowTheDropInTheMoversWinningChances) {
    // Drops on the [-1, 1] scale: 0 -> -110 cp is 0.20 (mistake), 0 -> -55 is 0.10.
    EXPECT_EQ(mark_of(cp(0), cp(-20), Side::first), Mark::none);
    EXPECT_EQ(mark_of(cp(0), cp(-60), Side::first), Mark::inaccuracy);
    EXPECT_EQ(mark_of(cp(0), cp(-115), Side::first), Mark::mistake);
    EXPECT_EQ(mark_of(cp(0), cp(-300), Side::first), Mark::blunder);
    // The second seat's drop is the first seat's rise.
    EXPECT_EQ(mark_of(cp(0), cp(300), Side::second), Mark::blunder);
    EXPECT_EQ(mark_of(cp(0), cp(-300), Side::second), Mark::none);
    // Already lost: a further fall on the ceiled scale barely moves the chances.
    EXPECT_EQ(mark_of(cp(-1200), cp(-3000), Side::first), Mark::none);
}

TEST(AnalysisMath, MateCreatedAgainstTheMoverIsJudgedByWhatCameBefore) {
    EXPECT_EQ(mark_of(cp(50), Score::mate_in(-2), Side::first), Mark::blunder);
    EXPECT_EQ(mark_of(cp(-800), Score::mate_in(-2), Side::first), Mark::mistake);
    EXPECT_EQ(mark_of(cp(-1200), Score::mate_in(-2), Side::first), Mark::inaccuracy);
    EXPECT_EQ(mark_of(cp(-50), Score::mate_in(2), Side::second), Mark::blunder);
}

TEST(AnalysisMath, MateLostIsJudgedByWhatIsLeft) {
    EXPECT_EQ(mark_of(Score::mate_in(3), cp(1200), Side::first), Mark::inaccuracy);
    EXPECT_EQ(mark_of(Score::mate_in(3), cp(800), Side::first), Mark::mistake);
    EXPECT_EQ(mark_of(Score::mate_in(3), cp(100), Side::first), Mark::blunder);
    EXPECT_EQ(mark_of(Score::mate_in(3), Score::mate_in(-4), Side::first), Mark::blunder);
    // Delaying one's own mate is not marked (MateDelayed).
    EXPECT_EQ(mark_of(Score::mate_in(2), Score::mate_in(5), Side::first), Mark::none);
}

TEST(AnalysisMath, UnknownEvaluationsAreNotMarked) {
    EXPECT_EQ(mark_of(std::nullopt, cp(-900), Side::first), Mark::none);
    EXPECT_EQ(mark_of(cp(900), std::nullopt, Side::first), Mark::none);
}

TEST(AnalysisMath, MoveAccuracyIsLichessCurve) {
    EXPECT_DOUBLE_EQ(move_accuracy(50, 50), 100);
    EXPECT_DOUBLE_EQ(move_accuracy(50, 70), 100);
    EXPECT_DOUBLE_EQ(move_accuracy(50, 40),
                     103.1668100711649 * std::exp(-0.4354415386753951) - 3.166924740191411 + 1);
    EXPECT_DOUBLE_EQ(move_accuracy(100, 0), 0);
}

TEST(AnalysisMath, GameAccuracyRewardsTheSideThatKeptItsChances) {
    // White plays well throughout; black throws away 300 cp on move 2.
    const std::vector<std::optional<Score>> evals = {cp(20),  cp(25),  cp(20),  cp(30),
                                                     cp(330), cp(320), cp(330), cp(340)};
    const auto accuracy = game_accuracy(evals, Side::first);
    ASSERT_TRUE(accuracy[0] && accuracy[1]);
    EXPECT_GT(*accuracy[0], 95);
    EXPECT_LT(*accuracy[1], 80);
    EXPECT_GE(*accuracy[1], 0);
}

TEST(AnalysisMath, GameAccuracyNeedsAMoveOfTheSide) {
    EXPECT_FALSE(game_accuracy({cp(0)}, Side::first)[0]);
    const auto one_move = game_accuracy({cp(0), cp(10)}, Side::first);
    EXPECT_TRUE(one_move[0]);
    EXPECT_FALSE(one_move[1]);
    // A position to move from with black: the first move is the second seat's.
    const auto black_first = game_accuracy({cp(0), cp(10)}, Side::second);
    EXPECT_FALSE(black_first[0]);
    EXPECT_TRUE(black_first[1]);
}

}  // namespace
}  // namespace arbiter::server::app
