// The requests arbiter-cli sends for "play the computer" and the engine list it prints.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "client/cli/engines.hpp"
#include "client/cli/options.hpp"
#include "client/cli/requests.hpp"
#include "common/protocol/codec.hpp"

namespace arbiter::client {
namespace {

using nlohmann::json;

// The engine list of a welcome, as the client gets it: decoded by the protocol's codec.
std::vector<std::string> engine_lines(const json& welcome) {
    const auto decoded = protocol::decode_server(
        welcome.dump(), [](std::string_view) { return std::optional<rules::Variant>(); });
    EXPECT_TRUE(decoded) << welcome.dump() << " -> " << decoded.error().message;
    return decoded ? client::engine_lines(std::get<protocol::Welcome>(decoded->body))
                   : std::vector<std::string>{};
}

CliOptions parsed(std::vector<std::string> arguments) {
    auto options = parse_arguments(arguments);
    EXPECT_TRUE(options) << options.error();
    return options ? *options : CliOptions{};
}

TEST(CliRequests, CreateAgainstAnEngineSendsOpponentWithLevel) {
    const json message = json::parse(requests::create(
        parsed({"create", "draughts", "--opponent", "builtin", "--level", "7", "--side", "first"}),
        "c1"));
    EXPECT_EQ(message["type"], "create");
    EXPECT_EQ(message["variant"], "draughts");
    EXPECT_EQ(message["side"], "first");
    EXPECT_EQ(message["id"], "c1");
    EXPECT_EQ(message["opponent"], (json{{"engine", "builtin"}, {"level", 7}}));
}

TEST(CliRequests, CreateAgainstAnEngineDefaultsToLevelThree) {
    const json message =
        json::parse(requests::create(parsed({"create", "chess", "--opponent=stockfish"}), "c1"));
    EXPECT_EQ(message["opponent"], (json{{"engine", "stockfish"}, {"level", 3}}));
}

TEST(CliRequests, CreateWithoutOpponentWaitsForAPerson) {
    const json message = json::parse(requests::create(parsed({"create", "xiangqi"}), "c1"));
    EXPECT_FALSE(message.contains("opponent"));
}

TEST(CliOptions, LevelIsAWholeNumberFromOneToEight) {
    for (const char* level : {"1", "8"}) {
        EXPECT_TRUE(parse_arguments({"create", "chess", "--opponent", "builtin", "--level", level}))
            << level;
    }
    for (const char* level : {"0", "9", "2.5", "x", ""}) {
        EXPECT_FALSE(
            parse_arguments({"create", "chess", "--opponent", "builtin", "--level", level}))
            << level;
    }
}

TEST(CliOptions, LevelNeedsAnOpponentAndOpponentNeedsCreate) {
    auto level_alone = parse_arguments({"create", "chess", "--level", "4"});
    ASSERT_FALSE(level_alone);
    EXPECT_NE(level_alone.error().find("--opponent"), std::string::npos);
    EXPECT_FALSE(parse_arguments({"join", "g1", "--opponent", "builtin"}));
    EXPECT_FALSE(parse_arguments({"create", "chess", "--opponent", ""}));
}

TEST(CliOptions, EnginesTakesNoOperand) {
    auto options = parse_arguments({"engines"});
    ASSERT_TRUE(options);
    EXPECT_EQ(options->command, Command::engines);
    EXPECT_FALSE(parse_arguments({"engines", "chess"}));
}

TEST(CliEngines, ListsEachEngineWithItsVariants) {
    const json welcome = json::parse(
        R"({"type":"welcome","server":"arbiter/0.1.0","protocol":1,"engines":[
            {"name":"builtin","variants":["chess","xiangqi","draughts"]},
            {"name":"stockfish","variants":["chess"]}],"user":null})");
    const std::vector<std::string> lines = engine_lines(welcome);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], "builtin  chess, xiangqi, draughts");
    EXPECT_EQ(lines[1], "stockfish  chess");
    EXPECT_NE(lines[2].find("--opponent"), std::string::npos);
}

TEST(CliEngines, SaysSoWhenTheServerListsNone) {
    const json welcome = json::parse(
        R"({"type":"welcome","server":"arbiter/0.1.0","protocol":1,"engines":[],"user":null})");
    const std::vector<std::string> lines = engine_lines(welcome);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("no engines"), std::string::npos);
}

}  // namespace
}  // namespace arbiter::client
