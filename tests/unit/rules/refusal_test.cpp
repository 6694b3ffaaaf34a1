// Why a move is refused, in every variant: each reason the rules module gives, for moves in wire
// form and in display notation (issue 41: "say why a move is illegal").
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "common/rules/game.hpp"

namespace arbiter::rules {
namespace {

/// The reason to_wire gives for `text` in `position` (the server sends this one), after checking
/// that play() refuses it too and leaves the game as it was.
std::string refusal(Variant variant, std::string_view position, std::string_view text) {
    auto game = make_game(variant, position);
    EXPECT_TRUE(game.has_value()) << position;
    if (!game) {
        return "bad position";
    }
    const std::string before = (*game)->position();
    EXPECT_FALSE((*game)->play(text).has_value()) << text;
    EXPECT_EQ((*game)->position(), before);
    const auto wire = (*game)->to_wire(text);
    EXPECT_FALSE(wire.has_value()) << text << " was accepted as " << wire.value_or("");
    return wire ? "accepted" : wire.error().message;
}

std::string chess(std::string_view text, std::string_view position = "") {
    return refusal(Variant::chess, position, text);
}
std::string xiangqi(std::string_view text, std::string_view position = "") {
    return refusal(Variant::xiangqi, position, text);
}
std::string draughts(std::string_view text, std::string_view position = "") {
    return refusal(Variant::draughts, position, text);
}

/// The wire form's own reason from play(): what a client sending wire moves sees.
std::string played_refusal(Variant variant, std::string_view position, std::string_view text) {
    auto game = make_game(variant, position);
    auto played = (*game)->play(text);
    return played ? "accepted" : played.error().message;
}

constexpr std::string_view kCheckedByRook = "4k3/4r3/8/8/8/8/3N4/4K3 w - - 0 1";
constexpr std::string_view kPinnedKnight = "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1";

TEST(ChessRefusal, APieceThatDoesNotMoveThatWay) {
    EXPECT_EQ(chess("e2e5"), "e2e5: a pawn cannot move there");
    EXPECT_EQ(chess("g1g3"), "g1g3: a knight cannot move there");
    EXPECT_EQ(chess("f1c4"), "f1c4: a bishop cannot move there");  // e2 blocks it
    EXPECT_EQ(chess("d1d2"), "d1d2: your own piece stands on d2");
    EXPECT_EQ(chess("e3e4"), "e3e4: there is no piece on e3");
    EXPECT_EQ(chess("e7e5"), "e7e5: the piece on e7 belongs to the opponent");
    EXPECT_EQ(played_refusal(Variant::chess, "", "e2e5"), "e2e5: a pawn cannot move there");
}

TEST(ChessRefusal, TheKingInCheck) {
    EXPECT_EQ(chess("d2f3", kCheckedByRook), "d2f3: your king is in check");
    EXPECT_EQ(chess("e1e2", kCheckedByRook), "e1e2: your king would be in check");
    EXPECT_EQ(chess("e2f4", kPinnedKnight), "e2f4: your king would be in check");
    EXPECT_EQ(chess("Nf3", kCheckedByRook), "Nf3: your king is in check");
    EXPECT_EQ(chess("Nf4", kPinnedKnight), "Nf4: your king would be in check");
}

TEST(ChessRefusal, Castling) {
    EXPECT_EQ(chess("e1g1", "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1"),
              "e1g1: castling is no longer allowed there (the king or that rook has moved)");
    EXPECT_EQ(chess("e1g1", "4k3/8/8/8/8/8/8/R3KB1R w K - 0 1"),
              "e1g1: the squares between the king and the rook must be empty to castle");
    EXPECT_EQ(chess("e1c1", "4k3/4r3/8/8/8/8/8/R3K2R w KQ - 0 1"),
              "e1c1: you cannot castle out of check");
    EXPECT_EQ(chess("e1g1", "4k3/5r2/8/8/8/8/8/R3K2R w KQ - 0 1"),
              "e1g1: the king cannot castle through an attacked square");
    EXPECT_EQ(chess("e1g1", "4k3/6r1/8/8/8/8/8/R3K2R w KQ - 0 1"),
              "e1g1: your king would be in check");
    EXPECT_EQ(chess("O-O", "4k3/6r1/8/8/8/8/8/R3K2R w KQ - 0 1"),
              "O-O: your king would be in check");
}

TEST(ChessRefusal, APromotionMustNameItsPiece) {
    constexpr std::string_view kPawnOnA7 = "8/P3k3/8/8/8/8/8/4K3 w - - 0 1";
    EXPECT_EQ(chess("a7a8", kPawnOnA7), "a7a8: a promotion must name its piece (q, r, b or n)");
    EXPECT_EQ(chess("a8", kPawnOnA7), "a8: a promotion must name its piece (=Q, =R, =B or =N)");
}

TEST(ChessRefusal, DisplayNotation) {
    EXPECT_EQ(chess("Qg5"), "Qg5: no queen can reach g5");
    EXPECT_EQ(chess("e5"), "e5: no pawn can reach e5");
    EXPECT_EQ(chess("Nxf3"), "Nxf3: there is nothing to capture on f3");
    EXPECT_EQ(chess("O-O"),
              "O-O: the squares between the king and the rook must be empty to castle");
    EXPECT_EQ(chess("Nd2", "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1"), "Nd2: ambiguous: Nbd2 or Nfd2");
}

TEST(ChessRefusal, NotAMoveInAnyNotationOnlyWhenNothingParses) {
    EXPECT_EQ(chess("hello"), "hello: not a move in any notation");
    EXPECT_EQ(chess("Zg5"), "Zg5: not a move in any notation");
    // Well-formed UCI and SAN get their own reasons (above), never this one.
    EXPECT_EQ(chess("e7e8Q"), "e7e8Q: the promotion letter must be one of q, r, b, n (lowercase)");
}

// Red: chariot a1, horse b1, elephant c1, advisor d1, general e1; cannons b3, h3; soldiers on
// rank 4 (xiangqi/README.md: files a-i from red's left, ranks 1-10 from red's side).
TEST(XiangqiRefusal, APieceThatDoesNotMoveThatWay) {
    EXPECT_EQ(xiangqi("b1d2"), "b1d2: a horse cannot move there");  // its leg, c1, is blocked
    EXPECT_EQ(xiangqi("a1a5"), "a1a5: a chariot cannot move there");
    EXPECT_EQ(xiangqi("b1b3"), "b1b3: your own piece stands on b3");
    EXPECT_EQ(xiangqi("e5e6"), "e5e6: there is no piece on e5");
    EXPECT_EQ(xiangqi("a7a6"), "a7a6: the piece on a7 belongs to the opponent");
    EXPECT_EQ(played_refusal(Variant::xiangqi, "", "a1a5"), "a1a5: a chariot cannot move there");
}

TEST(XiangqiRefusal, TheGenerals) {
    // Black general d10, black chariot f2, red general e1 (and a soldier, so red can move).
    constexpr std::string_view kGenerals = "3k5/9/9/9/9/P8/9/9/5r3/4K4 w - - 0 1";
    EXPECT_EQ(xiangqi("e1d1", kGenerals), "e1d1: the general would face the general");
    EXPECT_EQ(xiangqi("e1e2", kGenerals), "e1e2: your general would be in check");
    // A red cannon on e2 stands between the generals on the e-file.
    constexpr std::string_view kScreen = "4k4/9/9/9/9/9/9/9/4C4/4K4 w - - 0 1";
    EXPECT_EQ(xiangqi("e2d2", kScreen), "e2d2: the general would face the general");
    EXPECT_EQ(xiangqi("C5.6", kScreen), "C5.6: the general would face the general");
    // Red general d1 in check from the black chariot on i1.
    constexpr std::string_view kChecked = "4k4/9/9/9/9/R8/9/9/9/3K4r w - - 0 1";
    EXPECT_EQ(xiangqi("a5a6", kChecked), "a5a6: your general is in check");
}

TEST(XiangqiRefusal, WxfNotation) {
    EXPECT_EQ(xiangqi("C1.5"), "C1.5: you have no cannon on file 1");
    EXPECT_EQ(xiangqi("R1+5"), "R1+5: no chariot of yours can make that move");
    EXPECT_EQ(xiangqi("hello"), "hello: not a move in any notation");
    EXPECT_EQ(xiangqi("Nf3"), "Nf3: not a move in any notation");
}

TEST(DraughtsRefusal, PlainMoves) {
    EXPECT_EQ(draughts("21-13"),
              "21-13: a man moves one square diagonally forward; it cannot move there");
    EXPECT_EQ(draughts("25-21"), "25-21: square 21 is occupied");
    EXPECT_EQ(draughts("22-21", "W:WK22:B1"),
              "22-21: a king moves along a free diagonal; it cannot move there");
    EXPECT_EQ(draughts("12-16"), "12-16: no piece of the side to move on square 12");
}

TEST(DraughtsRefusal, Captures) {
    EXPECT_EQ(draughts("22-17", "W:W22:B18"), "22-17: a capture is compulsory: 22x15");
    EXPECT_EQ(draughts("22x15", "W:W22:B18,11"),
              "22x15: the capture taking the most pieces is compulsory: 22x8");
    EXPECT_EQ(draughts("22x13", "W:W22:B18"),
              "22x13: no capture of yours goes there; the captures are 22x15");
    EXPECT_EQ(draughts("21x14"), "21x14: there is no capture here (a plain move is written 21-17)");
}

TEST(DraughtsRefusal, NotAMoveInAnyNotation) {
    EXPECT_EQ(draughts("hello"), "hello: not a move in any notation");
    EXPECT_EQ(draughts("33-29"), "33-29: the squares are numbered 1 to 32");
}

}  // namespace
}  // namespace arbiter::rules
