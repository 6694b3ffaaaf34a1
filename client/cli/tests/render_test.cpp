#include <gtest/gtest.h>

#include <sstream>

#include "client/cli/render.hpp"

namespace arbiter::client {
namespace {

constexpr const char* kChessStart = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
constexpr const char* kXiangqiStart =
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
constexpr RenderStyle kPlain{false, false, false};

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) {
        lines.push_back(line);
    }
    return lines;
}

std::vector<std::string> draw(const std::string& variant, const std::string& fen,
                              bool flipped = false, RenderStyle style = kPlain,
                              const std::string& last = "") {
    auto text = render_board({variant, fen, flipped, last, style});
    EXPECT_TRUE(text) << text.error();
    return text ? lines_of(*text) : std::vector<std::string>{};
}

TEST(CliRenderChess, StartPositionInAsciiHasWhiteAtTheBottom) {
    auto lines = draw("chess", kChessStart);
    ASSERT_EQ(lines.size(), 10u);
    EXPECT_EQ(lines[0], "    a  b  c  d  e  f  g  h ");
    EXPECT_EQ(lines[1], " 8  r  n  b  q  k  b  n  r  8");
    EXPECT_EQ(lines[4], " 5  .     .     .     .     5");
    EXPECT_EQ(lines[5], " 4     .     .     .     .  4");
    EXPECT_EQ(lines[8], " 1  R  N  B  Q  K  B  N  R  1");
    EXPECT_EQ(lines[9], lines[0]);
}

TEST(CliRenderChess, FlippedPutsBlackAtTheBottom) {
    auto lines = draw("chess", kChessStart, true);
    ASSERT_EQ(lines.size(), 10u);
    EXPECT_EQ(lines[0], "    h  g  f  e  d  c  b  a ");
    EXPECT_EQ(lines[1], " 1  R  N  B  K  Q  B  N  R  1");
    EXPECT_EQ(lines[8], " 8  r  n  b  k  q  b  n  r  8");
}

TEST(CliRenderChess, UnicodeWithoutColourUsesOutlinedAndSolidShapes) {
    auto lines = draw("chess", kChessStart, false, {false, true, false});
    ASSERT_EQ(lines.size(), 10u);
    EXPECT_NE(lines[1].find("♚"), std::string::npos);
    EXPECT_NE(lines[8].find("♔"), std::string::npos);
    EXPECT_EQ(lines[1].find("\x1b"), std::string::npos);
}

TEST(CliRenderChess, ColourHighlightsTheLastMoveSquares) {
    const std::string fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    auto plain = render_board({"chess", fen, false, "", {true, true, false}});
    auto marked = render_board({"chess", fen, false, "e2e4", {true, true, false}});
    ASSERT_TRUE(plain && marked);
    auto count = [](const std::string& text) {
        std::size_t found = 0;
        for (auto at = text.find(ansi::kHighlightSquare); at != std::string::npos;
             at = text.find(ansi::kHighlightSquare, at + 1)) {
            ++found;
        }
        return found;
    };
    EXPECT_EQ(count(*plain), 0u);
    EXPECT_EQ(count(*marked), 2u);
}

TEST(CliRenderChess, RefusesWhatIsNotAPlacement) {
    for (const char* fen : {"", "rnbqkbnr/pppppppp", "9/8/8/8/8/8/8/8 w", "x7/8/8/8/8/8/8/8 w",
                            "8/8/8/8/8/8/8/8/8 w", "ppppppppp/8/8/8/8/8/8/8 w"}) {
        EXPECT_FALSE(render_board({"chess", fen, false, "", kPlain})) << fen;
    }
}

TEST(CliRenderXiangqi, StartPositionWithPalaceAndRiver) {
    auto lines = draw("xiangqi", kXiangqiStart);
    ASSERT_EQ(lines.size(), 13u);
    EXPECT_EQ(lines[0], "    a  b  c  d  e  f  g  h  i  ");
    EXPECT_EQ(lines[1], "10  r  n  b  a  k  a  b  n  r   10");
    EXPECT_EQ(lines[2], " 9  .  .  .  +  +  +  .  .  .    9");
    EXPECT_EQ(lines[5], " 6  .  .  .  .  .  .  .  .  .    6");
    EXPECT_NE(lines[6].find("river"), std::string::npos);
    EXPECT_EQ(lines[7], " 5  .  .  .  .  .  .  .  .  .    5");
    EXPECT_EQ(lines[10], " 2  .  .  .  +  +  +  .  .  .    2");
    EXPECT_EQ(lines[11], " 1  R  N  B  A  K  A  B  N  R    1");
}

TEST(CliRenderXiangqi, FlippedPutsBlackAtTheBottom) {
    auto lines = draw("xiangqi", "3k5/8R/R8/9/9/9/9/9/9/4K4 w - - 0 1", true);
    ASSERT_EQ(lines.size(), 13u);
    EXPECT_EQ(lines[0], "    i  h  g  f  e  d  c  b  a  ");
    EXPECT_EQ(lines[1], " 1  .  .  .  +  K  +  .  .  .    1");
    EXPECT_EQ(lines[11], "10  .  .  .  +  +  k  .  .  .   10");
}

TEST(CliRenderXiangqi, ChineseCharactersForBothSides) {
    auto lines = draw("xiangqi", kXiangqiStart, false, {false, true, false});
    ASSERT_EQ(lines.size(), 13u);
    EXPECT_NE(lines[1].find("將"), std::string::npos);
    EXPECT_NE(lines[11].find("帥"), std::string::npos);
    EXPECT_NE(lines[6].find("楚 河"), std::string::npos);
    EXPECT_NE(lines[2].find("＋"), std::string::npos);
}

TEST(CliRenderXiangqi, RefusesWhatIsNotAPlacement) {
    for (const char* fen :
         {"rnbakabnr/9/9 w", "rnbakabnrr/9/9/9/9/9/9/9/9/9 w", "xnbakabnr/9/9/9/9/9/9/9/9/9 w"}) {
        EXPECT_FALSE(render_board({"xiangqi", fen, false, "", kPlain})) << fen;
    }
}

TEST(CliRenderDraughts, PiecesSitOnTheirPdnSquares) {
    // 22 is c3 and 18 is d4 as White sees the board.
    auto lines = draw("draughts", "W:W22:B18");
    ASSERT_EQ(lines.size(), 10u);
    EXPECT_EQ(lines[0], "    a  b  c  d  e  f  g  h ");
    EXPECT_EQ(lines[5], " 4     .     b     .     .  4");
    EXPECT_EQ(lines[6], " 3  .     w     .     .     3");
}

TEST(CliRenderDraughts, NumbersOnRequestAndKingsAndRanges) {
    auto lines = draw("draughts", "B:W21-23,K32:BK1,5", false, {false, false, true});
    ASSERT_EQ(lines.size(), 10u);
    EXPECT_EQ(lines[1], " 8     B     2     3     4  8");
    EXPECT_EQ(lines[2], " 7  b     6     7     8     7");
    EXPECT_EQ(lines[6], " 3  w     w     w    24     3");
    EXPECT_EQ(lines[8], " 1 29    30    31     W     1");
}

TEST(CliRenderDraughts, FlippedPutsSquareFourAtBottomLeft) {
    auto lines = draw("draughts", "W:W32:B4", true);
    ASSERT_EQ(lines.size(), 10u);
    EXPECT_EQ(lines[0], "    h  g  f  e  d  c  b  a ");
    EXPECT_EQ(lines[1], " 1     w     .     .     .  1");
    EXPECT_EQ(lines[8], " 8  b     .     .     .     8");
}

TEST(CliRenderDraughts, RefusesWhatIsNotAPosition) {
    for (const char* fen : {"", "X:W1:B2", "W:W33:B1", "W:Wa:B1", "W:Q1", "W:W1-x"}) {
        EXPECT_FALSE(render_board({"draughts", fen, false, "", kPlain})) << fen;
    }
}

TEST(CliRender, UnknownVariantIsAnError) {
    EXPECT_FALSE(render_board({"go", "", false, "", kPlain}));
}

TEST(CliRender, ClockText) {
    EXPECT_EQ(format_clock(0), "0:00.0");
    EXPECT_EQ(format_clock(-20), "0:00.0");
    EXPECT_EQ(format_clock(9400), "0:09.4");
    EXPECT_EQ(format_clock(20000), "0:20");
    EXPECT_EQ(format_clock(65000), "1:05");
    EXPECT_EQ(format_clock(3723000), "1:02:03");
}

TEST(CliRender, SquaresOfWireMoves) {
    EXPECT_EQ(move_squares("e2e4"), (std::vector<std::string>{"e2", "e4"}));
    EXPECT_EQ(move_squares("e7e8q"), (std::vector<std::string>{"e7", "e8"}));
    EXPECT_EQ(move_squares("a8a10"), (std::vector<std::string>{"a8", "a10"}));
    EXPECT_EQ(move_squares("22x15x6"), (std::vector<std::string>{"22", "15", "6"}));
    EXPECT_EQ(move_squares("21-17"), (std::vector<std::string>{"21", "17"}));
    EXPECT_TRUE(move_squares("").empty());
}

}  // namespace
}  // namespace arbiter::client
