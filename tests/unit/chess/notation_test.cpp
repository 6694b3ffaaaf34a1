// Move notation (UCI in and out, SAN in and out) and PGN export.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <sstream>

#include "tests/unit/chess/chess_test_util.hpp"
#include "tests/unit/rules/text_lines.hpp"

namespace arbiter::rules::chess_test {
namespace {

TEST(ChessUci, RefusesMalformedAndIllegalMovesWithoutChangingTheGame) {
    auto game = game_from("startpos");
    for (const char* bad : {"", "e2", "e2e", "e2e4x", "e2e4e5", "E2E4", "i2i4", "e0e4", "e2-e4",
                            "e2e5", "e7e5", "e3e4", "g1g3", "O-O", "e1g1"}) {
        const auto played = game->play(bad);
        ASSERT_FALSE(played.has_value()) << bad;
        EXPECT_FALSE(played.error().message.empty()) << bad;
    }
    EXPECT_EQ(game->ply(), 0U);
    EXPECT_EQ(game->position(), game->initial_position());
    EXPECT_NE(game->play("e7e5").error().message.find("opponent"), std::string::npos);
    EXPECT_NE(game->play("e3e4").error().message.find("no piece"), std::string::npos);
    EXPECT_EQ(game->play("e2e5").error().message, "e2e5: a pawn cannot move there");
}

// The game checks a move against the legal moves it listed for the position now on the board: a
// move its side could play two plies ago, which now leaves the king in check, is refused.
TEST(ChessUci, RefusesAMoveThatWasLegalBeforeTheOpponentGaveCheck) {
    auto game = game_from("startpos");
    play_all(*game, {"e2e4", "f7f5", "d1h5"});  // 2.Qh5+: the queen sees e8 through g6 and f7
    const auto refused = game->play("g8f6");    // legal on black's first move; no cover now
    ASSERT_FALSE(refused.has_value());
    EXPECT_EQ(refused.error().message, "g8f6: your king is in check");
    EXPECT_EQ(game->ply(), 3U);
    EXPECT_FALSE(game->to_wire("g8f6").has_value());
    const auto block = game->play("g7g6");
    ASSERT_TRUE(block.has_value());
    EXPECT_EQ(block->notation, "g6");
}

TEST(ChessUci, PlayReportsWireSanAndCapture) {
    auto game = game_from("startpos");
    const auto first = game->play("e2e4");
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(first->wire, "e2e4");
    EXPECT_EQ(first->notation, "e4");
    EXPECT_FALSE(first->capture);
    play_all(*game, {"d7d5"});
    const auto take = game->play("e4d5");
    ASSERT_TRUE(take.has_value());
    EXPECT_EQ(take->notation, "exd5");
    EXPECT_TRUE(take->capture);
    EXPECT_EQ(game->moves(), (std::vector<std::string>{"e2e4", "d7d5", "e4d5"}));
    EXPECT_EQ(game->turn(), Side::second);
    EXPECT_EQ(game->ply(), 3U);
}

TEST(ChessSan, DisambiguatesByFile) {
    auto game = game_from("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1");
    EXPECT_EQ(game->to_wire("Nbd2").value_or(""), "b1d2");
    EXPECT_EQ(game->to_wire("Nfd2").value_or(""), "f1d2");
    EXPECT_EQ(game->to_wire("Nb1d2").value_or(""), "b1d2");  // over-disambiguated is fine
    const auto ambiguous = game->to_wire("Nd2");
    ASSERT_FALSE(ambiguous.has_value());
    EXPECT_NE(ambiguous.error().message.find("ambiguous"), std::string::npos);
    EXPECT_EQ(game->to_wire("Nc3").value_or(""), "b1c3");  // only one knight reaches c3
    EXPECT_EQ(game->play("b1d2")->notation, "Nbd2");
}

TEST(ChessSan, DisambiguatesByRank) {
    auto game = game_from("4k3/8/8/1N6/8/1N6/8/4K3 w - - 0 1");
    EXPECT_EQ(game->to_wire("N5d4").value_or(""), "b5d4");
    EXPECT_EQ(game->to_wire("N3d4").value_or(""), "b3d4");
    EXPECT_FALSE(game->to_wire("Nbd4").has_value());
    EXPECT_EQ(game->play("b3d4")->notation, "N3d4");
}

TEST(ChessSan, DisambiguatesByFileAndRank) {
    auto game = game_from("4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1");
    EXPECT_EQ(game->to_wire("Qa1b2").value_or(""), "a1b2");
    EXPECT_EQ(game->to_wire("Q3b2").value_or(""), "a3b2");
    EXPECT_EQ(game->to_wire("Qcb2").value_or(""), "c1b2");
    EXPECT_FALSE(game->to_wire("Qab2").has_value());
    EXPECT_FALSE(game->to_wire("Q1b2").has_value());
    EXPECT_EQ(game->clone()->play("a1b2")->notation, "Qa1b2");
    EXPECT_EQ(game->clone()->play("a3b2")->notation, "Q3b2");
    EXPECT_EQ(game->clone()->play("c1b2")->notation, "Qcb2");
}

TEST(ChessSan, ReadsCastlingPromotionAndSuffixes) {
    auto castle = game_from("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    EXPECT_EQ(castle->to_wire("O-O").value_or(""), "e1g1");
    EXPECT_EQ(castle->to_wire("0-0-0").value_or(""), "e1c1");
    EXPECT_EQ(castle->to_wire("O-O+").value_or(""), "e1g1");
    auto promote = game_from("3r3k/4P3/8/8/8/8/8/K7 w - - 0 1");
    EXPECT_EQ(promote->to_wire("exd8=Q+").value_or(""), "e7d8q");
    EXPECT_EQ(promote->to_wire("exd8=Q").value_or(""), "e7d8q");
    EXPECT_EQ(promote->to_wire("exd8Q").value_or(""), "e7d8q");
    EXPECT_EQ(promote->to_wire("e8=N").value_or(""), "e7e8n");
    EXPECT_EQ(promote->to_wire("e7e8r").value_or(""), "e7e8r");
    EXPECT_FALSE(promote->to_wire("e8").has_value());
    EXPECT_FALSE(promote->to_wire("e8=K").has_value());
    EXPECT_EQ(promote->clone()->play("e7d8q")->notation, "exd8=Q+");
}

TEST(ChessSan, RefusesACaptureMarkOnAMoveThatCapturesNothing) {
    // FIDE Appendix C.9: "x" marks a capture; here only f3 holds a piece to take.
    auto game = game_from("4k3/8/8/8/8/5p2/3P4/4K1N1 w - - 0 1");
    EXPECT_EQ(game->to_wire("Nxf3").value_or(""), "g1f3");
    EXPECT_EQ(game->to_wire("Nf3").value_or(""), "g1f3");  // the optional "x" left out
    EXPECT_EQ(game->to_wire("Nh3").value_or(""), "g1h3");
    EXPECT_FALSE(game->to_wire("Nxh3").has_value());
    EXPECT_EQ(game->to_wire("d3").value_or(""), "d2d3");
    EXPECT_FALSE(game->to_wire("dxd3").has_value());
    EXPECT_FALSE(game->to_wire("xd3").has_value());
    EXPECT_FALSE(game->to_wire("Kxf2").has_value());
}

TEST(ChessSan, ReadsTheEnPassantMarkOnlyOnAnEnPassantCapture) {
    // FIDE Appendix C.9.3: "e.p." may be appended to an en-passant capture.
    auto game = game_from("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
    EXPECT_EQ(game->to_wire("exd6").value_or(""), "e5d6");
    EXPECT_EQ(game->to_wire("exd6 e.p.").value_or(""), "e5d6");
    EXPECT_EQ(game->to_wire("exd6e.p.").value_or(""), "e5d6");
    EXPECT_FALSE(game->to_wire("e6 e.p.").has_value());
    EXPECT_FALSE(game->to_wire("Kd2 e.p.").has_value());
    EXPECT_FALSE(game->to_wire("e.p.").has_value());
}

TEST(ChessSan, RefusesIllegalAndMalformedText) {
    auto game = game_from("startpos");
    for (const char* bad :
         {"", "Ke2", "e5", "Nf4", "O-O", "Zf3", "exd5", "d4d5", "Nf3x", "xx", "Ng1f3g"}) {
        EXPECT_FALSE(game->to_wire(bad).has_value()) << bad;
    }
    EXPECT_EQ(game->to_wire("Nf3").value_or(""), "g1f3");
    EXPECT_EQ(game->to_wire("e4").value_or(""), "e2e4");
    EXPECT_EQ(game->to_wire("g1f3").value_or(""), "g1f3");
}

using arbiter::test::lines_of;

/// The clock command "[%clk h:mm:ss]" of a clock in ms, whole seconds rounded down.
std::string clock_text(std::int64_t ms) {
    const std::int64_t seconds = ms / 1000;
    char text[64];
    std::snprintf(text, sizeof text, "[%%clk %lld:%02lld:%02lld]",
                  static_cast<long long>(seconds / 3600), static_cast<long long>(seconds / 60 % 60),
                  static_cast<long long>(seconds % 60));
    return text;
}

TEST(ChessPgn, ExportsTheSevenTagRosterMovesAndResult) {
    auto game = game_from("startpos");
    play_all(*game, {"f2f3", "e7e5", "g2g4", "d8h4"});
    ExportInfo info;
    info.site = "Arbiter";
    info.date = "2026.11.30";
    info.first_player = "Alice \"A\"";
    info.second_player = "Bob";
    const std::string pgn = game->export_text(info);
    EXPECT_EQ(pgn,
              "[Event \"Arbiter game\"]\n"
              "[Site \"Arbiter\"]\n"
              "[Date \"2026.11.30\"]\n"
              "[Round \"-\"]\n"
              "[White \"Alice \\\"A\\\"\"]\n"
              "[Black \"Bob\"]\n"
              "[Result \"0-1\"]\n"
              "[Termination \"normal\"]\n"
              "\n"
              "1. f3 e5 2. g4 Qh4# 0-1\n"
              "\n");
}

TEST(ChessPgn, NonStandardStartGetsSetUpAndFenAndBlackMovesFirst) {
    const std::string fen = "4k3/8/8/8/8/8/8/R3K3 b - - 0 30";
    auto game = game_from(fen);
    play_all(*game, {"e8d7", "a1a7", "d7d6"});
    ExportInfo info;
    info.outcome = Outcome::first_wins;
    info.termination = "time forfeit";
    info.clock_ms = {65'000, 3'600'000, 1'500};
    const std::string pgn = game->export_text(info);
    EXPECT_NE(pgn.find("[Date \"????.??.??\"]\n"), std::string::npos);
    EXPECT_NE(pgn.find("[White \"?\"]\n"), std::string::npos);
    // PGN 8.1.1: after the roster, the other tags in ASCII order of their names.
    EXPECT_NE(pgn.find("[Result \"1-0\"]\n[FEN \"" + fen +
                       "\"]\n[SetUp \"1\"]\n[Termination \"time forfeit\"]\n\n"),
              std::string::npos)
        << pgn;
    // PGN 8.2.2.2: a black move after a comment carries its move number. The first line has
    // 79 characters: the result goes to the next (PGN 8.2: lines of less than 80).
    EXPECT_NE(pgn.find("\n\n30... Kd7 {[%clk 0:01:05]} 31. Ra7+ {[%clk 1:00:00]} 31... Kd6 "
                       "{[%clk 0:00:01]}\n1-0\n\n"),
              std::string::npos)
        << pgn;
}

TEST(ChessPgn, OngoingGameIsUnterminatedAndLinesStayUnder80Characters) {
    auto game = game_from("startpos");
    ExportInfo info;
    // 40 plies of the king's knights and queen's knights wandering out and back never repeat a
    // position three times, so the game stays ongoing.
    play_all(*game,
             {"g1f3", "g8f6", "b1c3", "b8c6", "f3g5", "f6g4", "c3b5", "c6b4", "g5e4", "g4e5",
              "b5d4", "b4d5", "e4c5", "e5c4", "d4b3", "d5b6", "c5a4", "c4a5", "b3c5", "b6c4"});
    for (int ply = 0; ply < 20; ++ply) {
        info.clock_ms.push_back(300'000 - ply * 1000);
    }
    ASSERT_EQ(game->status(), Status{});
    const std::string pgn = game->export_text(info);
    EXPECT_NE(pgn.find("[Result \"*\"]"), std::string::npos);
    EXPECT_NE(pgn.find("[Termination \"unterminated\"]"), std::string::npos);
    const auto lines = lines_of(pgn);
    const auto blank = std::find(lines.begin(), lines.end(), "");
    ASSERT_NE(blank, lines.end());
    EXPECT_GT(lines.end() - blank - 1, 3);  // the movetext wrapped onto several lines
    EXPECT_EQ(lines.back(), "") << "an empty line ends the game";
    std::string movetext;
    for (auto line = blank + 1; line + 1 != lines.end(); ++line) {
        EXPECT_LT(line->size(), 80U) << *line;  // PGN 8.2: "less than 80"
        movetext += (movetext.empty() ? "" : " ") + *line;
    }
    EXPECT_EQ(movetext.substr(0, 38), "1. Nf3 {[%clk 0:05:00]} 1... Nf6 {[%cl");
    // Both knights b6 and a5 reach c4.
    const std::string ending = " 10... Nbc4 {[%clk 0:04:41]} *";
    EXPECT_EQ(movetext.substr(movetext.size() - ending.size()), ending);
}

TEST(ChessPgn, BlackMoveAfterACommentCarriesItsMoveNumber) {
    auto game = game_from("startpos");
    play_all(*game, {"e2e4", "e7e5", "g1f3"});
    ExportInfo info;
    info.clock_ms = {300'000, 300'000, 298'500};
    const std::string pgn = game->export_text(info);
    // PGN 8.2.2.2: a black move that follows a comment is written "1... e5".
    const std::string movetext =
        "\n\n1. e4 {[%clk 0:05:00]} 1... e5 {[%clk 0:05:00]} 2. Nf3 {[%clk 0:04:58]} *\n\n";
    ASSERT_GE(pgn.size(), movetext.size());
    EXPECT_EQ(pgn.substr(pgn.size() - movetext.size()), movetext) << pgn;
}

TEST(ChessPgn, LongTimedGameKeepsEveryMovetextLineUnder80Characters) {
    auto game = game_from("startpos");
    ExportInfo info;
    std::string expected;  // the movetext on one line, as PGN 8.2.2.2 numbers it
    std::mt19937 random(20261130);
    for (int ply = 0; ply < 200 && !game->status().over(); ++ply) {
        const auto legal = game->legal_moves();
        const auto played = game->play(legal[random() % legal.size()]);
        ASSERT_TRUE(played.has_value());
        info.clock_ms.push_back(5'400'000 - std::int64_t{ply} * 26'017);
        const std::string number = std::to_string(ply / 2 + 1) + (ply % 2 == 0 ? ". " : "... ");
        expected += number + played->notation + " {" + clock_text(info.clock_ms.back()) + "} ";
    }
    ASSERT_GT(game->ply(), 60U);
    const std::string result(result_string(game->status().outcome));
    expected += result;
    const std::string pgn = game->export_text(info);
    const auto lines = lines_of(pgn);
    const auto blank = std::find(lines.begin(), lines.end(), "");
    ASSERT_NE(blank, lines.end());
    ASSERT_EQ(lines.back(), "") << "an empty line ends the game";
    EXPECT_GT(lines.end() - blank, 20);
    std::string movetext;
    for (auto line = blank + 1; line + 1 != lines.end(); ++line) {
        EXPECT_LT(line->size(), 80U) << *line;  // PGN 8.2: "less than 80"
        movetext += (movetext.empty() ? "" : " ") + *line;
    }
    EXPECT_EQ(movetext, expected);
}

}  // namespace
}  // namespace arbiter::rules::chess_test
