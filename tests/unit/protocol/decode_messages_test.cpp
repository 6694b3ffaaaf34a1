// decode(): the fields of each client message, one accepting and one refusing test per rule.

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "decode_helpers.hpp"

namespace arbiter::protocol::test {
namespace {

std::string json_string(const std::string& text) {
    return "\"" + text + "\"";
}

TEST(ProtocolDecodeHello, NameOf1To32PrintableCharacters) {
    EXPECT_EQ(accepted_body<Hello>(R"({"type":"hello","name":"Ana"})").name, "Ana");
    EXPECT_EQ(accepted_body<Hello>(frame("hello", "\"name\":" + json_string(std::string(32, 'n'))))
                  .name.size(),
              32U);
    std::string wide;
    for (int i = 0; i < 32; ++i) {
        wide += "\xE7\x8E\x8B";  // 32 CJK characters, 96 bytes
    }
    EXPECT_EQ(accepted_body<Hello>(frame("hello", "\"name\":" + json_string(wide))).name, wide);
}

TEST(ProtocolDecodeHello, NameEmptyTooLongOrWithControlsIsRefused) {
    for (const std::string& name :
         {std::string(""), std::string(33, 'n'), std::string("a\\nb"), std::string("a\\u0000"),
          std::string("tab\\t"), std::string("del\\u007f"), std::string("c1\\u0085")}) {
        expect_bad_request(frame("hello", "\"name\":" + json_string(name)), "\"name\"");
    }
}

TEST(ProtocolDecodeHello, TokenIsOptionalAndMustBeAToken) {
    EXPECT_EQ(accepted_body<Hello>(R"({"type":"hello","name":"Ana"})").token, std::nullopt);
    EXPECT_EQ(accepted_body<Hello>(R"({"type":"hello","name":"Ana","token":"0123abcd"})").token,
              "0123abcd");
    for (const std::string& token :
         {std::string(""), std::string("has space"), std::string(129, 't')}) {
        expect_bad_request(frame("hello", "\"name\":\"Ana\",\"token\":" + json_string(token)),
                           "\"token\"");
    }
    expect_bad_request(R"({"type":"hello","name":"Ana","token":7})", "\"token\"");
}

// One spelling for what looks the same: NFC, trimmed, inner white space one space.
TEST(ProtocolDecodeHello, NameIsNormalised) {
    // "Ana" with a combining acute accent (U+0301) is the precomposed a-acute (U+00E1).
    EXPECT_EQ(accepted_body<Hello>(R"({"type":"hello","name":"Ana\u0301"})").name, "An\xC3\xA1");
    EXPECT_EQ(accepted_body<Hello>(R"({"type":"hello","name":"  Ana  "})").name, "Ana");
    EXPECT_EQ(accepted_body<Hello>(R"({"type":"hello","name":"Ana \u3000\u00a0 Bo"})").name,
              "Ana Bo");
    EXPECT_EQ(accepted_body<Hello>(R"({"type":"hello","name":"\u738b\u5c0f\u660e"})").name,
              "\xE7\x8E\x8B\xE5\xB0\x8F\xE6\x98\x8E");
}

// Names that are empty once trimmed, or that hide characters that show nothing or reorder the
// text around them (impersonation in the lobby), are refused with a reason.
TEST(ProtocolDecodeHello, NameBlankOrWithInvisibleCharactersIsRefused) {
    const std::vector<std::pair<std::string, std::string>> refused = {
        {"   ", "visible"},
        {"\u3000", "visible"},
        {"\u200b", "invisible"},            // zero-width space
        {"An\u200ba", "invisible"},         // zero-width space inside
        {"Ana\u200d", "invisible"},         // zero-width joiner
        {"\u202eanA", "invisible"},         // right-to-left override
        {"Ana\u2066x\u2069", "invisible"},  // left-to-right isolate
        {"Ana\u200f", "invisible"},         // right-to-left mark
        {"\ufeffAna", "invisible"},         // byte-order mark
        {"\u3164", "invisible"},            // Hangul filler
        {"Ana\u00ad", "invisible"},         // soft hyphen
        {"\ue000", "invisible"},            // private use
    };
    for (const auto& [name, why] : refused) {
        expect_bad_request(frame("hello", "\"name\":" + json_string(name)), why);
    }
}

TEST(ProtocolDecodeHello, NameMissingOrNotAStringIsRefused) {
    expect_bad_request(R"({"type":"hello"})", "missing field \"name\"");
    expect_bad_request(R"({"type":"hello","name":5})", "\"name\"");
    expect_bad_request(R"({"type":"hello","name":null})", "\"name\"");
    expect_bad_request(R"({"type":"hello","name":"a","nick":"b"})", "\"nick\"");
}

TEST(ProtocolDecodeCreate, VariantAloneTakesTheDefaults) {
    const Create create = accepted_body<Create>(R"({"type":"create","variant":"xiangqi"})");
    EXPECT_EQ(create.variant, rules::Variant::xiangqi);
    EXPECT_EQ(create.side, SidePreference::random);
    EXPECT_FALSE(create.clock.has_value());
    EXPECT_FALSE(create.is_private);
    EXPECT_EQ(create.position, "");
}

TEST(ProtocolDecodeCreate, EveryFieldIsRead) {
    const Create create = accepted_body<Create>(
        R"({"type":"create","variant":"draughts","side":"second",
            "clock":{"initial_ms":300000,"increment_ms":2000},"private":true,
            "position":"W:W31,32:B1,2"})");
    EXPECT_EQ(create.variant, rules::Variant::draughts);
    EXPECT_EQ(create.side, SidePreference::second);
    EXPECT_EQ(create.clock, (ClockSpec{300000, 2000}));
    EXPECT_TRUE(create.is_private);
    EXPECT_EQ(create.position, "W:W31,32:B1,2");
    EXPECT_EQ(accepted_body<Create>(R"({"type":"create","variant":"chess","side":"first"})").side,
              SidePreference::first);
    EXPECT_EQ(accepted_body<Create>(R"({"type":"create","variant":"chess","side":"random"})").side,
              SidePreference::random);
}

TEST(ProtocolDecodeCreate, RatedAndItsRangeAreRead) {
    const Create create = accepted_body<Create>(
        R"({"type":"create","variant":"chess","rated":true,"rating_range":{"min":1200}})");
    EXPECT_TRUE(create.rated);
    EXPECT_EQ(create.rating_range, (RatingRange{1200, std::nullopt}));
    EXPECT_FALSE(accepted_body<Create>(R"({"type":"create","variant":"chess"})").rated);
}

TEST(ProtocolDecodeCreate, ARatingRangeOutsideARatedGameOrUpsideDownIsRefused) {
    expect_bad_request(R"({"type":"create","variant":"chess","rating_range":{"min":1}})",
                       "only a rated game");
    expect_bad_request(
        R"({"type":"create","variant":"chess","rated":true,"rating_range":{"min":9,"max":8}})",
        "min must not be above max");
    expect_bad_request(
        R"({"type":"create","variant":"chess","rated":true,"rating_range":{"low":9}})", "low");
}

TEST(ProtocolDecodeResume, TheTokenMayBeLeftOutBySignedInPlayers) {
    EXPECT_EQ(accepted_body<Resume>(R"({"type":"resume","game":"g1"})").token, "");
    EXPECT_EQ(accepted_body<Resume>(R"({"type":"resume","game":"g1","token":"abc"})").token, "abc");
}

TEST(ProtocolDecodeCreate, VariantMustBeKnown) {
    expect_bad_request(R"({"type":"create"})", "missing field \"variant\"");
    expect_bad_request(R"({"type":"create","variant":"go"})", "\"variant\"");
    expect_bad_request(R"({"type":"create","variant":"Chess"})", "\"variant\"");
    expect_bad_request(R"({"type":"create","variant":1})", "\"variant\"");
}

TEST(ProtocolDecodeCreate, SideMustBeFirstSecondOrRandom) {
    expect_bad_request(R"({"type":"create","variant":"chess","side":"white"})", "\"side\"");
    expect_bad_request(R"({"type":"create","variant":"chess","side":null})", "\"side\"");
}

TEST(ProtocolDecodeCreate, ClockNullMeansUntimed) {
    EXPECT_FALSE(accepted_body<Create>(R"({"type":"create","variant":"chess","clock":null})")
                     .clock.has_value());
}

TEST(ProtocolDecodeCreate, ClockBoundsAreInclusive) {
    EXPECT_EQ(accepted_body<Create>(R"({"type":"create","variant":"chess",
                "clock":{"initial_ms":86400000,"increment_ms":3600000}})")
                  .clock,
              (ClockSpec{86400000, 3600000}));
    EXPECT_EQ(accepted_body<Create>(R"({"type":"create","variant":"chess",
                "clock":{"initial_ms":1,"increment_ms":0}})")
                  .clock,
              (ClockSpec{1, 0}));
}

TEST(ProtocolDecodeCreate, ClockOutOfRangeOrMalformedIsRefused) {
    const auto with_clock = [](const std::string& clock) {
        return frame("create", "\"variant\":\"chess\",\"clock\":" + clock);
    };
    expect_bad_request(with_clock(R"({"initial_ms":0,"increment_ms":0})"), "clock.initial_ms");
    expect_bad_request(with_clock(R"({"initial_ms":86400001,"increment_ms":0})"),
                       "clock.initial_ms");
    expect_bad_request(with_clock(R"({"initial_ms":1000,"increment_ms":3600001})"),
                       "clock.increment_ms");
    expect_bad_request(with_clock(R"({"initial_ms":1000,"increment_ms":-1})"),
                       "clock.increment_ms");
    expect_bad_request(with_clock(R"({"initial_ms":1000.5,"increment_ms":0})"), "clock.initial_ms");
    expect_bad_request(with_clock(R"({"initial_ms":1000})"),
                       "missing field \"clock.increment_ms\"");
    expect_bad_request(with_clock(R"({"initial_ms":1000,"increment_ms":0,"delay_ms":5})"),
                       "clock.delay_ms");
    expect_bad_request(with_clock("300"), "\"clock\"");
    expect_bad_request(with_clock("[]"), "\"clock\"");
}

TEST(ProtocolDecodeCreate, PrivateMustBeABoolean) {
    EXPECT_FALSE(
        accepted_body<Create>(R"({"type":"create","variant":"chess","private":false})").is_private);
    expect_bad_request(R"({"type":"create","variant":"chess","private":1})", "\"private\"");
    expect_bad_request(R"({"type":"create","variant":"chess","private":"yes"})", "\"private\"");
}

TEST(ProtocolDecodeCreate, PositionUpTo256PrintableCharacters) {
    const std::string longest(256, 'p');
    EXPECT_EQ(accepted_body<Create>(
                  frame("create", "\"variant\":\"chess\",\"position\":" + json_string(longest)))
                  .position,
              longest);
    expect_bad_request(
        frame("create", "\"variant\":\"chess\",\"position\":" + json_string(std::string(257, 'p'))),
        "\"position\"");
    expect_bad_request(R"({"type":"create","variant":"chess","position":"8/8\n"})", "\"position\"");
    expect_bad_request(R"({"type":"create","variant":"chess","position":null})", "\"position\"");
}

// "" (like no position) is the standard start; only spaces is refused, not read as "" (chess FEN
// trims spaces, so " " once started a standard game).
TEST(ProtocolDecodeCreate, PositionOfOnlySpacesIsRefused) {
    EXPECT_EQ(
        accepted_body<Create>(R"({"type":"create","variant":"chess","position":""})").position, "");
    for (const std::string_view variant : {"chess", "xiangqi", "draughts"}) {
        for (const std::string_view spaces : {" ", "   "}) {
            expect_bad_request(
                frame("create", "\"variant\":\"" + std::string(variant) + "\",\"position\":\"" +
                                    std::string(spaces) + "\""),
                "\"position\": only spaces");
        }
    }
    const std::string fen = " rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ";
    EXPECT_EQ(accepted_body<Create>(
                  frame("create", "\"variant\":\"chess\",\"position\":" + json_string(fen)))
                  .position,
              fen)
        << "spaces around a FEN are the rules' to judge";
}

// join, unwatch, resign, abort and replay carry only a game id.
std::string game_of(const ClientBody& body) {
    return std::visit(
        [](const auto& message) -> std::string {
            if constexpr (requires { message.game; }) {
                return message.game;
            } else {
                return "(no game field)";
            }
        },
        body);
}

TEST(ProtocolDecodeGameOnly, GameIdOf1To32SafeCharactersIsAccepted) {
    const std::string longest(32, 'Z');
    for (std::string_view type : {"join", "unwatch", "resign", "abort", "replay"}) {
        SCOPED_TRACE(type);
        EXPECT_EQ(game_of(accepted(frame(type, R"("game":"Ab9_-z")")).body), "Ab9_-z");
        EXPECT_EQ(game_of(accepted(frame(type, "\"game\":" + json_string(longest))).body), longest);
        EXPECT_EQ(game_of(accepted(frame(type, R"("game":"7")")).body), "7");
    }
    EXPECT_TRUE(std::holds_alternative<Join>(accepted(R"({"type":"join","game":"g"})").body));
    EXPECT_TRUE(std::holds_alternative<Unwatch>(accepted(R"({"type":"unwatch","game":"g"})").body));
    EXPECT_TRUE(std::holds_alternative<Resign>(accepted(R"({"type":"resign","game":"g"})").body));
    EXPECT_TRUE(std::holds_alternative<Abort>(accepted(R"({"type":"abort","game":"g"})").body));
    EXPECT_TRUE(
        std::holds_alternative<ReplayRequest>(accepted(R"({"type":"replay","game":"g"})").body));
}

TEST(ProtocolDecodeGameOnly, BadGameIdIsRefused) {
    for (std::string_view type : {"join", "unwatch", "resign", "abort", "replay"}) {
        SCOPED_TRACE(type);
        for (const std::string& game :
             {json_string(""), json_string(std::string(33, 'g')), json_string("a b"),
              json_string("a/b"), json_string("../x"), json_string("\xC3\xA9"), std::string("7"),
              std::string("null")}) {
            expect_bad_request(frame(type, "\"game\":" + game), "\"game\"");
        }
        expect_bad_request(frame(type, ""), "missing field \"game\"");
        expect_bad_request(frame(type, R"("game":"g","seat":"white")"), "\"seat\"");
    }
}

}  // namespace
}  // namespace arbiter::protocol::test
