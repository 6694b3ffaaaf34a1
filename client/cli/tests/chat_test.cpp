// The chat as arbiter-cli reads and writes it (schema/protocol.md, "Chat"; issue 41).

#include "client/cli/chat.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace arbiter::client {
namespace {

using nlohmann::json;

TEST(CliChat, AChatEventIsReadWithItsSeqAndATextHiddenFromThisReaderIsNull) {
    auto shown = read_chat_message(
        R"({"type":"chat","game":"g1","seq":7,"room":"players","from":"Ana","text":"gl","at_ms":5})");
    ASSERT_TRUE(shown);
    const auto& event = std::get<ChatEvent>(*shown);
    EXPECT_EQ(event.game, "g1");
    EXPECT_EQ(event.line.seq, 7u);
    EXPECT_EQ(event.line.room, "players");
    EXPECT_EQ(event.line.from, "Ana");
    EXPECT_EQ(event.line.text, "gl");
    auto hidden = read_chat_message(
        R"({"type":"chat","game":"g1","seq":8,"room":"players","from":"Ana","text":null,"at_ms":5})");
    ASSERT_TRUE(hidden);
    EXPECT_FALSE(std::get<ChatEvent>(*hidden).line.text);
}

TEST(CliChat, OtherFramesAndChatFramesMissingAFieldAreNotChat) {
    EXPECT_FALSE(read_chat_message(R"({"type":"moved","game":"g1","seq":3})"));
    EXPECT_FALSE(read_chat_message(R"({"type":"chat","game":"g1","room":"players"})"));
    EXPECT_FALSE(read_chat_message("not json \"chat"));
    auto muted = read_chat_message(R"({"type":"chat_muted","game":"g1","mute":true,"id":"chat"})");
    ASSERT_TRUE(muted);
    EXPECT_TRUE(std::get<ChatMuted>(*muted).mute);
}

TEST(CliChat, AStatesHistoryKeepsTheMessagesThisReaderMayRead) {
    const auto lines = read_state_chat(
        R"({"type":"state","game":"g1","chat":[{"seq":2,"room":"spectators","from":"Cy","text":"hi","at_ms":1},)"
        R"({"seq":4,"room":"players","from":"Bo","text":null,"at_ms":2}]})");
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].from, "Cy");
    EXPECT_TRUE(read_state_chat(R"({"type":"state","game":"g1"})").empty());
}

TEST(CliChat, TextIsTrimmedAndHeldToTheProtocolsRule) {
    EXPECT_EQ(checked_chat_text("  good game \t").value_or(""), "good game");
    EXPECT_FALSE(checked_chat_text("   "));
    EXPECT_FALSE(checked_chat_text(std::string(141, 'a')));
    EXPECT_TRUE(checked_chat_text(std::string(140, 'a')));
    // 140 code points of two bytes each: the limit is in characters, not bytes.
    std::string accented;
    for (int index = 0; index < 140; ++index) {
        accented += "\xc3\xa9";
    }
    EXPECT_TRUE(checked_chat_text(accented));
    EXPECT_FALSE(checked_chat_text("bell \x07"));
    EXPECT_FALSE(checked_chat_text("\xff\xfe"));
}

TEST(CliChat, RequestsFollowTheContract) {
    EXPECT_EQ(json::parse(chat_request("g1", "players", "hi", "chat")), (json{{"type", "chat"},
                                                                              {"game", "g1"},
                                                                              {"room", "players"},
                                                                              {"text", "hi"},
                                                                              {"id", "chat"}}));
    EXPECT_EQ(json::parse(chat_mute_request("g1", true, "chat")),
              (json{{"type", "chat_mute"}, {"game", "g1"}, {"mute", true}, {"id", "chat"}}));
}

// The server forbids control characters in chat, but the client never lets text it relays move
// the cursor or change colours.
TEST(CliChat, ALineShowsNoEscapeSequences) {
    ChatLine line{1, "spectators", "Cy\x1b[2J", std::string("hi \x1b[31mred\xc2\x9b"), 0};
    EXPECT_EQ(chat_line_text(line), "[spectators] Cy?[2J: hi ?[31mred?");
}

}  // namespace
}  // namespace arbiter::client
