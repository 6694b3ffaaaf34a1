// read_plain_move(): the tree-free reader of a `move` in its usual shape, and that decode() gives
// the same answers with it as the full reader alone.

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "common/protocol/plain_move.hpp"
#include "decode_helpers.hpp"

namespace arbiter::protocol::test {
namespace {

using detail::read_message;
using detail::read_plain_move;

// The plain reader takes `text`, and reads it as the full reader does.
void expect_plain(std::string_view text, std::string_view game, std::string_view move,
                  std::uint32_t ply, std::optional<std::string> id) {
    const auto plain = read_plain_move(text);
    ASSERT_TRUE(plain.has_value()) << text;
    const auto* body = std::get_if<MoveRequest>(&plain->body);
    ASSERT_NE(body, nullptr) << text;
    EXPECT_EQ(body->game, game) << text;
    EXPECT_EQ(body->move, move) << text;
    EXPECT_EQ(body->ply, ply) << text;
    EXPECT_EQ(plain->id, id) << text;
    const auto full = read_message(text);
    ASSERT_TRUE(full.has_value()) << text;
    const auto* full_body = std::get_if<MoveRequest>(&full->body);
    ASSERT_NE(full_body, nullptr) << text;
    EXPECT_EQ(full_body->game, body->game) << text;
    EXPECT_EQ(full_body->move, body->move) << text;
    EXPECT_EQ(full_body->ply, body->ply) << text;
    EXPECT_EQ(full->id, plain->id) << text;
}

TEST(ProtocolPlainMove, TheUsualShapesAreReadWithoutATree) {
    // arbiter-load's frame, the browser client's (id last), members in another order, spaces.
    expect_plain(R"({"type":"move","game":"Xq7Rk2LmP9aB","move":"e2e4","ply":12,"id":"m"})",
                 "Xq7Rk2LmP9aB", "e2e4", 12, "m");
    expect_plain(R"({"type":"move","game":"g1","move":"e7e8q","ply":0})", "g1", "e7e8q", 0,
                 std::nullopt);
    expect_plain(R"({"ply":4294967295,"id":"","move":"Nf3","game":"a_b-C","type":"move"})", "a_b-C",
                 "Nf3", 4294967295U, "");
    expect_plain(" \t{ \"type\" : \"move\" ,\r\n\"game\":\"g\", \"move\":\"h2e2\",\"ply\": 7 }\n",
                 "g", "h2e2", 7, std::nullopt);
    // Display notation is printable ASCII too: the rules resolve it later.
    expect_plain(R"({"type":"move","game":"g","move":"32-28","ply":1,"id":"x y"})", "g", "32-28", 1,
                 "x y");
}

TEST(ProtocolPlainMove, EveryOtherShapeIsLeftToTheFullReader) {
    const std::string_view others[] = {
        // Escapes and non-ASCII text: only the full reader decodes them.
        R"({"type":"move","game":"g","move":"e2\u0065e4","ply":1})",
        R"({"type":"move","game":"g","move":"e2e4","ply":1,"id":"caf\u00e9"})",
        "{\"type\":\"move\",\"game\":\"g\",\"move\":\"e2e4\",\"ply\":1,\"id\":\"caf\xc3\xa9\"}",
        // Numbers that are not plain integers.
        R"({"type":"move","game":"g","move":"e2e4","ply":1.0})",
        R"({"type":"move","game":"g","move":"e2e4","ply":1e2})",
        R"({"type":"move","game":"g","move":"e2e4","ply":-1})",
        R"({"type":"move","game":"g","move":"e2e4","ply":01})",
        R"({"type":"move","game":"g","move":"e2e4","ply":4294967296})",
        R"({"type":"move","game":"g","move":"e2e4","ply":"1"})",
        // Members missing, repeated, unknown or of another type.
        R"({"type":"move","game":"g","move":"e2e4"})",
        R"({"type":"move","game":"g","move":"e2e4","ply":1,"ply":2})",
        R"({"type":"move","game":"g","game":"h","move":"e2e4","ply":1})",
        R"({"type":"move","game":"g","move":"e2e4","ply":1,"extra":1})",
        R"({"type":"move","game":"g","move":null,"ply":1})",
        R"({"type":"resign","game":"g","move":"e2e4","ply":1})",
        // Values out of bounds.
        R"({"type":"move","game":"g!","move":"e2e4","ply":1})",
        R"({"type":"move","game":"","move":"e2e4","ply":1})",
        R"({"type":"move","game":"g","move":"","ply":1})",
        // Not one object.
        R"({"type":"move","game":"g","move":"e2e4","ply":1} x)",
        R"({"type":"move","game":"g","move":"e2e4","ply":1,})",
        R"({"type":"move","game":"g","move":"e2e4","ply":1)",
        R"([{"type":"move","game":"g","move":"e2e4","ply":1}])",
        "",
    };
    for (const std::string_view text : others) {
        EXPECT_FALSE(read_plain_move(text).has_value()) << text;
    }
    // decode() still answers them as the full reader does.
    EXPECT_EQ(accepted_body<MoveRequest>(others[0]).move, "e2ee4");
    EXPECT_EQ(accepted(others[2]).id, "caf\xc3\xa9");
    expect_bad_request(others[3], "\"ply\"");
    EXPECT_EQ(accepted_body<MoveRequest>(others[10]).ply, 2U);  // nlohmann: the last one wins
    expect_bad_request(others[12], "\"extra\"");
    expect_bad_request(others[15], "\"game\"");
    EXPECT_EQ(refused(others[18]).code, ErrorCode::bad_json);
}

}  // namespace
}  // namespace arbiter::protocol::test
