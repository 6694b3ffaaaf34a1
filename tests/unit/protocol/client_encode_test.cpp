// encode() of client messages: what arbiter-cli and arbiter-load send. decode() reads every one
// back as the same message, and the frames keep the protocol's field order.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/protocol/codec.hpp"
#include "tests/unit/protocol/samples.hpp"

namespace arbiter::protocol::test {
namespace {

using rules::Variant;

TEST(ClientEncode, EverySampleReadsBackAsTheSameMessage) {
    for (const std::string_view frame : samples::client_frames()) {
        const auto message = decode(frame);
        ASSERT_TRUE(message) << frame;
        const std::string encoded = encode(*message);
        const auto back = decode(encoded);
        ASSERT_TRUE(back) << encoded << " -> " << back.error().message;
        EXPECT_EQ(*back, *message) << frame << " -> " << encoded;
    }
}

TEST(ClientEncode, FieldsInTheProtocolsOrderAndTheIdLast) {
    Create create;
    create.variant = Variant::xiangqi;
    create.side = SidePreference::first;
    create.clock = ClockSpec{300000, 2000};
    create.is_private = true;
    create.position = "startpos";
    create.opponent = EngineOpponent{"fairy-stockfish", 3};
    EXPECT_EQ(encode(ClientMessage{"c", create}),
              R"({"type":"create","variant":"xiangqi","side":"first",)"
              R"("clock":{"initial_ms":300000,"increment_ms":2000},"private":true,)"
              R"("position":"startpos","opponent":{"engine":"fairy-stockfish","level":3},)"
              R"("id":"c"})");
    EXPECT_EQ(encode(ClientMessage{std::nullopt, Resume{"g1", "tok", 12}}),
              R"({"type":"resume","game":"g1","token":"tok","since":12})");
    EXPECT_EQ(
        encode(ClientMessage{"d", OfferRequest{"g1", OfferKind::takeback, OfferAction::decline}}),
        R"({"type":"takeback","game":"g1","action":"decline","id":"d"})");
    EXPECT_EQ(encode(ClientMessage{std::nullopt, Claim{"g1", ClaimKind::draw}}),
              R"({"type":"claim","game":"g1","kind":"draw"})");
    GamesQuery query;
    query.status = GameStatus::ended;
    query.variant = Variant::draughts;
    query.limit = 20;
    query.before = "g0";
    EXPECT_EQ(encode(ClientMessage{"q", query}),
              R"({"type":"games","status":"ended","variant":"draughts","limit":20,"before":"g0",)"
              R"("id":"q"})");
    EXPECT_EQ(encode(ClientMessage{"l", LobbySubscribe{20, "g0"}}),
              R"({"type":"lobby","limit":20,"after":"g0","id":"l"})");
}

TEST(ClientEncode, DefaultsAreLeftOut) {
    EXPECT_EQ(encode(ClientMessage{std::nullopt, Create{}}),
              R"({"type":"create","variant":"chess","side":"random"})");
    EXPECT_EQ(encode(ClientMessage{std::nullopt, GamesQuery{}}), R"({"type":"games"})");
    EXPECT_EQ(encode(ClientMessage{std::nullopt, Watch{"g1", std::nullopt}}),
              R"({"type":"watch","game":"g1"})");
    EXPECT_EQ(encode(ClientMessage{"p", Ping{}}), R"({"type":"ping","id":"p"})");
    EXPECT_EQ(encode(ClientMessage{std::nullopt, LobbySubscribe{}}), R"({"type":"lobby"})");
}

// arbiter-load's frames were written by hand until it used the codec: they stay these bytes.
TEST(ClientEncode, TheLoadToolsFramesAreAsBefore) {
    Create create;
    create.variant = Variant::chess;
    create.side = SidePreference::first;
    EXPECT_EQ(encode(ClientMessage{"c", create}),
              R"({"type":"create","variant":"chess","side":"first","id":"c"})");
    EXPECT_EQ(encode(ClientMessage{std::nullopt, Join{"Xq7Rk2LmP9aB"}}),
              R"({"type":"join","game":"Xq7Rk2LmP9aB"})");
    EXPECT_EQ(encode(ClientMessage{"m", MoveRequest{"Xq7Rk2LmP9aB", "e2e4", 12}}),
              R"({"type":"move","game":"Xq7Rk2LmP9aB","move":"e2e4","ply":12,"id":"m"})");
    EXPECT_EQ(encode(ClientMessage{std::nullopt, MoveRequest{"g1", "e2e4", 12, 340}}),
              R"({"type":"move","game":"g1","move":"e2e4","ply":12,"think_ms":340})");
    EXPECT_EQ(encode(ClientMessage{std::nullopt, Resume{"g1", "t0", std::nullopt}}),
              R"({"type":"resume","game":"g1","token":"t0"})");
    EXPECT_EQ(encode(ClientMessage{std::nullopt, Unwatch{"g1"}}),
              R"({"type":"unwatch","game":"g1"})");
    EXPECT_EQ(encode(ClientMessage{"r", ReplayRequest{"g1"}}),
              R"({"type":"replay","game":"g1","id":"r"})");
    EXPECT_EQ(encode(ClientMessage{"r", Watch{"g1", std::nullopt}}),
              R"({"type":"watch","game":"g1","id":"r"})");
}

TEST(ClientEncode, HelloCarriesItsTokenOnlyWhenThereIsOne) {
    EXPECT_EQ(encode(ClientMessage{std::nullopt, Hello{"Ana", std::nullopt}}),
              R"({"type":"hello","name":"Ana"})");
    EXPECT_EQ(encode(ClientMessage{std::nullopt, Hello{"Ana", "0123abcd"}}),
              R"({"type":"hello","name":"Ana","token":"0123abcd"})");
}

TEST(ClientEncode, TextIsEscapedAsJson) {
    const std::string name = "Ana \\ \"\xE7\x8E\x8B\"";
    const std::string encoded = encode(ClientMessage{"a\nb", Hello{name}});
    EXPECT_EQ(encoded,
              "{\"type\":\"hello\",\"name\":\"Ana \\\\ \\\"\xE7\x8E\x8B\\\"\",\"id\":\"a\\nb\"}");
    const auto back = decode(encoded);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(std::get<Hello>(back->body).name, name);
    EXPECT_EQ(back->id, "a\nb");
}

}  // namespace
}  // namespace arbiter::protocol::test
