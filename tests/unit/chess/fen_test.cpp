// Strict FEN validation: every rule refuses with its own message, and valid FENs are accepted.
#include <gtest/gtest.h>

#include <string>

#include "common/rules/chess/position.hpp"
#include "common/rules/game.hpp"
#include "tests/unit/chess/chess_test_util.hpp"

namespace arbiter::rules::chess {
namespace {

/// The message for a refused FEN; fails the test when the FEN is accepted.
std::string refusal(std::string_view fen) {
    const auto position = Position::from_fen(fen);
    EXPECT_FALSE(position.has_value()) << fen << " was accepted";
    return position ? std::string() : position.error().message;
}

void expect_refused(std::string_view fen, std::string_view message_part) {
    const std::string message = refusal(fen);
    EXPECT_NE(message.find(message_part), std::string::npos)
        << fen << " -> '" << message << "', expected to mention '" << message_part << "'";
}

TEST(ChessFen, StartposAndEmptyMeanTheStandardStart) {
    for (const std::string_view text :
         {std::string_view(), std::string_view("startpos"), kStartFen}) {
        const auto position = Position::from_fen(text);
        ASSERT_TRUE(position.has_value()) << text;
        EXPECT_EQ(position->fen(), kStartFen);
    }
    auto game = make_game(Variant::chess, "startpos");
    ASSERT_TRUE(game.has_value());
    EXPECT_EQ((*game)->initial_position(), kStartFen);
    EXPECT_EQ((*game)->turn(), Side::first);
    EXPECT_EQ((*game)->legal_moves().size(), 20U);
}

TEST(ChessFen, FourFieldsMeanClocksZeroAndOne) {
    const auto position = Position::from_fen("4k3/8/8/8/8/8/8/4K2R w K -");
    ASSERT_TRUE(position.has_value());
    EXPECT_EQ(position->fen(), "4k3/8/8/8/8/8/8/4K2R w K - 0 1");
}

TEST(ChessFen, SurroundingWhitespaceIsTrimmed) {
    EXPECT_TRUE(Position::from_fen("  4k3/8/8/8/8/8/8/4K3 w - - 0 1\n").has_value());
}

TEST(ChessFen, RefusesWrongFieldCounts) {
    expect_refused("4k3/8/8/8/8/8/8/4K3 w - - 0", "6 space-separated fields");
    expect_refused("4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra", "6 space-separated fields");
    expect_refused("4k3/8/8/8/8/8/8/4K3  w - - 0 1", "6 space-separated fields");
    expect_refused("4k3/8/8/8/8/8/8/4K3", "6 space-separated fields");
}

TEST(ChessFen, RefusesMalformedPlacement) {
    expect_refused("4k3/8/8/8/8/8/4K3 w - - 0 1", "8 ranks of 8 squares");
    expect_refused("4k3/8/8/8/8/8/8/8/4K3 w - - 0 1", "more than 8 ranks");
    expect_refused("4k4/8/8/8/8/8/8/4K3 w - - 0 1", "more than 8 squares");
    expect_refused("4k2/8/8/8/8/8/8/4K3 w - - 0 1", "does not have 8 squares");
    expect_refused("4k3/8/8/8/8/8/8/4K2X w - - 0 1", "unknown piece letter 'X'");
    expect_refused("4k3/8/44/8/8/8/8/4K3 w - - 0 1", "two digits in a row");
    expect_refused("4k3/8/8/8/8/8/8/4K3/ w - - 0 1", "more than 8 ranks");
}

TEST(ChessFen, RefusesWrongKingCounts) {
    expect_refused("8/8/8/8/8/8/8/4K3 w - - 0 1", "black must have exactly one king");
    expect_refused("4k3/8/8/8/8/8/8/8 w - - 0 1", "white must have exactly one king");
    expect_refused("k3k3/8/8/8/8/8/8/4K3 w - - 0 1", "black must have exactly one king");
}

TEST(ChessFen, RefusesImpossibleMaterial) {
    expect_refused("4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1", "white has more than 8 pawns");
    expect_refused("4k3/8/8/8/8/Q7/PPPPPPPP/RNBQKBNR w - - 0 1", "white has more than 16 pieces");
    expect_refused("4k3/8/8/8/8/8/PPPPPPPP/RNBQKBNQ w - - 0 1", "more promoted pieces");
    expect_refused("4k3/pppppppp/8/8/8/8/8/nn2K1nn w - - 0 1", "more promoted pieces");
    EXPECT_TRUE(Position::from_fen("4k3/8/8/8/8/8/1PPPPPPP/RNBQKBNQ w - - 0 1").has_value());
}

TEST(ChessFen, RefusesPawnsOnTheBackRanks) {
    expect_refused("3Pk3/8/8/8/8/8/8/4K3 w - - 0 1", "first or last rank");
    expect_refused("4k3/8/8/8/8/8/8/p3K3 w - - 0 1", "first or last rank");
}

TEST(ChessFen, RefusesABadSideToMove) {
    expect_refused("4k3/8/8/8/8/8/8/4K3 x - - 0 1", "side to move must be 'w' or 'b'");
    expect_refused("4k3/8/8/8/8/8/8/4K3 W - - 0 1", "side to move must be 'w' or 'b'");
}

TEST(ChessFen, RefusesInconsistentCastlingRights) {
    expect_refused("r3k2r/8/8/8/8/8/8/R3K2R w QK - 0 1", "subset of KQkq in that order");
    expect_refused("r3k2r/8/8/8/8/8/8/R3K2R w KK - 0 1", "subset of KQkq in that order");
    expect_refused("r3k2r/8/8/8/8/8/8/R3K2R w KX - 0 1", "subset of KQkq in that order");
    expect_refused("r3k2r/8/8/8/8/8/8/R3K3 w K - 0 1", "needs a rook on h1");
    expect_refused("r3k2r/8/8/8/8/8/8/4K2R w Q - 0 1", "needs a rook on a1");
    expect_refused("1r2k2r/8/8/8/8/8/8/4K3 w q - 0 1", "needs a rook on a8");
    expect_refused("r3k2r/8/8/8/8/8/8/R2K3R w K - 0 1", "needs the king on its home square");
    expect_refused("r4k1r/8/8/8/8/8/8/R3K2R w k - 0 1", "needs the king on its home square");
    EXPECT_TRUE(Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1").has_value());
}

TEST(ChessFen, RefusesInconsistentEnPassantSquares) {
    expect_refused("4k3/8/8/3pP3/8/8/8/4K3 w - d5 0 2", "not on the 6th rank");
    expect_refused("4k3/8/8/8/3Pp3/8/8/4K3 b - d4 0 2", "not on the 3rd rank");
    expect_refused("4k3/8/8/4P3/8/8/8/4K3 w - d6 0 2", "no pawn in front of it");
    expect_refused("4k3/3p4/8/3pP3/8/8/8/4K3 w - d6 0 2", "square behind it must be empty");
    expect_refused("4k3/8/8/3pP3/8/8/8/4K3 w - d6 3 2", "halfmove clock of 0");
    expect_refused("4k3/8/8/3pP3/8/8/8/4K3 w - z9 0 2", "must be '-' or a square");
    EXPECT_TRUE(Position::from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2").has_value());
}

TEST(ChessFen, RefusesBadClocks) {
    expect_refused("4k3/8/8/8/8/8/8/4K3 w - - -1 1", "halfmove clock");
    expect_refused("4k3/8/8/8/8/8/8/4K3 w - - x 1", "halfmove clock");
    expect_refused("4k3/8/8/8/8/8/8/4K3 w - - 01 1", "halfmove clock");
    expect_refused("4k3/8/8/8/8/8/8/4K3 w - - 0 0", "fullmove number");
    expect_refused("4k3/8/8/8/8/8/8/4K3 w - - 0 +3", "fullmove number");
}

TEST(ChessFen, RefusesTheSideNotToMoveInCheck) {
    expect_refused("4k3/4R3/8/8/8/8/8/4K3 w - - 0 1", "the side not to move (black) is in check");
    expect_refused("4k3/8/8/8/8/8/8/3K1r2 b - - 0 1", "the side not to move (white) is in check");
    expect_refused("8/8/8/8/8/8/8/3Kk3 w - - 0 1", "is in check");
    EXPECT_TRUE(Position::from_fen("4k3/4R3/8/8/8/8/8/4K3 b - - 0 1").has_value());
}

TEST(ChessFen, RefusesTripleCheck) {
    expect_refused("4k3/8/5N2/7B/4R3/8/8/4K3 b - - 0 1", "more than two pieces");
    EXPECT_TRUE(Position::from_fen("4k3/8/5N2/8/4R3/8/8/4K3 b - - 0 1").has_value());
}

TEST(ChessFen, RefusesADoubleCheckWithoutALineOpened) {
    // A double check is a move's check and the line it uncovered, so one checker is a bishop,
    // rook or queen.
    expect_refused("4k3/8/3N1N2/8/8/8/8/4K3 b - - 0 1", "double check that no move could");
    expect_refused("4k3/3P4/5N2/8/8/8/8/4K3 b - - 0 1", "double check that no move could");
    expect_refused("4k3/3P1P2/8/8/8/8/8/4K3 b - - 0 1", "double check that no move could");
    // Ne4-f6+ uncovering the rook on e1, and Nd7-f6+ uncovering the bishop on a4.
    EXPECT_TRUE(Position::from_fen("4k3/8/5N2/8/8/8/8/K3R3 b - - 0 1").has_value());
    EXPECT_TRUE(Position::from_fen("4k3/8/5N2/8/B7/8/8/K7 b - - 0 1").has_value());
}

TEST(ChessFen, RefusesAnEmptyCastlingField) {
    // Two spaces after the side to move leave an empty field where '-' belongs.
    expect_refused("4k3/8/8/8/8/8/8/4K3 w  - 0 1", "castling field must be '-'");
    expect_refused("4k3/8/8/8/8/8/8/4K3 w  -", "castling field must be '-'");
    EXPECT_TRUE(Position::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1").has_value());
}

TEST(ChessFen, RefusesAnEnPassantSquareWhoseDoubleStepCouldNotHaveGivenTheCheck) {
    // The rook on h1 checked the white king before d7-d5 too, with Black to move (FIDE 3.9).
    expect_refused("4k3/8/8/3pP3/8/8/8/4K2r w - d6 0 2", "could not have given this check");
    // A double step gives one check at most: the pawn's own, or one it uncovers.
    expect_refused("4k3/8/8/3p4/4K2r/8/8/8 w - d6 0 2", "could not have given this check");
    // The pawn that moved gives the check.
    EXPECT_TRUE(Position::from_fen("4k3/8/8/3p4/4K3/8/8/8 w - d6 0 2").has_value());
    // Leaving d7 opened the bishop's diagonal c8-g4.
    EXPECT_TRUE(Position::from_fen("2b1k3/8/8/3p4/6K1/8/8/8 w - d6 0 2").has_value());
    // Without the en-passant square the history is unknown and the check may stand.
    EXPECT_TRUE(Position::from_fen("4k3/8/8/3pP3/8/8/8/4K2r w - - 0 2").has_value());
}

TEST(ChessFen, CountsASecondBishopOnOneSquareColourAsPromoted) {
    // Bishops keep their square colour (FIDE 3.2): with all eight pawns, White cannot have two
    // bishops on light squares (d3 and f1).
    expect_refused("4k3/8/8/8/8/3B4/PPPPPPPP/RN1QKBNR w - - 0 1", "more promoted pieces");
    expect_refused("rn1qkbnr/pppppppp/3b4/8/8/8/8/4K3 w - - 0 1", "black has more promoted");
    EXPECT_TRUE(Position::from_fen("4k3/8/8/8/8/3B4/1PPPPPPP/RN1QKBNR w - - 0 1").has_value());
    EXPECT_TRUE(Position::from_fen("4k3/8/8/8/8/4B3/PPPPPPPP/RN1QKBNR w - - 0 1").has_value());
}

TEST(ChessFen, GameFaceRefusesWithTheSameMessage) {
    const auto game = make_game(Variant::chess, "4k3/8/8/8/8/8/8/4K3 w - - 0");
    ASSERT_FALSE(game.has_value());
    EXPECT_NE(game.error().message.find("bad FEN"), std::string::npos);
}

}  // namespace
}  // namespace arbiter::rules::chess

// Found by fuzz_position_chess: a game set up at move 9998 counted to 10000, which its own FEN
// could not carry, so position() did not read back. The text stops at the largest number.
TEST(ChessFen, PositionsPastTheLargestMoveNumberStillReadBack) {
    auto game = arbiter::rules::make_game(arbiter::rules::Variant::chess,
                                          "4k3/8/8/8/8/8/8/R3K3 w - - 0 9998");
    ASSERT_TRUE(game);
    for (const char* move : {"a1a2", "e8d8", "a2a3", "d8e8", "a3a4", "e8d8"}) {
        ASSERT_TRUE((*game)->play(move)) << move;
    }
    const std::string fen = (*game)->position();
    EXPECT_TRUE(fen.ends_with(" 9999")) << fen;
    auto again = arbiter::rules::make_game(arbiter::rules::Variant::chess, fen);
    ASSERT_TRUE(again) << fen << ": " << again.error().message;
    EXPECT_EQ((*again)->position(), fen);
}
