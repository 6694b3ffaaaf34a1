// Where the clock lines are once the screen was drawn (issue 41: clock lines were written over
// other lines once the screen had scrolled).

#include "client/cli/terminal.hpp"

#include <gtest/gtest.h>

namespace arbiter::client {
namespace {

TEST(CliTerminal, RowsTakenCountLineEndsAndWrappedLinesButNoEscapes) {
    EXPECT_EQ(rows_taken("one\ntwo\n", 80), 2);
    EXPECT_EQ(rows_taken(std::string(100, 'x') + "\n", 80), 2);
    EXPECT_EQ(rows_taken(std::string(80, 'x') + "\n", 80), 1);
    EXPECT_EQ(rows_taken("\x1b[48;5;180m" + std::string(79, 'x') + "\x1b[0m\n", 80), 1);
    EXPECT_EQ(rows_taken("\xe2\x99\x94\xe2\x99\x94\n", 2), 1);  // two code points, two columns
    EXPECT_EQ(rows_taken(std::string(100, 'x') + "\n", 0), 1);  // width unknown
}

TEST(CliTerminal, ClocksAreRewrittenInPlaceOnlyWhileNothingHasScrolled) {
    EXPECT_EQ(clock_row_now(12, 30, 40), 12);
    EXPECT_EQ(clock_row_now(12, 40, 40), 12);
    // One row more than the window: the screen moved up, by a number of rows a line the user
    // typed (wrapped) may have changed; the screen is drawn again.
    EXPECT_FALSE(clock_row_now(12, 41, 40));
    EXPECT_FALSE(clock_row_now(12, 25, 8));
    EXPECT_EQ(clock_row_now(12, 200, 0), 12);  // window size unknown
    EXPECT_FALSE(clock_row_now(0, 5, 40));     // no screen drawn
}

}  // namespace
}  // namespace arbiter::client
