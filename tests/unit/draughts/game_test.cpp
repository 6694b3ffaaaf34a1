// The Game face of draughts: bookkeeping, can_win, clone, and the PDN export.
#include <gtest/gtest.h>

#include "support.hpp"

namespace arbiter::rules::draughts {
namespace {

using testing::game_from;

TEST(DraughtsGame, TracksMovesTurnAndPly) {
    const auto game = game_from("startpos");
    EXPECT_EQ(game->variant(), Variant::draughts);
    EXPECT_EQ(game->turn(), Side::first);
    testing::play_all(*game, {"22-18", "11-15", "18x11"});
    EXPECT_EQ(game->ply(), 3U);
    EXPECT_EQ(game->turn(), Side::second);
    EXPECT_EQ(game->moves(), (std::vector<std::string>{"22-18", "11-15", "18x11"}));
    EXPECT_EQ(game->status(), Status{});
    EXPECT_FALSE(game->in_check());
}

TEST(DraughtsGame, RefusedMoveChangesNothing) {
    const auto game = game_from("startpos");
    const auto before = game->position();
    EXPECT_FALSE(game->play("22-19").has_value());
    EXPECT_EQ(game->position(), before);
    EXPECT_EQ(game->ply(), 0U);
}

TEST(DraughtsGame, CloneIsIndependent) {
    const auto game = game_from("startpos");
    const auto copy = game->clone();
    ASSERT_TRUE(copy->play("21-17").has_value());
    EXPECT_EQ(game->ply(), 0U);
    EXPECT_EQ(copy->ply(), 1U);
    EXPECT_NE(copy->position(), game->position());
}

TEST(DraughtsGame, CanWinWhileTheSideHasAPiece) {
    const auto game = game_from("W:W21:BK1");
    EXPECT_TRUE(game->can_win(Side::first));
    EXPECT_TRUE(game->can_win(Side::second));
    const auto empty = game_from("B:WK1:B");
    EXPECT_TRUE(empty->can_win(Side::first));
    EXPECT_FALSE(empty->can_win(Side::second));
}

TEST(DraughtsGame, ExportsPdnFromTheStart) {
    const auto game = game_from("startpos");
    testing::play_all(*game, {"22-18", "11-15", "18x11"});
    ExportInfo info;
    info.event = "Club \"open\"";
    info.site = "Recife";
    info.date = "2026.11.30";
    info.first_player = "Ana";
    info.second_player = "Bruno";
    info.outcome = Outcome::first_wins;
    const std::string pdn = game->export_text(info);
    EXPECT_NE(pdn.find("[Event \"Club \\\"open\\\"\"]\n"), std::string::npos) << pdn;
    EXPECT_NE(pdn.find("[Site \"Recife\"]\n[Date \"2026.11.30\"]\n[Round \"-\"]\n"),
              std::string::npos)
        << pdn;
    EXPECT_NE(pdn.find("[White \"Ana\"]\n[Black \"Bruno\"]\n[Result \"2-0\"]\n"), std::string::npos)
        << pdn;
    // Brazilian (26), with the numeric notation the moves are written in spelled out: type 26's
    // default is algebraic.
    EXPECT_NE(pdn.find("[GameType \"26,W,8,8,N2,0\"]\n"), std::string::npos) << pdn;
    EXPECT_EQ(pdn.find("[FEN"), std::string::npos) << pdn;
    EXPECT_TRUE(pdn.ends_with("\n\n1. 22-18 11-15 2. 18x11 2-0\n\n")) << pdn;
}

TEST(DraughtsGame, ExportsFenTagAndBlackFirstNumbering) {
    const auto game = game_from("B:W21,K30:B10,12");
    testing::play_all(*game, {"10-14", "21-17"});
    ExportInfo info;
    info.outcome = Outcome::draw;
    const std::string pdn = game->export_text(info);
    EXPECT_NE(pdn.find("[FEN \"B:W21,K30:B10,12\"]\n"), std::string::npos) << pdn;
    EXPECT_NE(pdn.find("[Result \"1-1\"]"), std::string::npos) << pdn;
    EXPECT_NE(pdn.find("[Date \"????.??.??\"]"), std::string::npos) << pdn;
    EXPECT_TRUE(pdn.ends_with("\n\n1... 10-14 2. 21-17 1-1\n\n")) << pdn;
}

TEST(DraughtsGame, ExportOfAnUnfinishedGameAndALoss) {
    const auto game = game_from("startpos");
    ExportInfo info;
    EXPECT_NE(game->export_text(info).find("[Result \"*\"]"), std::string::npos);
    info.outcome = Outcome::second_wins;
    EXPECT_TRUE(game->export_text(info).ends_with("]\n\n0-2\n\n"));
}

TEST(DraughtsGame, ExportWritesTagsAsPgnDoes) {
    // PDN 3.0 takes PGN's tag pairs: one line each, '"' and '\' escaped, "?" for an unknown
    // value, and the tags after the roster in ASCII order of their names.
    const auto game = game_from("B:W21,K30:B10,12");
    ExportInfo info;
    info.event.clear();
    info.first_player = "Ana\n[Result \"0-2\"]";
    info.second_player = "Bruno \\ \"B\"";
    info.time_control = "300+2";
    const std::string pdn = game->export_text(info);
    EXPECT_NE(pdn.find("[Event \"?\"]\n"), std::string::npos) << pdn;
    EXPECT_NE(pdn.find("[White \"Ana[Result \\\"0-2\\\"]\"]\n"), std::string::npos) << pdn;
    EXPECT_NE(pdn.find("[Black \"Bruno \\\\ \\\"B\\\"\"]\n"), std::string::npos) << pdn;
    EXPECT_NE(pdn.find("[Result \"*\"]\n[FEN \"B:W21,K30:B10,12\"]\n[GameType \"26,W,8,8,N2,0\"]\n"
                       "[TimeControl \"300+2\"]\n\n"),
              std::string::npos)
        << pdn;
}

TEST(DraughtsGame, ExportCarriesTerminationTimeControlAndEachMovesClock) {
    // As the chess PGN export: [Termination] and [TimeControl] among the tags in ASCII order,
    // and the mover's clock after each move as a {[%clk h:mm:ss]} comment, with the move number
    // repeated before a black move that follows one (PGN 8.2.2.2).
    const auto game = game_from("startpos");
    testing::play_all(*game, {"22-18", "11-15", "18x11"});
    ExportInfo info;
    info.outcome = Outcome::first_wins;
    info.termination = "time forfeit";
    info.time_control = "180+2";
    info.clock_ms = {180000, 179400, 3725000};
    const std::string pdn = game->export_text(info);
    EXPECT_NE(pdn.find("[Result \"2-0\"]\n[GameType \"26,W,8,8,N2,0\"]\n"
                       "[Termination \"time forfeit\"]\n[TimeControl \"180+2\"]\n\n"),
              std::string::npos)
        << pdn;
    EXPECT_TRUE(
        pdn.ends_with("\n\n1. 22-18 {[%clk 0:03:00]} 1... 11-15 {[%clk 0:02:59]} 2. 18x11 "
                      "{[%clk 1:02:05]}\n2-0\n\n"))
        << pdn;
}

TEST(DraughtsGame, ExportCarriesAnAnalysedGamesEvaluationsBeforeTheClocks) {
    // As Lichess's PGN export of an analysed game (issue 42): {[%eval 0.17] [%clk 0:03:00]}, a
    // ply without a number (empty) keeping its clock alone.
    const auto game = game_from("startpos");
    testing::play_all(*game, {"22-18", "11-15"});
    ExportInfo info;
    info.clock_ms = {180000, 179400};
    info.evals = {"[%eval 0.17]", ""};
    EXPECT_TRUE(game->export_text(info).ends_with(
        "\n\n1. 22-18 {[%eval 0.17] [%clk 0:03:00]} 1... 11-15 {[%clk 0:02:59]} *\n\n"))
        << game->export_text(info);
    info.clock_ms.clear();
    info.evals = {"[%eval 0.17]", "[%eval #-2]"};
    EXPECT_TRUE(game->export_text(info).ends_with(
        "\n\n1. 22-18 {[%eval 0.17]} 1... 11-15 {[%eval #-2]} *\n\n"))
        << game->export_text(info);
}

TEST(DraughtsGame, ExportOfAnUntimedGameHasNoClockComments) {
    const auto game = game_from("startpos");
    testing::play_all(*game, {"22-18", "11-15"});
    ExportInfo info;
    info.time_control = "-";
    info.termination = "unterminated";
    const std::string pdn = game->export_text(info);
    EXPECT_NE(pdn.find("[TimeControl \"-\"]\n"), std::string::npos) << pdn;
    EXPECT_NE(pdn.find("[Termination \"unterminated\"]\n"), std::string::npos) << pdn;
    EXPECT_TRUE(pdn.ends_with("\n\n1. 22-18 11-15 *\n\n")) << pdn;
}

TEST(DraughtsGame, LongGamesWrapMovetext) {
    const auto game = game_from("W:WK32,21:BK1,12");
    testing::play_all(*game, {"32-27", "1-6", "27-23", "6-1", "23-32", "1-6", "32-27", "6-1",
                              "27-23", "1-6", "23-32", "6-1"});
    const std::string pdn = game->export_text(ExportInfo{});
    for (std::size_t start = 0, end = 0; end != std::string::npos; start = end + 1) {
        end = pdn.find('\n', start);
        EXPECT_LE((end == std::string::npos ? pdn.size() : end) - start, 80U);
    }
    EXPECT_TRUE(pdn.ends_with(" 6. 23-32 6-1 *\n\n")) << pdn;
}

TEST(DraughtsGame, RandomPlayoutsKeepNotationAndFenConsistent) {
    // Fixed-seed playouts: every listed move reads back as itself, every position re-parses to
    // a game with the same legal moves, and a game only ends with a decided status.
    std::uint32_t seed = 12345;
    const auto next_random = [&seed] {
        seed = seed * 1664525u + 1013904223u;
        return seed >> 8;
    };
    for (int playout = 0; playout < 60; ++playout) {
        const auto game = game_from("startpos");
        while (!game->status().over() && game->ply() < 300) {
            const auto moves = game->legal_moves();
            ASSERT_FALSE(moves.empty());
            for (const auto& move : moves) {
                ASSERT_EQ(game->to_wire(move).value_or("refused"), move) << game->position();
            }
            const auto copy = game_from(game->position());
            ASSERT_NE(copy, nullptr);
            EXPECT_EQ(testing::sorted_moves(*copy), testing::sorted_moves(*game));
            const auto& chosen = moves[next_random() % moves.size()];
            const auto played = game->play(chosen);
            ASSERT_TRUE(played.has_value()) << chosen << ": " << played.error().message;
            EXPECT_EQ(played->wire, chosen);
        }
        EXPECT_TRUE(game->status().over()) << game->position();
        EXPECT_TRUE(game->legal_moves().empty());
    }
}

}  // namespace
}  // namespace arbiter::rules::draughts
