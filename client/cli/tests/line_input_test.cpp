#include "client/cli/line_input.hpp"

#include <sstream>

#include <gtest/gtest.h>

namespace arbiter::client {
namespace {

/// The next line of `in` as text: the line, "refused: <note>", or "end".
std::string next_of(std::istream& in) {
    const auto line = read_line(in);
    if (!line) {
        return "end";
    }
    return *line ? **line : "refused: " + line->error();
}

TEST(CliLineInput, ReadsLinesLikeGetline) {
    std::istringstream in("e2e4\n\n  quit");
    EXPECT_EQ(next_of(in), "e2e4");
    EXPECT_EQ(next_of(in), "");
    EXPECT_EQ(next_of(in), "  quit") << "the last line needs no line break";
    EXPECT_EQ(next_of(in), "end");
}

TEST(CliLineInput, ALineUpToTheCapIsKept) {
    const std::string longest(kMaxLineBytes, 'e');
    std::istringstream in(longest + "\n");
    EXPECT_EQ(next_of(in), longest);
    EXPECT_EQ(next_of(in), "end");
}

// A pasted megabyte is refused, not held whole and not sent; the next line is read as usual.
TEST(CliLineInput, ALongerLineIsRefusedAndTheNextIsRead) {
    const std::string refused =
        "refused: ignored: the line is over 4096 bytes, longer than any move or command; nothing "
        "was sent";
    std::istringstream in(std::string(kMaxLineBytes + 1, 'e') + "\nf2f3\n" +
                          std::string(1 << 20, 'x'));
    EXPECT_EQ(next_of(in), refused);
    EXPECT_EQ(next_of(in), "f2f3");
    EXPECT_EQ(next_of(in), refused) << "at the end of input too";
    EXPECT_EQ(next_of(in), "end");
}

}  // namespace
}  // namespace arbiter::client
