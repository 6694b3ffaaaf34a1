// Wire, WXF, Chinese and SAN notation, and the PGN export.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "common/rules/game.hpp"
#include "helpers.hpp"
#include "test_paths.hpp"

namespace arbiter::rules::xiangqi {
namespace {

using test::fen_of;

std::string wxf(std::string_view fen, std::string_view wire) {
    auto position = Position::from_fen(fen);
    auto move = parse_wire(wire);
    return position && move && is_legal(*position, *move) ? wxf_notation(*position, *move)
                                                          : "illegal";
}

std::string chinese(std::string_view fen, std::string_view wire) {
    auto position = Position::from_fen(fen);
    auto move = parse_wire(wire);
    return position && move && is_legal(*position, *move) ? chinese_notation(*position, *move)
                                                          : "illegal";
}

TEST(XiangqiNotation, PlayReportsWxfAsFairyStockfishOrdersIt) {
    auto game = make_game(Variant::xiangqi, "startpos");
    ASSERT_TRUE(game);
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"h3e3", "C2.5"},  {"h10g8", "H8+7"}, {"h1g3", "H2+3"},
        {"c10e8", "E3+5"}, {"a1a3", "R9+2"},  {"i10h10", "R9.8"}};
    for (const auto& [wire, notation] : expected) {
        auto played = (*game)->play(wire);
        ASSERT_TRUE(played) << wire;
        EXPECT_EQ(played->wire, wire);
        EXPECT_EQ(played->notation, notation);
        EXPECT_FALSE(played->capture);
    }
    auto capture = (*game)->play("e3e7");
    ASSERT_TRUE(capture);
    EXPECT_TRUE(capture->capture);
    EXPECT_EQ(capture->notation, "C5+4");
}

TEST(XiangqiNotation, WxfRetreatAndTandemPieces) {
    EXPECT_EQ(wxf(fen_of({"K e1", "R a5", "k d10"}), "a5a2"), "R9-3");
    const std::string red = fen_of({"K e1", "R a1", "R a5", "k d10"});
    EXPECT_EQ(wxf(red, "a5a6"), "+R+1");
    EXPECT_EQ(wxf(red, "a1a2"), "-R+1");
    EXPECT_EQ(wxf(red, "a5b5"), "+R.8");
    const std::string black = fen_of({"K e1", "r b9", "r b6", "k d10"}, 'b');
    EXPECT_EQ(wxf(black, "b6b5"), "+R+1") << "black's front is toward red";
    EXPECT_EQ(wxf(black, "b9b8"), "-R+1");
}

TEST(XiangqiNotation, WxfSoldiersSeveralToAFileOrOnTwoFiles) {
    const std::string two = fen_of({"K d1", "P c6", "P c7", "k f10"});
    EXPECT_EQ(wxf(two, "c7c8"), "+P+1");
    EXPECT_EQ(wxf(two, "c6b6"), "-P.8");
    const std::string three = fen_of({"K d1", "P e6", "P e7", "P e8", "k f10"});
    EXPECT_EQ(wxf(three, "e8e9"), "15+1");
    EXPECT_EQ(wxf(three, "e7d7"), "25.6");
    EXPECT_EQ(wxf(three, "e6f6"), "35.4");
    const std::string two_files = fen_of({"K d1", "P c6", "P c7", "P g6", "P g7", "k f10"});
    EXPECT_EQ(wxf(two_files, "c7c8"), "17+1");
    EXPECT_EQ(wxf(two_files, "g6h6"), "23.2");
}

TEST(XiangqiNotation, AdvisorsAndElephantsOnOneFileKeepTheirFile) {
    // WXF and Chinese scoresheets mark front and rear only where the move would be ambiguous:
    // two advisors or elephants on one file never reach the same point with the same direction,
    // so they keep the file ("A6+5", "E7-5"; 仕六进五, 相七退五).
    const std::string advisors = fen_of({"K e1", "A d1", "A d3", "k f10"});
    EXPECT_EQ(wxf(advisors, "d1e2"), "A6+5");
    EXPECT_EQ(wxf(advisors, "d3e2"), "A6-5");
    EXPECT_EQ(chinese(advisors, "d1e2"), "仕六进五");
    const std::string elephants = fen_of({"K e1", "B c1", "B c5", "k d10"});
    EXPECT_EQ(wxf(elephants, "c1e3"), "E7+5");
    EXPECT_EQ(wxf(elephants, "c1a3"), "E7+9");
    EXPECT_EQ(wxf(elephants, "c5e3"), "E7-5");
    EXPECT_EQ(wxf(elephants, "c5a3"), "E7-9");
    EXPECT_EQ(chinese(elephants, "c5e3"), "相七退五");
    const std::string black = fen_of({"K d1", "a f10", "a f8", "k e10"}, 'b');
    EXPECT_EQ(wxf(black, "f10e9"), "A6+5");
    EXPECT_EQ(wxf(black, "f8e9"), "A6-5");
    EXPECT_EQ(chinese(black, "f8e9"), "士６退５");
    // A chariot keeps the game going (advisors and elephants alone draw at once).
    auto game = make_game(Variant::xiangqi, fen_of({"K e1", "A d1", "A d3", "R a1", "k f10"}));
    ASSERT_TRUE(game);
    EXPECT_EQ((*game)->to_wire("A6+5").value_or("refused"), "d1e2");
    EXPECT_EQ((*game)->to_wire("A6-5").value_or("refused"), "d3e2");
}

TEST(XiangqiNotation, HostileTextIsRefusedWithoutHarm) {
    auto game = make_game(Variant::xiangqi, fen_of({"K d1", "P e6", "P e7", "P e8", "k f10"}));
    ASSERT_TRUE(game);
    std::mt19937 random(20261201);
    const std::string alphabet = "+-.=0123456789abcdefghijkKAEHRCPNBx \xff\x80";
    for (int round = 0; round < 3000; ++round) {
        std::string text;
        const auto length = random() % 9;
        for (std::size_t i = 0; i < length; ++i) {
            text += alphabet[random() % alphabet.size()];
        }
        auto wire = (*game)->to_wire(text);
        if (wire) {
            EXPECT_TRUE(parse_wire(*wire)) << text;
        }
        auto played = (*game)->clone()->play(text);
        EXPECT_EQ(played.has_value(), wire.has_value() && *wire == text) << text;
    }
    EXPECT_FALSE(parse_wire("a10a10a"));
    EXPECT_FALSE(parse_wire("a1"));
    EXPECT_FALSE(parse_wire("j1a1"));
    EXPECT_FALSE(parse_wire("a0a1"));
    EXPECT_FALSE(parse_wire("a11a1"));
}

TEST(XiangqiNotation, ChineseNotationRedNumeralsBlackFullWidthDigits) {
    auto moves = chinese_notation("", {"h3e3", "h10g8", "h1g3", "c10e8", "b3b10"});
    ASSERT_TRUE(moves);
    EXPECT_EQ(*moves, (std::vector<std::string>{"炮二平五", "马８进７", "马二进三", "象３进５",
                                                "炮八进七"}));
    EXPECT_EQ(chinese(fen_of({"K e1", "R a5", "k d10"}), "a5a2"), "车九退三");
    EXPECT_EQ(chinese(fen_of({"K e1", "r b9", "r b6", "k d10"}, 'b'), "b9b8"), "后车进１");
    const std::string three = fen_of({"K d1", "P e6", "P e7", "P e8", "k f10"});
    EXPECT_EQ(chinese(three, "e8e9"), "前兵进一");
    EXPECT_EQ(chinese(three, "e7d7"), "中兵平六");
    EXPECT_EQ(chinese(three, "e6f6"), "后兵平四");
    const std::string two_files = fen_of({"K d1", "P c6", "P c7", "P g6", "P g7", "k f10"});
    EXPECT_EQ(chinese(two_files, "c7c8"), "前七进一");
    EXPECT_EQ(chinese(two_files, "g6h6"), "后三平二");
    EXPECT_EQ(chinese(fen_of({"K d1", "A e2", "k f10"}), "e2f3"), "仕五进四");
    EXPECT_EQ(chinese(fen_of({"K e1", "k e9", "b e8", "P a6"}, 'b'), "e9f9"), "将５平６");
    EXPECT_FALSE(chinese_notation("", {"h3e3", "h3e3"}));
    EXPECT_FALSE(chinese_notation("bad fen", {}));
}

TEST(XiangqiNotation, ToWireAcceptsWireAndWxfSpellings) {
    auto game = make_game(Variant::xiangqi, "startpos");
    ASSERT_TRUE(game);
    for (const char* text : {"h3e3", "C2.5", "C2=5", "c2.5"}) {
        auto wire = (*game)->to_wire(text);
        ASSERT_TRUE(wire) << text;
        EXPECT_EQ(*wire, "h3e3") << text;
    }
    EXPECT_EQ((*game)->to_wire("N2+3").value_or(""), "h1g3");
    EXPECT_EQ((*game)->to_wire("B3+5").value_or(""), "g1e3");
    EXPECT_EQ((*game)->to_wire("E7+5").value_or(""), "c1e3");
    for (const char* text : {"C2.4x", "C2+5", "h3e4", "R1+10", "", "炮二平五"}) {
        EXPECT_FALSE((*game)->to_wire(text)) << text;
    }
    auto tandem = make_game(Variant::xiangqi, fen_of({"K e1", "R a1", "R a5", "k d10"}));
    ASSERT_TRUE(tandem);
    EXPECT_EQ((*tandem)->to_wire("R++1").value_or(""), "a5a6");
    EXPECT_EQ((*tandem)->to_wire("-R+1").value_or(""), "a1a2");
    EXPECT_FALSE((*tandem)->to_wire("R9+1")) << "two chariots on file 9: ambiguous";
    auto pawns = make_game(Variant::xiangqi, fen_of({"K d1", "P e6", "P e7", "P e8", "k f10"}));
    ASSERT_TRUE(pawns);
    EXPECT_EQ((*pawns)->to_wire("25.6").value_or(""), "e7d7");
    EXPECT_EQ((*pawns)->to_wire("35=4").value_or(""), "e6f6");
    EXPECT_FALSE((*pawns)->to_wire("P5.6")) << "three soldiers on file 5: ambiguous";
}

TEST(XiangqiNotation, WxfRoundTripsOverEveryLegalMoveOfTheReferencePositions) {
    std::ifstream in(std::string(ARBITER_TEST_DATA_DIR) + "/reference/xiangqi-perft.epd");
    std::string line;
    std::size_t checked = 0;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        const std::string fen = line.substr(0, line.find(" ;"));
        auto position = Position::from_fen(fen);
        auto game = make_game(Variant::xiangqi, fen);
        ASSERT_TRUE(position && game) << fen;
        MoveList list;
        legal_moves(*position, list);
        std::set<std::string> chinese_forms;
        for (Move move : list) {
            const std::string notation = wxf_notation(*position, move);
            EXPECT_EQ((*game)->to_wire(notation).value_or("refused"), wire_notation(move))
                << fen << " " << notation;
            chinese_forms.insert(chinese_notation(*position, move));
            ++checked;
        }
        EXPECT_EQ(chinese_forms.size(), list.size()) << fen;
        EXPECT_EQ((*game)->legal_moves().size(), list.size());
    }
    EXPECT_GT(checked, 300U);
}

TEST(XiangqiPgn, ExportsTheMoveListsWxfNotation) {
    // One notation story: the movetext is the WXF of the move list (PlayedMove::notation), and
    // [Format "WXF"] (XQ PGN) names it.
    auto game = make_game(Variant::xiangqi, "startpos");
    ASSERT_TRUE(game);
    for (const char* move : {"h3e3", "h10g8", "e3e7"}) {
        ASSERT_TRUE((*game)->play(move));
    }
    ExportInfo info;
    info.event = "Club \"open\"";
    info.date = "2026.11.30";
    info.first_player = "Red player";
    info.second_player = "Black player";
    info.termination = "normal";
    info.clock_ms = {300000, 299500, 3725000};
    const std::string pgn = (*game)->export_text(info);
    EXPECT_NE(pgn.find("[Event \"Club \\\"open\\\"\"]\n[Site \"?\"]\n[Date \"2026.11.30\"]\n"
                       "[Round \"?\"]\n[White \"Red player\"]\n[Black \"Black player\"]\n"
                       "[Result \"*\"]\n[Format \"WXF\"]\n[Termination \"normal\"]\n"
                       "[Variant \"xiangqi\"]\n\n"),
              std::string::npos)
        << pgn;
    EXPECT_EQ(pgn.find("[FEN"), std::string::npos) << "standard start: no FEN tag";
    // PGN 8.2.2.2: a black move that follows a comment carries its move number.
    EXPECT_NE(pgn.find("\n\n1. C2.5 { [%clk 0:05:00] } 1... H8+7 { [%clk 0:04:59] } 2. C5+4\n"
                       "{ [%clk 1:02:05] } *\n\n"),
              std::string::npos)
        << pgn;
}

TEST(XiangqiPgn, TandemPiecesAreWrittenFrontAndRearAsInTheMoveList) {
    auto game = make_game(Variant::xiangqi, fen_of({"K e1", "R a1", "R a5", "k d10"}));
    ASSERT_TRUE(game);
    for (const char* move : {"a1a3", "d10d9", "a5a4"}) {
        ASSERT_TRUE((*game)->play(move)) << move;
    }
    const std::string pgn = (*game)->export_text(ExportInfo{});
    EXPECT_NE(pgn.find("\n\n1. -R+2 K4+1 2. +R-1 *\n\n"), std::string::npos) << pgn;
}

TEST(XiangqiPgn, NonStandardStartCarriesFenAndTheResult) {
    const std::string fen = fen_of({"K d1", "R a9", "R b8", "k e10"}, 'b');
    auto game = make_game(Variant::xiangqi, fen);
    ASSERT_TRUE(game);
    ASSERT_TRUE((*game)->play("e10f10"));
    ASSERT_TRUE((*game)->play("b8b10"));
    EXPECT_FALSE((*game)->play("f10f9"));
    const std::string pgn = (*game)->export_text(ExportInfo{});
    // PGN 8.1.1: the roster, then the other tags in ASCII order of their names.
    EXPECT_NE(pgn.find("[Result \"1-0\"]\n[FEN \"" + fen +
                       "\"]\n[Format \"WXF\"]\n[SetUp \"1\"]\n[Variant \"xiangqi\"]\n\n"),
              std::string::npos)
        << pgn;
    EXPECT_EQ(pgn.rfind("[Event ", 0), 0U) << "the roster comes first";
    EXPECT_NE(pgn.find("\n\n1... K5.6 2. R8+2 1-0\n\n"), std::string::npos) << pgn;
}

TEST(XiangqiPgn, LongTimedGameIsWrappedIntoLinesUnder80Characters) {
    auto game = make_game(Variant::xiangqi, "startpos");
    ASSERT_TRUE(game);
    ExportInfo info;
    std::mt19937 random(20261130);
    for (int ply = 0; ply < 120 && !(*game)->status().over(); ++ply) {
        const auto legal = (*game)->legal_moves();
        ASSERT_TRUE((*game)->play(legal[random() % legal.size()]));
        info.clock_ms.push_back(5'400'000 - std::int64_t{ply} * 26'017);
    }
    ASSERT_GT((*game)->ply(), 30U);
    const std::string pgn = (*game)->export_text(info);
    std::vector<std::string> lines;
    std::istringstream in(pgn);
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    const auto blank = std::find(lines.begin(), lines.end(), "");
    ASSERT_NE(blank, lines.end());
    ASSERT_EQ(lines.back(), "") << "an empty line ends the game";
    EXPECT_GT(lines.end() - blank, 10) << "the movetext is wrapped";
    std::string movetext;
    for (auto line = blank + 1; line + 1 != lines.end(); ++line) {
        EXPECT_LT(line->size(), 80U) << *line;  // PGN 8.2: "less than 80"
        movetext += (movetext.empty() ? "" : " ") + *line;
    }
    // Every ply kept its clock comment, and every black move (each follows a comment) its
    // move number.
    std::size_t comments = 0;
    std::size_t black_numbers = 0;
    for (std::size_t at = movetext.find("{ [%clk "); at != std::string::npos;
         at = movetext.find("{ [%clk ", at + 1)) {
        ++comments;
    }
    for (std::size_t at = movetext.find("... "); at != std::string::npos;
         at = movetext.find("... ", at + 1)) {
        ++black_numbers;
    }
    EXPECT_EQ(comments, (*game)->ply());
    EXPECT_EQ(black_numbers, (*game)->ply() / 2);
    const std::string result = " " + std::string(result_string((*game)->status().outcome));
    ASSERT_GT(movetext.size(), result.size());
    EXPECT_EQ(movetext.substr(movetext.size() - result.size()), result) << movetext;
}

}  // namespace
}  // namespace arbiter::rules::xiangqi
