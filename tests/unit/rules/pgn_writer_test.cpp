// The PGN export format shared by chess and xiangqi: tag order, move number indications after
// comments, lines of fewer than 80 characters, and the empty line that ends a game.
#include "common/rules/pgn_writer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "tests/unit/rules/text_lines.hpp"

namespace arbiter::rules::pgn {
namespace {

using arbiter::test::lines_of;

TEST(PgnWriter, RosterComesFirstThenOtherTagsInAsciiOrder) {
    ExportInfo info;
    info.site = "Arbiter";
    info.date = "";
    info.first_player = "Ana \"the rook\"\n";
    const std::string tags = tag_section(
        info, "-", Outcome::draw,
        {{"Variant", "xiangqi"}, {"Termination", "normal"}, {"SetUp", "1"}, {"FEN", "x"}});
    EXPECT_EQ(tags,
              "[Event \"Arbiter game\"]\n"
              "[Site \"Arbiter\"]\n"
              "[Date \"????.??.??\"]\n"
              "[Round \"-\"]\n"
              "[White \"Ana \\\"the rook\\\"\"]\n"
              "[Black \"?\"]\n"
              "[Result \"1/2-1/2\"]\n"
              "[FEN \"x\"]\n"
              "[SetUp \"1\"]\n"
              "[Termination \"normal\"]\n"
              "[Variant \"xiangqi\"]\n"
              "\n");
}

TEST(PgnWriter, TimeControlIsATagAmongTheOthersOnlyWhenSet) {
    ExportInfo info;
    info.time_control = "300+2";
    const std::string tags =
        tag_section(info, "-", Outcome::ongoing, {{"Variant", "xiangqi"}, {"Termination", "x"}});
    const auto termination = tags.find("[Termination \"x\"]\n");
    const auto time_control = tags.find("[TimeControl \"300+2\"]\n");
    const auto variant = tags.find("[Variant \"xiangqi\"]\n");
    ASSERT_NE(time_control, std::string::npos) << tags;
    EXPECT_LT(termination, time_control);
    EXPECT_LT(time_control, variant);
    info.time_control.clear();
    EXPECT_EQ(tag_section(info, "-", Outcome::ongoing, {}).find("TimeControl"), std::string::npos);
}

TEST(PgnWriter, ClockCommandRoundsDownToWholeSeconds) {
    EXPECT_EQ(clock_command(300'000), "[%clk 0:05:00]");
    EXPECT_EQ(clock_command(3'725'999), "[%clk 1:02:05]");
    EXPECT_EQ(clock_command(999), "[%clk 0:00:00]");
    EXPECT_EQ(clock_command(-5), "[%clk 0:00:00]");
}

TEST(PgnWriter, EvalCommandsAreLichesss) {
    EXPECT_EQ(eval_command_centipawns(17), "[%eval 0.17]");
    EXPECT_EQ(eval_command_centipawns(0), "[%eval 0.00]");
    EXPECT_EQ(eval_command_centipawns(-5), "[%eval -0.05]");
    EXPECT_EQ(eval_command_centipawns(-1234), "[%eval -12.34]");
    EXPECT_EQ(eval_command_centipawns(300), "[%eval 3.00]");
    EXPECT_EQ(eval_command_mate(3), "[%eval #3]");
    EXPECT_EQ(eval_command_mate(-1), "[%eval #-1]");
}

TEST(PgnWriter, MoveCommandsPutTheEvaluationBeforeTheClock) {
    ExportInfo info;
    info.evals = {"[%eval 0.17]", "", "[%eval #1]"};
    info.clock_ms = {180000, 179000};
    EXPECT_EQ(move_commands(info, 0), "[%eval 0.17] [%clk 0:03:00]");
    EXPECT_EQ(move_commands(info, 1), "[%clk 0:02:59]");
    EXPECT_EQ(move_commands(info, 2), "[%eval #1]");
    EXPECT_EQ(move_commands(info, 3), "");
}

TEST(PgnWriter, SecondSideMoveAfterACommentCarriesItsMoveNumber) {
    Movetext movetext(1, Side::first);
    movetext.move("e4");
    movetext.comment("{[%clk 0:05:00]}");
    movetext.move("e5");
    movetext.comment("{[%clk 0:05:00]}");
    movetext.move("Nf3");
    movetext.move("Nc6");
    EXPECT_EQ(movetext.finish("*"),
              "1. e4 {[%clk 0:05:00]} 1... e5 {[%clk 0:05:00]} 2. Nf3 Nc6 *\n\n");
}

TEST(PgnWriter, MovetextStartingWithTheSecondSideNumbersItsFirstMove) {
    Movetext movetext(30, Side::second);
    movetext.move("Kd7");
    movetext.move("Ra7+");
    movetext.move("Kd6");
    EXPECT_EQ(movetext.finish("1-0"), "30... Kd7 31. Ra7+ Kd6 1-0\n\n");
}

TEST(PgnWriter, LinesStayUnder80Characters) {
    // PGN 8.2: export format lines are "less than 80 characters". A comment of 68 characters,
    // a space and "1. abcdefg" make 79: one line.
    Movetext fits(1, Side::first);
    fits.comment("{" + std::string(66, 'x') + "}");
    fits.move("abcdefg");
    const auto fitting = lines_of(fits.finish("*"));
    ASSERT_EQ(fitting.size(), 3U);
    EXPECT_EQ(fitting[0].size(), 79U) << fitting[0];
    EXPECT_EQ(fitting[1], "*");
    EXPECT_EQ(fitting[2], "") << "an empty line ends the game";
    // One more character would make 80: the move goes to the next line.
    Movetext breaks(1, Side::first);
    breaks.comment("{" + std::string(67, 'x') + "}");
    breaks.move("abcdefg");
    const auto broken = lines_of(breaks.finish("*"));
    ASSERT_EQ(broken.size(), 3U);
    EXPECT_EQ(broken[0].size(), 69U) << broken[0];
    EXPECT_EQ(broken[1], "1. abcdefg *");
    EXPECT_EQ(broken[2], "");
}

TEST(PgnWriter, LongMovetextWrapsWithoutLosingOrSplittingTokens) {
    Movetext movetext(1, Side::first);
    std::string expected;
    for (int ply = 0; ply < 200; ++ply) {
        const std::string move = std::string(static_cast<std::size_t>(2 + ply % 6), 'a');
        movetext.move(move);
        const std::string comment = "{[%clk 0:0" + std::to_string(ply % 10) + ":00]}";
        movetext.comment(comment);
        const std::string number = std::to_string(ply / 2 + 1);
        expected += (ply % 2 == 0 ? number + ". " : number + "... ") + move + " " + comment + " ";
    }
    expected += "*";
    const std::string text = movetext.finish("*");
    const auto lines = lines_of(text);
    ASSERT_GT(lines.size(), 20U);
    ASSERT_EQ(lines.back(), "");
    std::string joined;
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
        EXPECT_LT(lines[i].size(), 80U) << lines[i];
        EXPECT_FALSE(lines[i].empty());
        EXPECT_NE(lines[i].front(), ' ');
        EXPECT_NE(lines[i].back(), ' ');
        joined += (joined.empty() ? "" : " ") + lines[i];
    }
    EXPECT_EQ(joined, expected);
    // No line broke inside a comment or between a move number and its move.
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
        EXPECT_EQ(std::count(lines[i].begin(), lines[i].end(), '{'),
                  std::count(lines[i].begin(), lines[i].end(), '}'))
            << lines[i];
        EXPECT_NE(lines[i].back(), '.') << lines[i];
    }
}

}  // namespace
}  // namespace arbiter::rules::pgn
