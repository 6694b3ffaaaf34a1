// decode(): framing rules shared by every message — JSON, object, "type", "id", unknown fields,
// numbers and UTF-8.

#include <gtest/gtest.h>

#include <string>

#include "decode_helpers.hpp"

namespace arbiter::protocol::test {
namespace {

TEST(ProtocolDecodeFrame, BrokenJsonIsBadJson) {
    for (std::string_view text :
         {"", "{", "{\"type\":\"ping\"", "{type:\"ping\"}", "nul", "{\"type\":\"ping\"} x",
          "{\"type\":\"ping\",}", "{\"type\":\"ping\"} // comment"}) {
        EXPECT_EQ(refused(text).code, ErrorCode::bad_json) << text;
    }
}

TEST(ProtocolDecodeFrame, NonObjectIsBadJson) {
    for (std::string_view text :
         {"[]", "[{\"type\":\"ping\"}]", "\"ping\"", "42", "null", "true"}) {
        const ProtocolError error = refused(text);
        EXPECT_EQ(error.code, ErrorCode::bad_json) << text;
        EXPECT_FALSE(error.id.has_value());
    }
}

TEST(ProtocolDecodeFrame, WhitespaceAroundTheObjectIsAccepted) {
    accepted_body<Ping>(" \n{ \"type\" : \"ping\" }\r\n ");
}

TEST(ProtocolDecodeFrame, InvalidUtf8IsBadJson) {
    // A stray continuation byte, a truncated sequence, an overlong '/', a UTF-16 surrogate
    // encoded directly, and an escaped lone surrogate.
    for (std::string_view text :
         {"{\"type\":\"hello\",\"name\":\"a\x80\"}", "{\"type\":\"hello\",\"name\":\"a\xC3\"}",
          "{\"type\":\"hello\",\"name\":\"\xC0\xAF\"}",
          "{\"type\":\"hello\",\"name\":\"\xED\xA0\x80\"}",
          "{\"type\":\"hello\",\"name\":\"\\ud800\"}"}) {
        EXPECT_EQ(refused(text).code, ErrorCode::bad_json) << text;
    }
}

TEST(ProtocolDecodeFrame, ValidMultibyteUtf8IsAccepted) {
    EXPECT_EQ(
        accepted_body<Hello>("{\"type\":\"hello\",\"name\":\"Zo\xC3\xAB \xE7\x8E\x8B\"}").name,
        "Zo\xC3\xAB \xE7\x8E\x8B");
    EXPECT_EQ(accepted_body<Hello>(R"({"type":"hello","name":"\u00e9\ud83d\ude00"})").name,
              "\xC3\xA9\xF0\x9F\x98\x80");
}

TEST(ProtocolDecodeFrame, MissingTypeIsBadRequest) {
    expect_bad_request("{}", "\"type\"");
}

TEST(ProtocolDecodeFrame, NonStringTypeIsBadRequest) {
    expect_bad_request(R"({"type":7})", "\"type\"");
    expect_bad_request(R"({"type":null})", "\"type\"");
    expect_bad_request(R"({"type":["ping"]})", "\"type\"");
}

TEST(ProtocolDecodeFrame, UnknownTypeIsUnknownTypeWithIdEchoed) {
    for (std::string_view text : {R"({"type":"fly","id":"r1"})", R"({"type":"Ping","id":"r1"})",
                                  R"({"type":"","id":"r1"})"}) {
        const ProtocolError error = refused(text);
        EXPECT_EQ(error.code, ErrorCode::unknown_type) << text;
        EXPECT_EQ(error.id, "r1");
    }
}

TEST(ProtocolDecodeFrame, IdIsReadAndKept) {
    const ClientMessage message = accepted(R"({"id":"req-1","type":"ping"})");
    EXPECT_EQ(message.id, "req-1");
    EXPECT_FALSE(accepted(R"({"type":"ping"})").id.has_value());
}

TEST(ProtocolDecodeFrame, IdIsEchoedOnFieldErrors) {
    const ProtocolError error = refused(R"({"type":"move","id":"m7","game":"g1","move":"e2e4"})");
    EXPECT_EQ(error.code, ErrorCode::bad_request);
    EXPECT_EQ(error.id, "m7");
    EXPECT_EQ(refused(R"({"type":"ping","id":"p1","x":1})").id, "p1");
    EXPECT_EQ(refused(R"({"id":"p2"})").id, "p2");
}

TEST(ProtocolDecodeFrame, IdUpTo64CharactersIsAccepted) {
    EXPECT_EQ(accepted(frame("ping", "\"id\":\"" + std::string(64, 'x') + "\"")).id->size(), 64U);
    std::string accents;
    for (int i = 0; i < 64; ++i) {
        accents += "\xC3\xA9";  // é: 64 characters in 128 bytes
    }
    EXPECT_EQ(accepted(frame("ping", "\"id\":\"" + accents + "\"")).id, accents);
    EXPECT_EQ(accepted(R"({"type":"ping","id":""})").id, "");
}

TEST(ProtocolDecodeFrame, IdTooLongOrNotAStringIsRefusedWithoutEcho) {
    for (const std::string& text :
         {frame("ping", "\"id\":\"" + std::string(65, 'x') + "\""), frame("ping", "\"id\":5"),
          frame("ping", "\"id\":null"), frame("ping", "\"id\":[\"a\"]"),
          frame("nonsense", "\"id\":5")}) {
        const ProtocolError error = refused(text);
        EXPECT_EQ(error.code, ErrorCode::bad_request) << text;
        EXPECT_NE(error.message.find("\"id\""), std::string::npos) << error.message;
        EXPECT_FALSE(error.id.has_value()) << text;
    }
}

TEST(ProtocolDecodeFrame, UnknownFieldIsNamed) {
    expect_bad_request(R"({"type":"ping","colour":"red"})", "\"colour\"");
    expect_bad_request(R"({"type":"join","game":"g1","Game":"g1"})", "\"Game\"");
}

TEST(ProtocolDecodeFrame, UnknownFieldIsReportedBeforeOtherErrors) {
    // A misspelt optional field must be pointed out, not hidden behind a missing one.
    expect_bad_request(R"({"type":"move","gmae":"g1"})", "\"gmae\"");
}

TEST(ProtocolDecodeFrame, ARepeatedKeyTakesItsLastValue) {
    // As JSON.parse does, so that the schemas (checked in JavaScript) and decode() agree.
    EXPECT_EQ(accepted_body<Join>(R"({"type":"join","game":"first","game":"last"})").game, "last");
    expect_bad_request(R"({"type":"join","game":"ok","game":7})", "\"game\"");
}

TEST(ProtocolDecodeFrame, HugeUnknownFieldNameIsClippedInTheMessage) {
    const std::string name(10000, 'k');
    const ProtocolError error = refused(frame("ping", "\"" + name + "\":1"));
    EXPECT_EQ(error.code, ErrorCode::bad_request);
    EXPECT_LT(error.message.size(), 200U);
}

TEST(ProtocolDecodeFrame, DeepNestingDoesNotCrash) {
    // 64 KiB is the default frame cap: nesting as deep as a frame allows.
    const std::string deep(65536, '[');
    EXPECT_EQ(refused(deep).code, ErrorCode::bad_json);
    const std::string nested = std::string(30000, '[') + std::string(30000, ']');
    expect_bad_request(frame("ping", "\"x\":" + nested), "\"x\"");
}

TEST(ProtocolDecodeFrame, NumbersMustBeIntegersWithoutFractionOrExponent) {
    for (std::string_view ply : {"1.0", "1.5", "1e2", "-1", "\"3\"", "true", "null"}) {
        const std::string text =
            frame("move", "\"game\":\"g\",\"move\":\"e2e4\",\"ply\":" + std::string(ply));
        expect_bad_request(text, "\"ply\"");
    }
    EXPECT_EQ(
        accepted_body<MoveRequest>(R"({"type":"move","game":"g","move":"e2e4","ply":-0})").ply, 0U);
}

TEST(ProtocolDecodeFrame, NumbersBeyondTheFieldRangeAreRefused) {
    for (std::string_view ply : {"4294967296", "18446744073709551615", "18446744073709551616",
                                 "-9223372036854775808", "123456789012345678901234567890"}) {
        const std::string text =
            frame("move", "\"game\":\"g\",\"move\":\"e2e4\",\"ply\":" + std::string(ply));
        expect_bad_request(text, "\"ply\"");
    }
    // Beyond the range of a double the parser itself refuses the number.
    EXPECT_EQ(refused(R"({"type":"move","game":"g","move":"e2e4","ply":1e400})").code,
              ErrorCode::bad_json);
    EXPECT_EQ(
        accepted_body<MoveRequest>(R"({"type":"move","game":"g","move":"e2e4","ply":4294967295})")
            .ply,
        4294967295U);
}

TEST(ProtocolDecodeFrame, SinceTakesTheWholeUnsignedRange) {
    EXPECT_EQ(
        accepted_body<Watch>(R"({"type":"watch","game":"g","since":18446744073709551615})").since,
        18446744073709551615ULL);
    expect_bad_request(R"({"type":"watch","game":"g","since":18446744073709551616})", "since");
}

}  // namespace
}  // namespace arbiter::protocol::test
