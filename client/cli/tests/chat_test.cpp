// The chat as arbiter-cli reads and writes it (schema/protocol.md, "Chat"; issue 41): through the
// protocol's codec, as every other message.

#include "client/cli/chat.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "client/cli/requests.hpp"
#include "common/protocol/codec.hpp"

namespace arbiter::client {
namespace {

using nlohmann::json;

// A server frame as arbiter-cli reads it: decoded by the protocol's codec.
Expected<protocol::ServerMessage, protocol::ProtocolError> server(std::string_view frame) {
    return protocol::decode_server(
        frame, [](std::string_view) { return std::optional(rules::Variant::chess); });
}

TEST(CliChat, AChatEventIsReadWithItsSeqAndATextHiddenFromThisReaderIsNull) {
    auto shown = server(
        R"({"type":"chat","game":"g1","seq":7,"room":"players","from":"Ana","text":"gl","at_ms":5})");
    ASSERT_TRUE(shown) << shown.error().message;
    const auto& event = std::get<protocol::ChatEvent>(shown->body);
    EXPECT_EQ(event.game, "g1");
    EXPECT_EQ(event.seq, 7u);
    EXPECT_EQ(event.room, protocol::ChatRoom::players);
    EXPECT_EQ(event.from, "Ana");
    EXPECT_EQ(event.text, "gl");
    EXPECT_EQ(chat_line_text(event), "[players] Ana: gl");
    auto hidden = server(
        R"({"type":"chat","game":"g1","seq":8,"room":"players","from":"Ana","text":null,"at_ms":5})");
    ASSERT_TRUE(hidden) << hidden.error().message;
    EXPECT_FALSE(std::get<protocol::ChatEvent>(hidden->body).text);
}

TEST(CliChat, ChatFramesMissingAFieldAreRefusedAndAMuteAnswerIsRead) {
    EXPECT_FALSE(server(R"({"type":"chat","game":"g1","room":"players"})"));
    EXPECT_FALSE(server("not json \"chat"));
    auto muted = server(R"({"type":"chat_muted","game":"g1","mute":true,"id":"chat"})");
    ASSERT_TRUE(muted) << muted.error().message;
    EXPECT_TRUE(std::get<protocol::ChatMuted>(muted->body).mute);
    EXPECT_EQ(muted->id, "chat");
}

TEST(CliChat, AStatesHistoryIsReadByTheCodec) {
    const std::string state =
        R"({"type":"state","game":"g1","seq":4,"variant":"chess","status":"playing","you":"white",)"
        R"("players":{"white":{"name":"Ana","connected":true},"black":null},)"
        R"("initial_position":"8/8/8/8/8/8/8/K6k w - - 0 1","position":"8/8/8/8/8/8/8/K6k w - - 0 1",)"
        R"("moves":[],"notation":[],"ply":0,"turn":"white","legal":[],"check":false,"clock":null,)"
        R"("time_control":null,"result":null,"reason":null,"offers":[],"spectators":0,)"
        R"("rematch":null,"rated":false,)"
        R"("chat":[{"seq":2,"room":"spectators","from":"Cy","text":"hi","at_ms":1}]})";
    auto decoded = server(state);
    ASSERT_TRUE(decoded) << decoded.error().message;
    const auto& chat = std::get<protocol::State>(decoded->body).chat;
    ASSERT_EQ(chat.size(), 1u);
    EXPECT_EQ(chat_line_text(chat[0]), "[spectators] Cy: hi");
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
    // What the client lets through, the server's decoder takes.
    const auto request = requests::chat("g1", protocol::ChatRoom::players,
                                        checked_chat_text(accented).value_or(""), "chat");
    EXPECT_TRUE(protocol::decode(request)) << request;
}

TEST(CliChat, RequestsFollowTheContract) {
    EXPECT_EQ(json::parse(requests::chat("g1", protocol::ChatRoom::players, "hi", "chat")),
              (json{{"type", "chat"},
                    {"game", "g1"},
                    {"room", "players"},
                    {"text", "hi"},
                    {"id", "chat"}}));
    EXPECT_EQ(
        json::parse(requests::chat("g1", protocol::ChatRoom::spectators, "hi", "chat")).at("room"),
        "spectators");
    EXPECT_EQ(json::parse(requests::chat_mute("g1", true, "chat")),
              (json{{"type", "chat_mute"}, {"game", "g1"}, {"mute", true}, {"id", "chat"}}));
    EXPECT_EQ(json::parse(requests::chat_mute("g1", false, "chat")).at("mute"), false);
}

// The server forbids control characters in chat, but the client never lets text it relays move
// the cursor or change colours.
TEST(CliChat, ALineShowsNoEscapeSequences) {
    const protocol::ChatEvent event{
        "g1", 1, protocol::ChatRoom::spectators, "Cy\x1b[2J", std::string("hi \x1b[31mred\xc2\x9b"),
        0};
    EXPECT_EQ(chat_line_text(event), "[spectators] Cy?[2J: hi ?[31mred?");
    const protocol::ChatLine line{1, protocol::ChatRoom::players, "Bo\x07", "\x1b]0;title\x07", 0};
    EXPECT_EQ(chat_line_text(line), "[players] Bo?: ?]0;title?");
}

}  // namespace
}  // namespace arbiter::client
