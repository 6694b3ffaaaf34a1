#include "client/cli/text_rules.hpp"

#include <gtest/gtest.h>

namespace arbiter::client {
namespace {

TEST(CliTextRules, WellFormedUtf8IsAccepted) {
    for (const std::string text :
         {"", "e2e4",
          "Ana L\xc3\xba"
          "cia",
          "\xe8\xb1\xa1\xe6\xa3\x8b", "\xf0\x9f\x98\x80", "\xef\xbf\xbf", "\xf4\x8f\xbf\xbf"}) {
        EXPECT_TRUE(is_utf8(text)) << text;
    }
}

TEST(CliTextRules, MalformedUtf8IsRefused) {
    for (const std::string text : {
             "\xff",              // never in UTF-8
             "e2e4\xe9",          // a Latin-1 byte: a lead byte without its continuation
             "\x80",              // a stray continuation byte
             "\xc0\xaf",          // an overlong '/'
             "\xe0\x80\xaf",      // an overlong '/' in three bytes
             "\xed\xa0\x80",      // a UTF-16 surrogate
             "\xf4\x90\x80\x80",  // past U+10FFFF
             "\xe2\x82",          // cut short
             "\xe2\x28\xa1",      // a lead byte followed by ASCII
         }) {
        EXPECT_FALSE(is_utf8(text)) << testing::PrintToString(text);
    }
}

TEST(CliTextRules, LengthIsCountedInCodePoints) {
    std::string xiangqi;
    for (int i = 0; i < 64; ++i) {
        xiangqi += "\xe8\xb1\xa1";
    }
    EXPECT_TRUE(check_text(xiangqi, kMoveRule, "a move"));
    auto longer = check_text(xiangqi + "\xe8\xb1\xa1", kMoveRule, "a move");
    ASSERT_FALSE(longer);
    EXPECT_EQ(longer.error(), "a move is 1 to 64 characters without control characters");
    EXPECT_FALSE(check_text("", kMoveRule, "a move"));
    EXPECT_TRUE(check_text("", kPositionRule, "--position"));
    EXPECT_EQ(check_text(std::string(257, 'p'), kPositionRule, "--position").error(),
              "--position is at most 256 characters without control characters");
}

TEST(CliTextRules, EachRuleHasItsCharacters) {
    EXPECT_FALSE(check_text("Nf3\x7f", kMoveRule, "a move"));
    EXPECT_FALSE(check_text("Nf3\xc2\x85", kMoveRule, "a move"));  // C1 (NEL)
    EXPECT_TRUE(check_text("g7Kq2_-", kGameIdRule, "a game id"));
    EXPECT_FALSE(check_text("g7 Kq2", kGameIdRule, "a game id"));
    EXPECT_TRUE(check_text("9f86d081884c7d659a2feaa0c55ad015", kTokenRule, "--token"));
    EXPECT_FALSE(check_text("a b", kTokenRule, "--token"));
    EXPECT_EQ(check_text("\xff", kNameRule, "--name").error(), "--name is not valid UTF-8 text");
}

}  // namespace
}  // namespace arbiter::client
