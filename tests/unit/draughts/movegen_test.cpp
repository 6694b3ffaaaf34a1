// One accepting and one refusing test per movement and capture rule, through the Game face and
// the bitboard core.
#include <gtest/gtest.h>

#include "common/rules/draughts/movegen.hpp"
#include "common/rules/draughts/position.hpp"
#include "support.hpp"

namespace arbiter::rules::draughts {
namespace {

using Moves = std::vector<std::string>;
using testing::game_from;
using testing::sorted_moves;

TEST(DraughtsMovegen, StartPositionMenStepForward) {
    const auto game = game_from("startpos");
    EXPECT_EQ(sorted_moves(*game),
              (Moves{"21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"}));
}

TEST(DraughtsMovegen, ManDoesNotStepBackward) {
    const auto game = game_from("W:W22:B3");
    EXPECT_EQ(sorted_moves(*game), (Moves{"22-17", "22-18"}));
    EXPECT_FALSE(game->play("22-26").has_value());
}

TEST(DraughtsMovegen, ManCapturesBackward) {
    // B19: the black man on 21 takes backward, 21x14, one of three captures.
    const auto game = game_from("B:W10,17,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,11,12,21");
    EXPECT_EQ(sorted_moves(*game), (Moves{"21x14", "6x15", "7x14"}));
    ASSERT_TRUE(game->play("21x14").has_value());
    EXPECT_EQ(game->position(), "W:W10,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,11,12,14");
}

TEST(DraughtsMovegen, CaptureIsCompulsory) {
    const auto game = game_from("W:W21,30:B17");
    EXPECT_EQ(sorted_moves(*game), (Moves{"21x14"}));
    const auto refused = game->play("30-26");
    ASSERT_FALSE(refused.has_value());
    EXPECT_NE(refused.error().message.find("compulsory"), std::string::npos);
}

TEST(DraughtsMovegen, MajorityRuleWithMen) {
    // B18: 7x23 takes two pieces; 6x15 takes one and is illegal.
    const auto game = game_from("B:W10,18,21,22,24,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,11,12,13");
    EXPECT_EQ(sorted_moves(*game), (Moves{"7x23"}));
    EXPECT_FALSE(game->play("6x15").has_value());
    EXPECT_TRUE(game->play("7x23").has_value());
}

TEST(DraughtsMovegen, MajorityRuleWithKings) {
    // The king on 15 may take 19 alone (15x24) or 18 and 26 (15x22x31): only the two-piece
    // capture is legal.
    const auto game = game_from("W:WK15:B18,19,26");
    EXPECT_EQ(sorted_moves(*game), (Moves{"15x31"}));
    EXPECT_FALSE(game->play("15x24").has_value());
    EXPECT_FALSE(game->play("15x28").has_value());
    ASSERT_TRUE(game->play("15x31").has_value());
    EXPECT_EQ(game->position(), "B:WK31:B19");
}

TEST(DraughtsMovegen, KingLandingDecidesWhetherTheCaptureContinues) {
    // The king on 29 takes 22 and may land on 18, 15, 11, 8 or 4; only from 15 can it go on
    // to take 10, so every legal move passes through 15.
    const auto game = game_from("W:WK29:B10,22");
    EXPECT_EQ(sorted_moves(*game), (Moves{"29x1", "29x6"}));
    EXPECT_FALSE(game->play("29x18").has_value());
    EXPECT_FALSE(game->play("29x15").has_value());
    EXPECT_EQ(game->to_wire("29x15x6").value_or("refused"), "29x6");
}

TEST(DraughtsMovegen, KingFliesOverEmptySquares) {
    const auto game = game_from("W:WK29:BK4");
    EXPECT_EQ(sorted_moves(*game), (Moves{"29-11", "29-15", "29-18", "29-22", "29-25", "29-8"}));
}

TEST(DraughtsMovegen, KingCannotJumpTwoPiecesInARow) {
    // 22 and 18 stand together on the king's diagonal: neither can be taken.
    const auto game = game_from("W:WK29:B18,22");
    EXPECT_EQ(sorted_moves(*game), (Moves{"29-25"}));
}

TEST(DraughtsMovegen, ManCrownsWhenItsMoveEndsOnTheFarRow) {
    const auto game = game_from("W:W5:B20");
    ASSERT_TRUE(game->play("5-1").has_value());
    EXPECT_EQ(game->position(), "B:WK1:B20");
}

TEST(DraughtsMovegen, NoCrowningInTheMiddleOfACapture) {
    // B10: the man on 9 takes via 2 (the crowning row) and back to 11, and stays a man.
    const auto game = game_from("W:W9,K10,12,21,24:B1,K6,7,20,K27");
    EXPECT_EQ(sorted_moves(*game), (Moves{"9x11"}));
    EXPECT_FALSE(game->play("9x2").has_value());
    ASSERT_TRUE(game->play("9x11").has_value());
    EXPECT_EQ(game->position(), "B:WK10,11,12,21,24:B1,20,K27");
}

TEST(DraughtsMovegen, CapturedPiecesBlockUntilTheMoveEnds) {
    // B06: the king on 15 takes one piece; removing captured pieces at once would let it take
    // a second one on the way to 25 or 29.
    const auto game = game_from("W:WK15,20,K23,K28,31,32:BK2,6,8,K22");
    EXPECT_EQ(sorted_moves(*game), (Moves{"15x1", "15x25", "15x29", "15x4"}));
    ASSERT_TRUE(game->play("15x25").has_value());
    EXPECT_EQ(game->position(), "B:W20,K23,K25,K28,31,32:BK2,6,8");
}

TEST(DraughtsMovegen, CircularCaptureBackToTheStartSquareIsOneMove) {
    // B03: four pieces taken around a loop; both directions are the same move.
    const auto game = game_from("B:W12,15,16,19,23,24,25,29:B1,3,4,5,8,9,11,13");
    EXPECT_EQ(sorted_moves(*game), (Moves{"11x11"}));
    EXPECT_EQ(game->to_wire("11x18x27x20x11").value_or("refused"), "11x11");
    EXPECT_EQ(game->to_wire("11x20x27x18x11").value_or("refused"), "11x11");
    EXPECT_FALSE(game->to_wire("11x18x27x11").has_value());
    ASSERT_TRUE(game->play("11x20x27x18x11").has_value());
    EXPECT_EQ(game->position(), "W:W12,19,25,29:B1,3,4,5,8,9,11,13");
}

TEST(DraughtsMovegen, BlockedSideLoses) {
    const auto game = game_from("W:W21:B14,17");
    EXPECT_TRUE(game->legal_moves().empty());
    EXPECT_EQ(game->status(), (Status{Outcome::second_wins, Reason::no_moves}));
    EXPECT_FALSE(game->play("21-17").has_value());
}

TEST(DraughtsMovegen, SideWithoutPiecesLoses) {
    const auto game = game_from("B:WK1:B");
    EXPECT_EQ(game->status(), (Status{Outcome::first_wins, Reason::no_moves}));
}

TEST(DraughtsMovegen, SideThatCanStillCaptureIsNotBlocked) {
    const auto game = game_from("W:W21:B17");
    EXPECT_EQ(game->status(), Status{});
    EXPECT_EQ(sorted_moves(*game), (Moves{"21x14"}));
}

TEST(DraughtsMovegen, DuplicatePathsAreOneMoveInTheCore) {
    const auto position = Position::from_fen("B:W12,15,16,19,23,24,25,29:B1,3,4,5,8,9,11,13");
    ASSERT_TRUE(position.has_value());
    MoveList list;
    legal_moves(*position, list);
    ASSERT_EQ(list.size(), 1U);
    EXPECT_EQ(list[0].from, 10);
    EXPECT_EQ(list[0].to, 10);
    EXPECT_EQ(list[0].landing_count, 3);
    EXPECT_TRUE(has_capture(*position));
}

TEST(DraughtsMovegen, ApplyMoveKeepsKingsWithTheirOwners) {
    const auto position = Position::from_fen("W:WK29:B10,22");
    ASSERT_TRUE(position.has_value());
    MoveList list;
    legal_moves(*position, list);
    ASSERT_FALSE(list.empty());
    const Position next = position->after(list[0]);
    EXPECT_EQ(next.black(), 0U);
    EXPECT_EQ(next.kings(), next.white());
    EXPECT_EQ(next.side_to_move(), Side::second);
}

}  // namespace
}  // namespace arbiter::rules::draughts
