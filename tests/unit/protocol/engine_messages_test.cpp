// The engine-opponent parts of the protocol: create.opponent, welcome.engines and the `engine`
// mark on a player object.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "decode_helpers.hpp"

namespace arbiter::protocol::test {
namespace {

using Json = nlohmann::json;

Json encoded(ServerBody body) {
    return Json::parse(encode(ServerMessage{std::move(body), {}}), nullptr, false);
}

TEST(ProtocolDecodeOpponent, EngineAndLevelAreRead) {
    const Create create = accepted_body<Create>(
        R"({"type":"create","variant":"xiangqi","opponent":{"engine":"fairy-stockfish","level":5}})");
    ASSERT_TRUE(create.opponent.has_value());
    EXPECT_EQ(*create.opponent, (EngineOpponent{"fairy-stockfish", 5}));
}

TEST(ProtocolDecodeOpponent, AbsentMeansAPersonWillJoin) {
    EXPECT_FALSE(
        accepted_body<Create>(R"({"type":"create","variant":"chess"})").opponent.has_value());
}

TEST(ProtocolDecodeOpponent, LevelBoundsAreInclusive) {
    EXPECT_EQ(accepted_body<Create>(
                  R"({"type":"create","variant":"chess","opponent":{"engine":"b","level":1}})")
                  .opponent->level,
              1);
    EXPECT_EQ(accepted_body<Create>(
                  R"({"type":"create","variant":"chess","opponent":{"engine":"b","level":8}})")
                  .opponent->level,
              8);
    expect_bad_request(R"({"type":"create","variant":"chess","opponent":{"engine":"b","level":0}})",
                       "opponent.level");
    expect_bad_request(R"({"type":"create","variant":"chess","opponent":{"engine":"b","level":9}})",
                       "opponent.level");
}

TEST(ProtocolDecodeOpponent, MalformedOpponentIsRefused) {
    const auto with_opponent = [](const std::string& opponent) {
        return frame("create", "\"variant\":\"chess\",\"opponent\":" + opponent);
    };
    expect_bad_request(with_opponent("null"), "\"opponent\"");
    expect_bad_request(with_opponent("\"stockfish\""), "\"opponent\"");
    expect_bad_request(with_opponent(R"({"level":3})"), "opponent.engine");
    expect_bad_request(with_opponent(R"({"engine":"stockfish"})"), "opponent.level");
    expect_bad_request(with_opponent(R"({"engine":"","level":3})"), "opponent.engine");
    expect_bad_request(with_opponent(R"({"engine":"stock fish","level":3})"), "opponent.engine");
    expect_bad_request(with_opponent(R"({"engine":"s","level":3,"elo":1500})"), "opponent.elo");
}

TEST(ProtocolEncodeEngines, WelcomeListsEnginesWithTheirVariants) {
    Welcome welcome{"arbiter/0.1.0", kProtocolVersion, {}};
    welcome.engines = {
        EngineInfo{"builtin",
                   {rules::Variant::chess, rules::Variant::xiangqi, rules::Variant::draughts}},
        EngineInfo{"stockfish", {rules::Variant::chess}}};
    const Json json = encoded(welcome);
    EXPECT_EQ(json["engines"],
              Json::parse(R"([{"name":"builtin","variants":["chess","xiangqi","draughts"]},
                              {"name":"stockfish","variants":["chess"]}])"));
}

TEST(ProtocolEncodeEngines, WelcomeWithoutEnginesHasAnEmptyList) {
    EXPECT_EQ(encoded(Welcome{"arbiter/0.1.0", kProtocolVersion, {}})["engines"], Json::array());
}

TEST(ProtocolEncodeEngines, OnlyAnEngineSeatCarriesTheMark) {
    GameSummary summary;
    summary.game = "g1";
    summary.status = GameStatus::playing;
    summary.first = PlayerInfo{"Ana", true, false};
    summary.second = PlayerInfo{"Stockfish (level 3)", true, true};
    const Json players = encoded(LobbyList{{summary}})["games"][0]["players"];
    EXPECT_FALSE(players["white"].contains("engine"));
    EXPECT_EQ(players["black"]["engine"], true);
}

TEST(ProtocolErrorCodes, EngineUnavailableHasItsWireName) {
    EXPECT_EQ(to_string(ErrorCode::engine_unavailable), "engine_unavailable");
}

}  // namespace
}  // namespace arbiter::protocol::test
