// PDN FEN: round trips of the canonical form, the accepted variants, and every refusal.
#include <gtest/gtest.h>

#include "common/rules/draughts/position.hpp"
#include "support.hpp"

namespace arbiter::rules::draughts {
namespace {

/// The standard start, spelled as bitboards: White men on 21-32, Black men on 1-12.
Position start_position() {
    return Position(0xFFF00000u, 0x00000FFFu, 0, Side::first);
}

TEST(DraughtsFen, StartPositionRoundTrips) {
    const auto position = Position::from_fen(kStartFen);
    ASSERT_TRUE(position.has_value());
    EXPECT_EQ(*position, start_position());
    EXPECT_EQ(position->fen(), kStartFen);
}

TEST(DraughtsFen, ReferencePositionsRoundTripInCanonicalForm) {
    for (const char* fen :
         {"W:WK15,20,K23,K28,31,32:BK2,6,8,K22", "B:W12,15,16,19,23,24,25,29:B1,3,4,5,8,9,11,13",
          "W:W:BK1", "B:WK1:B"}) {
        const auto position = Position::from_fen(fen);
        ASSERT_TRUE(position.has_value()) << fen;
        EXPECT_EQ(position->fen(), fen);
    }
}

TEST(DraughtsFen, EitherColourFirstUnsortedAndRangesAreAccepted) {
    const auto position = Position::from_fen("W:B12,1-11:W32,21-31");
    ASSERT_TRUE(position.has_value());
    EXPECT_EQ(*position, start_position());
    const auto kings = Position::from_fen("B:BK5-7,9:W30,K20");
    ASSERT_TRUE(kings.has_value());
    EXPECT_EQ(kings->fen(), "B:WK20,30:BK5,K6,K7,9");
}

TEST(DraughtsFen, GameStartsFromFenAndReportsCanonicalForm) {
    const auto game = testing::game_from("B:B1-12:W21-32");
    ASSERT_NE(game, nullptr);
    EXPECT_EQ(game->turn(), Side::second);
    EXPECT_EQ(game->initial_position(),
              "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12");
    EXPECT_EQ(testing::game_from("")->position(), kStartFen);
}

void expect_refused(std::string_view fen, std::string_view reason) {
    const auto position = Position::from_fen(fen);
    ASSERT_FALSE(position.has_value()) << fen;
    EXPECT_NE(position.error().message.find(reason), std::string::npos)
        << fen << " -> " << position.error().message;
    EXPECT_FALSE(make_game(Variant::draughts, fen).has_value()) << fen;
}

TEST(DraughtsFen, RefusesMalformedText) {
    expect_refused("X:W21:B1", "side to move");
    expect_refused("W", "side to move");
    expect_refused("W:W21", "two fields");
    expect_refused("W:W21:B1:H0", "after the second");
    expect_refused("W:W21:W22", "appears twice");
    expect_refused("W:X21:B1", "starts with W or B");
    expect_refused("W:W21,,22:B1", "empty square");
    expect_refused("W:W21,:B1", "empty square");
    expect_refused("W:W21:B1,", "empty square");
    expect_refused("W:W21:BK", "not a square");
    expect_refused("W:W21:B 1", "not a square");
    expect_refused("W:W2a:B1", "not a square");
    expect_refused("w:W21:B1", "side to move");
}

TEST(DraughtsFen, AClosingDotAndLeadingZerosAreReadAsPdnAllows) {
    // PDN 3.0: `Fen : COLOR NumericSquares DOT?` and NUMSQUARE `0[1-9][0-9]*`.
    const auto dotted = Position::from_fen("B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29.");
    ASSERT_TRUE(dotted.has_value()) << dotted.error().message;
    EXPECT_EQ(dotted->fen(), "B:WK10,K15,18,24,27,28:B12,16,20,K22,K25,K29");
    const auto padded = Position::from_fen("W:W021,K05:B01");
    ASSERT_TRUE(padded.has_value()) << padded.error().message;
    EXPECT_EQ(padded->fen(), "W:WK5,21:B1");
    expect_refused("W:W21:B1..", "not a square");
    expect_refused("W:W21.:B1", "not a square");
    expect_refused("W:.", "two fields");
}

TEST(DraughtsFen, RefusesImpossiblePlacements) {
    expect_refused("W:W0:B1", "not a square");
    expect_refused("W:W33:B1", "not a square");
    expect_refused("W:W21,21:B1", "listed twice");
    expect_refused("W:W21:B21", "both a white and a black");
    expect_refused("W:W3:B10", "white man on square 3");
    expect_refused("W:W21:B30", "black man on square 30");
    expect_refused("W:W17-29:B1", "more than 12");
    expect_refused("W:W24-21:B1", "low to high");
}

TEST(DraughtsFen, RefusesAPositionWhoseSideNotToMoveHasNoPieces) {
    // Taking a side's last piece ends the game with that side to move (CBD: a side without
    // pieces loses), so the side that has just moved always has a piece. Accepting such a FEN
    // would start a game that is already won as if it were still going on.
    expect_refused("W:WK1:B", "no pieces");
    expect_refused("B:W:BK1", "no pieces");
    expect_refused("W:W:B", "no pieces");
    expect_refused("B:B:W", "no pieces");
    // The side to move without pieces is a finished game that a FEN may record.
    const auto lost = testing::game_from("W:W:BK1");
    ASSERT_NE(lost, nullptr);
    EXPECT_EQ(lost->status(), (Status{Outcome::second_wins, Reason::no_moves}));
}

TEST(DraughtsFen, KingsMayStandOnTheirCrowningRow) {
    EXPECT_TRUE(Position::from_fen("W:WK3:BK30").has_value());
}

}  // namespace
}  // namespace arbiter::rules::draughts
