// Each move rule of the FIDE Laws (art. 3) through the public face: one position where the rule
// allows a move and one where it refuses it.
#include <gtest/gtest.h>

#include "common/rules/chess/movegen.hpp"
#include "tests/unit/chess/chess_test_util.hpp"

namespace arbiter::rules::chess_test {
namespace {

TEST(ChessCastling, BothSidesAllowedWhenEveryConditionHolds) {
    auto game = game_from("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    EXPECT_TRUE(has_move(*game, "e1g1"));
    EXPECT_TRUE(has_move(*game, "e1c1"));
    const auto played = game->play("e1g1");
    ASSERT_TRUE(played.has_value());
    EXPECT_EQ(played->notation, "O-O");
    EXPECT_EQ(game->position(), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    ASSERT_TRUE(game->play("e8c8").has_value());
    EXPECT_EQ(game->position(), "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2");
    EXPECT_EQ(game->moves().back(), "e8c8");
}

TEST(ChessCastling, RefusedWhenASquareBetweenIsOccupied) {
    auto game = game_from("r3k2r/8/8/8/8/8/8/RN2K1NR w KQkq - 0 1");
    EXPECT_FALSE(has_move(*game, "e1g1"));
    EXPECT_FALSE(has_move(*game, "e1c1"));
    EXPECT_FALSE(game->play("e1c1").has_value());
    EXPECT_EQ(game->ply(), 0U);
}

TEST(ChessCastling, QueenSideAllowedWhenOnlyTheRookPassesAnAttackedSquare) {
    auto game = game_from("1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
    EXPECT_TRUE(has_move(*game, "e1c1"));  // b1 is attacked, but the king never crosses it
}

TEST(ChessCastling, RefusedOutOfCheck) {
    auto game = game_from("r3k2r/8/8/8/4r3/8/8/R3K2R w KQq - 0 1");
    EXPECT_TRUE(game->in_check());
    EXPECT_FALSE(has_move(*game, "e1g1"));
    EXPECT_FALSE(has_move(*game, "e1c1"));
}

TEST(ChessCastling, RefusedThroughAnAttackedSquare) {
    auto game = game_from("r3kr2/8/8/8/8/8/8/R3K2R w KQq - 0 1");
    EXPECT_FALSE(has_move(*game, "e1g1"));  // f1 attacked by the rook on f8
    EXPECT_TRUE(has_move(*game, "e1c1"));
}

TEST(ChessCastling, RefusedOntoAnAttackedSquare) {
    auto landing = game_from("r1r1k3/8/8/8/8/8/8/R3K2R w KQq - 0 1");
    EXPECT_FALSE(has_move(*landing, "e1c1"));  // c1 attacked by the rook on c8
    EXPECT_TRUE(has_move(*landing, "e1g1"));
}

TEST(ChessCastling, RightLostAfterTheRookMovedAndCameBack) {
    auto game = game_from("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    play_all(*game, {"h1h2", "a8a7", "h2h1", "a7a8"});
    EXPECT_EQ(castling_field(*game), "Qk");
    EXPECT_FALSE(has_move(*game, "e1g1"));
    EXPECT_TRUE(has_move(*game, "e1c1"));
    ASSERT_TRUE(game->play("a1b1").has_value());
    EXPECT_FALSE(has_move(*game, "e8c8"));
    EXPECT_TRUE(has_move(*game, "e8g8"));
}

TEST(ChessCastling, RightsLostAfterTheKingMoved) {
    auto game = game_from("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    play_all(*game, {"e1e2", "e8e7", "e2e1", "e7e8"});
    EXPECT_EQ(castling_field(*game), "-");
    EXPECT_FALSE(has_move(*game, "e1g1"));
    EXPECT_FALSE(has_move(*game, "e1c1"));
}

TEST(ChessCastling, RightLostWhenTheRookIsCaptured) {
    auto game = game_from("r3k2r/8/8/8/8/8/6B1/R3K2R w KQkq - 0 1");
    EXPECT_TRUE(has_move(*game, "e1c1"));
    play_all(*game, {"g2a8"});
    EXPECT_EQ(castling_field(*game), "KQk");
    EXPECT_TRUE(has_move(*game, "e8g8"));
}

TEST(ChessEnPassant, AllowedImmediatelyAfterTheDoubleStep) {
    auto game = game_from("startpos");
    play_all(*game, {"e2e4", "a7a6", "e4e5", "d7d5"});
    EXPECT_EQ(game->position(), "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
    const auto played = game->play("e5d6");
    ASSERT_TRUE(played.has_value());
    EXPECT_TRUE(played->capture);
    EXPECT_EQ(played->notation, "exd6");
    EXPECT_EQ(game->position(), "rnbqkbnr/1pp1pppp/p2P4/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3");
}

TEST(ChessEnPassant, RefusedOneMoveLater) {
    auto game = game_from("startpos");
    play_all(*game, {"e2e4", "a7a6", "e4e5", "d7d5", "a2a3", "a6a5"});
    EXPECT_FALSE(has_move(*game, "e5d6"));
    EXPECT_FALSE(game->play("e5d6").has_value());
}

TEST(ChessEnPassant, RefusedWhenBothPawnsLeavingTheRankExposeTheKing) {
    auto pinned = game_from("3k4/8/8/K1Pp3r/8/8/8/8 w - d6 0 2");
    EXPECT_FALSE(has_move(*pinned, "c5d6"));
    auto free = game_from("3k4/8/8/K1Pp4/8/8/8/7r w - d6 0 2");
    EXPECT_TRUE(has_move(*free, "c5d6"));
}

TEST(ChessEnPassant, AllowedWhenItCapturesTheCheckingPawn) {
    auto game = game_from("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1");
    EXPECT_TRUE(game->in_check());
    EXPECT_TRUE(has_move(*game, "e4d3"));
    for (const auto& move : game->legal_moves()) {
        EXPECT_TRUE(move == "e4d3" || move.substr(0, 2) == "c5") << move;
    }
}

TEST(ChessPromotion, EveryPieceAllowedAndTheLetterRequired) {
    auto game = game_from("1n5k/P7/8/8/8/8/8/K7 w - - 0 1");
    for (const char* move :
         {"a7a8q", "a7a8r", "a7a8b", "a7a8n", "a7b8q", "a7b8r", "a7b8b", "a7b8n"}) {
        EXPECT_TRUE(has_move(*game, move)) << move;
    }
    EXPECT_EQ(game->legal_moves().size(), 8U + 3U);
    EXPECT_FALSE(game->play("a7a8").has_value());
    EXPECT_FALSE(game->play("a7a8k").has_value());
    EXPECT_FALSE(game->play("a7a8p").has_value());
    EXPECT_FALSE(game->play("a7a8Q").has_value());  // strict UCI: lowercase letters only
    const char* expected[] = {"a8=Q",    "a8=R",    "a8=B",   "a8=N",
                              "axb8=Q+", "axb8=R+", "axb8=B", "axb8=N"};
    const char* moves[] = {"a7a8q", "a7a8r", "a7a8b", "a7a8n", "a7b8q", "a7b8r", "a7b8b", "a7b8n"};
    for (int i = 0; i < 8; ++i) {
        auto copy = game->clone();
        const auto played = copy->play(moves[i]);
        ASSERT_TRUE(played.has_value());
        EXPECT_EQ(played->notation, expected[i]);
    }
    ASSERT_TRUE(game->play("a7a8n").has_value());
    EXPECT_EQ(game->position(), "Nn5k/8/8/8/8/8/8/K7 b - - 0 1");
}

TEST(ChessPromotion, LetterRefusedOnAnOrdinaryMove) {
    auto game = game_from("startpos");
    EXPECT_FALSE(game->play("e2e4q").has_value());
    EXPECT_TRUE(game->play("e2e4").has_value());
}

TEST(ChessPins, PinnedKnightCannotMove) {
    auto game = game_from("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1");
    for (const auto& move : game->legal_moves()) {
        EXPECT_NE(move.substr(0, 2), "e2") << move;
    }
    auto unpinned = game_from("4k3/3r4/8/8/8/8/4N3/4K3 w - - 0 1");
    EXPECT_TRUE(has_move(*unpinned, "e2c3"));
}

TEST(ChessPins, PinnedSlidersMoveOnlyAlongThePin) {
    auto bishop = game_from("4k3/8/8/8/b7/8/2B4P/3K4 w - - 0 1");
    EXPECT_TRUE(has_move(*bishop, "c2b3"));
    EXPECT_TRUE(has_move(*bishop, "c2a4"));
    EXPECT_FALSE(has_move(*bishop, "c2d3"));
    auto rook = game_from("4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1");
    EXPECT_TRUE(has_move(*rook, "e2e7"));
    EXPECT_TRUE(has_move(*rook, "e2e3"));
    EXPECT_FALSE(has_move(*rook, "e2d2"));
}

TEST(ChessKing, MayNotStepIntoAttackNorAlongTheCheckingLine) {
    auto game = game_from("4k3/3r4/8/8/8/8/8/4K3 w - - 0 1");
    EXPECT_FALSE(has_move(*game, "e1d1"));
    EXPECT_FALSE(has_move(*game, "e1d2"));
    EXPECT_TRUE(has_move(*game, "e1f1"));
    auto checked = game_from("4k3/8/8/8/8/8/8/r3K3 w - - 0 1");
    EXPECT_FALSE(has_move(*checked, "e1f1"));  // still on the rook's rank behind the king
    EXPECT_TRUE(has_move(*checked, "e1e2"));
}

TEST(ChessCheck, OnlyMovesThatAnswerTheCheckAreLegal) {
    auto game = game_from("4k3/8/8/8/8/8/1B6/r3K3 w - - 0 1");
    EXPECT_TRUE(has_move(*game, "b2a1"));   // capture the checker
    EXPECT_FALSE(has_move(*game, "b2c3"));  // ignores the check
    auto blocked = game_from("4k3/8/8/8/8/8/2B5/r3K3 w - - 0 1");
    EXPECT_TRUE(has_move(*blocked, "c2d1"));  // block on the line
    EXPECT_FALSE(has_move(*blocked, "c2b3"));
}

}  // namespace
}  // namespace arbiter::rules::chess_test
