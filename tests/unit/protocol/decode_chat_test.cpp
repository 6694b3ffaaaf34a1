// decode(): chat and chat_mute (protocol.md, Chat), and the text rule they share with clients.

#include <gtest/gtest.h>

#include <string>

#include "common/protocol/text_rules.hpp"
#include "decode_helpers.hpp"

namespace arbiter::protocol::test {
namespace {

TEST(ProtocolDecodeChat, GameRoomAndTrimmedText) {
    const ChatRequest chat = accepted_body<ChatRequest>(
        R"({"type":"chat","game":"g1","room":"spectators","text":"  nice move!\t"})");
    EXPECT_EQ(chat.game, "g1");
    EXPECT_EQ(chat.room, ChatRoom::spectators);
    EXPECT_EQ(chat.text, "nice move!");
    EXPECT_EQ(
        accepted_body<ChatRequest>(R"({"type":"chat","game":"g1","room":"players","text":"gl"})")
            .room,
        ChatRoom::players);
}

TEST(ProtocolDecodeChat, TheLimitIs140CodePointsAfterTrimming) {
    std::string longest;
    for (int i = 0; i < 140; ++i) {
        longest += "\xE7\x8E\x8B";  // 王: one code point, three bytes
    }
    EXPECT_EQ(
        accepted_body<ChatRequest>(
            frame("chat", "\"game\":\"g\",\"room\":\"players\",\"text\":\"   " + longest + "   \""))
            .text,
        longest);
    expect_bad_request(
        frame("chat", "\"game\":\"g\",\"room\":\"players\",\"text\":\"" + longest + "x\""),
        "over 140 characters");
}

TEST(ProtocolDecodeChat, EmptyControlOrMissingTextIsRefused) {
    expect_bad_request(R"({"type":"chat","game":"g1","room":"players","text":""})", "empty");
    expect_bad_request(R"({"type":"chat","game":"g1","room":"players","text":" \n "})", "empty");
    expect_bad_request(R"({"type":"chat","game":"g1","room":"players","text":"a\nb"})",
                       "control characters");
    expect_bad_request(R"({"type":"chat","game":"g1","room":"players","text":"a\u0085b"})",
                       "control characters");
    expect_bad_request(R"({"type":"chat","game":"g1","room":"players"})", "\"text\"");
    expect_bad_request(R"({"type":"chat","game":"g1","room":"players","text":5})", "\"text\"");
    expect_bad_request(R"({"type":"chat","game":"g1","room":"all","text":"hi"})", "\"room\"");
    expect_bad_request(R"({"type":"chat","room":"players","text":"hi"})", "\"game\"");
}

TEST(ProtocolDecodeChatMute, MuteDefaultsToTrue) {
    EXPECT_TRUE(accepted_body<ChatMute>(R"({"type":"chat_mute","game":"g1"})").mute);
    EXPECT_FALSE(accepted_body<ChatMute>(R"({"type":"chat_mute","game":"g1","mute":false})").mute);
    expect_bad_request(R"({"type":"chat_mute","game":"g1","mute":"no"})", "\"mute\"");
}

TEST(ProtocolChatText, MarkupIsJustText) {
    // The server never interprets a message: markup is characters like any others.
    EXPECT_EQ(text::chat_text("<img src=x onerror=alert(1)>", kMaxChatLength).value(),
              "<img src=x onerror=alert(1)>");
    EXPECT_FALSE(text::chat_text("\x7f", kMaxChatLength).has_value());
}

}  // namespace
}  // namespace arbiter::protocol::test
