// The text rules behind decode(): code point counting, charsets and the clipping of echoed names.

#include <gtest/gtest.h>

#include <string>

#include "common/protocol/field_reader.hpp"

namespace arbiter::protocol::detail {
namespace {

TEST(ProtocolFieldRules, CodePointsCountCharactersNotBytes) {
    EXPECT_EQ(code_points(""), 0U);
    EXPECT_EQ(code_points("abc"), 3U);
    EXPECT_EQ(code_points("\xC3\xA9\xE7\x8E\x8B\xF0\x9F\x98\x80"), 3U);  // é 王 😀
}

TEST(ProtocolFieldRules, LengthBoundsAreInclusive) {
    const TextRule rule{2, 3, Charset::any};
    EXPECT_FALSE(obeys("a", rule));
    EXPECT_TRUE(obeys("ab", rule));
    EXPECT_TRUE(obeys("\xC3\xA9\xC3\xA9\xC3\xA9", rule));  // 3 characters in 6 bytes
    EXPECT_FALSE(obeys("abcd", rule));
}

TEST(ProtocolFieldRules, PrintableRefusesC0DelAndC1Controls) {
    const TextRule rule{0, 64, Charset::printable};
    EXPECT_TRUE(obeys("Zo\xC3\xAB \xC2\xA0!", rule));  // U+00A0 is just above the C1 block
    EXPECT_FALSE(obeys(std::string("a\0b", 3), rule));
    EXPECT_FALSE(obeys("a\x1F", rule));
    EXPECT_FALSE(obeys("a\x7F", rule));
    EXPECT_FALSE(obeys("a\xC2\x80", rule));
    EXPECT_FALSE(obeys("a\xC2\x9F", rule));
}

TEST(ProtocolFieldRules, GameIdsAndTokensUseTheirCharsets) {
    EXPECT_TRUE(obeys("aZ09_-", kGameIdRule));
    EXPECT_FALSE(obeys("a.b", kGameIdRule));
    EXPECT_FALSE(obeys("", kGameIdRule));
    EXPECT_TRUE(obeys("!~+/=", kTokenRule));
    EXPECT_FALSE(obeys("a b", kTokenRule));
    EXPECT_FALSE(obeys("\xC3\xA9", kTokenRule));
}

TEST(ProtocolFieldRules, ClipKeepsShortTextAndCutsLongTextBetweenCodePoints) {
    EXPECT_EQ(clip("short"), "short");
    EXPECT_EQ(clip(std::string(64, 'a')), std::string(64, 'a'));
    // 63 ASCII bytes then a 2-byte character straddling the 64-byte cut: the whole character goes.
    const std::string straddling = std::string(63, 'a') + "\xC3\xA9" + "tail";
    EXPECT_EQ(clip(straddling), std::string(63, 'a') + "...");
}

}  // namespace
}  // namespace arbiter::protocol::detail
