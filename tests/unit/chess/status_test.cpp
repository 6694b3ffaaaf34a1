// Game ends (FIDE 5, 9): checkmate, stalemate, dead positions, threefold repetition, the
// fifty-move rule, their order, and can_win for flag falls (FIDE 6.9).
#include <gtest/gtest.h>

#include "tests/unit/chess/chess_test_util.hpp"

namespace arbiter::rules::chess_test {
namespace {

const Status ongoing{};
const Status repetition{Outcome::draw, Reason::repetition};
const Status fifty{Outcome::draw, Reason::fifty_moves};
const Status dead{Outcome::draw, Reason::insufficient_material};

TEST(ChessStatus, CheckmateEndsTheGameAndRefusesFurtherMoves) {
    auto game = game_from("startpos");
    play_all(*game, {"f2f3", "e7e5", "g2g4"});
    EXPECT_EQ(game->status(), ongoing);
    const auto mate = game->play("d8h4");
    ASSERT_TRUE(mate.has_value());
    EXPECT_EQ(mate->notation, "Qh4#");
    EXPECT_EQ(game->status(), (Status{Outcome::second_wins, Reason::checkmate}));
    EXPECT_TRUE(game->in_check());
    EXPECT_TRUE(game->legal_moves().empty());
    const auto refused = game->play("e1f2");
    ASSERT_FALSE(refused.has_value());
    EXPECT_NE(refused.error().message.find("over"), std::string::npos);
    EXPECT_FALSE(game->to_wire("Kf2").has_value());
    EXPECT_EQ(game->ply(), 4U);
}

TEST(ChessStatus, CheckIsNotMateWhenTheKingCanEscape) {
    auto game = game_from("startpos");
    play_all(*game, {"e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6"});
    const auto check = game->play("h5f7");
    ASSERT_TRUE(check.has_value());
    EXPECT_EQ(check->notation, "Qxf7#");
    auto escape = game_from("startpos");
    play_all(*escape, {"e2e4", "f7f6", "d1h5"});
    EXPECT_TRUE(escape->in_check());
    EXPECT_EQ(escape->status(), ongoing);
    EXPECT_FALSE(escape->legal_moves().empty());
}

TEST(ChessStatus, StalemateIsADraw) {
    auto game = game_from("7k/8/6K1/8/8/1Q6/8/8 w - - 0 1");
    EXPECT_EQ(game->status(), ongoing);
    const auto played = game->play("b3f7");
    ASSERT_TRUE(played.has_value());
    EXPECT_EQ(played->notation, "Qf7");
    EXPECT_FALSE(game->in_check());
    EXPECT_EQ(game->status(), (Status{Outcome::draw, Reason::stalemate}));
    EXPECT_TRUE(game->legal_moves().empty());
}

TEST(ChessStatus, ThreefoldRepetitionCountsTheStartPosition) {
    auto game = game_from("startpos");
    play_all(*game, {"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"});
    EXPECT_EQ(game->status(), ongoing);
    play_all(*game, {"f6g8"});
    EXPECT_EQ(game->status(), repetition);
    EXPECT_TRUE(game->legal_moves().empty());
}

TEST(ChessStatus, RepetitionNeedsTheSameSideToMove) {
    // The rook loses a tempo, so the start placement comes back with Black to move: the start
    // position (White to move) and those later ones are different positions (FIDE 9.2.2).
    auto game = game_from("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    play_all(*game, {"a1a2", "e8d8", "a2a3", "d8e8", "a3a1"});
    play_all(*game, {"e8d8", "a1a2", "d8e8", "a2a1"});
    EXPECT_EQ(game->status(), ongoing);  // the placement stood three times, Black to move twice
    play_all(*game, {"e8d8", "a1a2", "d8e8", "a2a1"});
    EXPECT_EQ(game->status(), repetition);
}

TEST(ChessStatus, EnPassantRightMakesAPositionDifferentOnlyWhenTheCaptureIsLegal) {
    // After d7d5 White may capture en passant, so that position differs from the later ones with
    // the same placement (FIDE 9.2.2). Were it counted, ply 9 would be its third occurrence; as
    // it is, the first position to stand three times is the one after a1b1 at ply 10.
    auto game = game_from("k7/3p4/8/4P3/8/8/8/K7 b - - 0 1");
    play_all(*game, {"d7d5", "a1b1", "a8b8", "b1a1", "b8a8", "a1b1", "a8b8", "b1a1", "b8a8"});
    EXPECT_EQ(game->status(), ongoing);
    play_all(*game, {"a1b1"});
    EXPECT_EQ(game->status(), repetition);
}

TEST(ChessStatus, EnPassantSquareIgnoredWhenNoPawnCanCapture) {
    auto game = game_from("k7/3p4/8/7P/8/8/8/K7 b - - 0 1");
    play_all(*game, {"d7d5"});
    EXPECT_NE(game->position().find(" d6 "), std::string::npos);  // FEN still records it
    play_all(*game, {"a1b1", "a8b8", "b1a1", "b8a8", "a1b1", "a8b8", "b1a1"});
    EXPECT_EQ(game->status(), ongoing);
    play_all(*game, {"b8a8"});
    EXPECT_EQ(game->status(), repetition);
}

TEST(ChessStatus, EnPassantSquareIgnoredWhenTheCaptureWouldExposeTheKing) {
    auto game = game_from("k6n/3p4/8/K3P2r/8/8/8/7N b - - 0 1");
    play_all(*game, {"d7d5"});
    EXPECT_FALSE(has_move(*game, "e5d6"));
    play_all(*game, {"h1g3", "h8g6", "g3h1", "g6h8", "h1g3", "h8g6", "g3h1"});
    EXPECT_EQ(game->status(), ongoing);
    play_all(*game, {"g6h8"});
    EXPECT_EQ(game->status(), repetition);
}

TEST(ChessStatus, FiftyMoveRuleAtTheHundredthQuietPly) {
    auto game = game_from("4k3/8/8/8/8/8/8/R3K3 w - - 98 80");
    play_all(*game, {"a1a2"});
    EXPECT_EQ(game->status(), ongoing);
    play_all(*game, {"e8e7"});
    EXPECT_EQ(game->status(), fifty);
}

TEST(ChessStatus, PawnMoveOrCaptureResetsTheFiftyMoveCount) {
    auto pawn = game_from("4k3/8/8/8/8/8/P7/R3K3 w - - 99 80");
    play_all(*pawn, {"a2a3"});
    EXPECT_EQ(pawn->status(), ongoing);
    EXPECT_NE(pawn->position().find(" - 0 80"), std::string::npos);
    auto capture = game_from("4k3/8/8/8/8/8/r6P/R3K3 w - - 99 80");
    play_all(*capture, {"a1a2"});
    EXPECT_EQ(capture->status(), ongoing);
}

TEST(ChessStatus, MateOnTheHundredthQuietPlyWins) {
    auto game = game_from("7k/8/6K1/8/8/8/8/R7 w - - 99 80");
    play_all(*game, {"a1a8"});
    EXPECT_EQ(game->status(), (Status{Outcome::first_wins, Reason::checkmate}));
}

TEST(ChessStatus, BareKingsAreDead) {
    auto game = game_from("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    EXPECT_EQ(game->status(), dead);
    EXPECT_TRUE(game->legal_moves().empty());
}

TEST(ChessStatus, KingAndMinorPieceAgainstKingIsDeadAfterTheCapture) {
    auto bishop = game_from("4k3/8/8/8/8/8/3r4/4KB2 w - - 0 1");
    EXPECT_EQ(bishop->status(), ongoing);
    play_all(*bishop, {"e1d2"});
    EXPECT_EQ(bishop->status(), dead);
    auto knight = game_from("4k3/8/8/8/8/8/3r4/4KN2 w - - 0 1");
    play_all(*knight, {"e1d2"});
    EXPECT_EQ(knight->status(), dead);
}

TEST(ChessStatus, DeadEvenAfterACheckingCapture) {
    auto game = game_from("4k3/8/8/8/n7/8/8/3BK3 w - - 0 1");
    const auto played = game->play("d1a4");
    ASSERT_TRUE(played.has_value());
    EXPECT_EQ(played->notation, "Bxa4+");
    EXPECT_TRUE(game->in_check());
    EXPECT_EQ(game->status(), dead);
}

TEST(ChessStatus, BishopsOnOneColourAreDeadButNotOnBoth) {
    EXPECT_EQ(game_from("4k3/8/8/8/8/1b6/8/4KB2 w - - 0 1")->status(), dead);
    EXPECT_EQ(game_from("4k3/8/8/1b6/8/1b6/8/2B1KB2 w - - 0 1")->status(), ongoing);
    EXPECT_EQ(game_from("4k3/8/8/8/8/2b5/8/4KB2 w - - 0 1")->status(), ongoing);
}

TEST(ChessStatus, MinorPiecesThatCanStillHelpmateAreNotDead) {
    EXPECT_EQ(game_from("4k3/8/8/8/8/2n5/8/4KN2 w - - 0 1")->status(), ongoing);
    EXPECT_EQ(game_from("4k3/8/8/8/8/8/8/4KNN1 w - - 0 1")->status(), ongoing);
    EXPECT_EQ(game_from("4k3/8/8/8/8/2n5/8/4KB2 w - - 0 1")->status(), ongoing);
}

TEST(ChessCanWin, BareKingCannotWin) {
    auto game = game_from("4k3/8/8/8/8/8/8/3QK3 w - - 0 1");
    EXPECT_TRUE(game->can_win(Side::first));
    EXPECT_FALSE(game->can_win(Side::second));
}

TEST(ChessCanWin, LoneKnightWinsOnlyWithAnEnemyPieceToHelp) {
    EXPECT_FALSE(game_from("4k3/8/8/8/8/8/8/4KN2 w - - 0 1")->can_win(Side::first));
    EXPECT_TRUE(game_from("4k3/8/8/8/8/8/3q4/5NK1 w - - 0 1")->can_win(Side::first));
    EXPECT_TRUE(game_from("4k3/8/8/8/8/8/8/r4NK1 w - - 0 1")->can_win(Side::first));
    EXPECT_TRUE(game_from("4k3/4p3/8/8/8/8/8/4KN2 w - - 0 1")->can_win(Side::first));
    EXPECT_TRUE(game_from("4k3/8/8/8/8/8/8/3NKN2 w - - 0 1")->can_win(Side::first));
}

TEST(ChessCanWin, SameColouredBishopsNeedAnEnemyBlockerOfTheOtherKind) {
    EXPECT_FALSE(game_from("4k3/8/8/8/8/8/8/4KB2 w - - 0 1")->can_win(Side::first));
    EXPECT_FALSE(game_from("4k3/8/8/8/8/1b6/8/4KB2 w - - 0 1")->can_win(Side::first));
    EXPECT_FALSE(game_from("4k3/8/8/8/8/1b6/8/4KB2 w - - 0 1")->can_win(Side::second));
    EXPECT_TRUE(game_from("4k3/8/8/8/8/2b5/8/4KB2 w - - 0 1")->can_win(Side::first));
    EXPECT_TRUE(game_from("4k3/4p3/8/8/8/8/8/4KB2 w - - 0 1")->can_win(Side::first));
    EXPECT_TRUE(game_from("4k3/8/8/8/8/2n5/8/4KB2 w - - 0 1")->can_win(Side::first));
    EXPECT_TRUE(game_from("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1")->can_win(Side::first));
    EXPECT_FALSE(game_from("4k3/8/8/8/8/8/8/3BKB2 w - - 0 1")->can_win(Side::first));
}

TEST(ChessCanWin, PawnsAndMajorPiecesCanWin) {
    EXPECT_TRUE(game_from("4k3/8/8/8/8/8/P7/4K3 w - - 0 1")->can_win(Side::first));
    EXPECT_TRUE(game_from("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")->can_win(Side::first));
    EXPECT_TRUE(game_from("startpos")->can_win(Side::second));
}

}  // namespace
}  // namespace arbiter::rules::chess_test
