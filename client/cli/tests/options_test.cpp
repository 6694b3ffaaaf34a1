#include <gtest/gtest.h>

#include "client/cli/options.hpp"
#include "client/cli/ws_client.hpp"

namespace arbiter::client {
namespace {

Expected<CliOptions, std::string> parse(std::vector<std::string> arguments) {
    return parse_arguments(arguments);
}

TEST(CliOptions, CreateTakesVariantSideClockAndPosition) {
    auto options = parse({"--server", "ws://10.0.0.1:9000/ws", "create", "xiangqi", "--side",
                          "second", "--clock=5+3", "--private", "--position", "9/9 w"});
    ASSERT_TRUE(options) << options.error();
    EXPECT_EQ(options->command, Command::create);
    EXPECT_EQ(options->server, "ws://10.0.0.1:9000/ws");
    EXPECT_EQ(options->variant, "xiangqi");
    EXPECT_EQ(options->side, "second");
    ASSERT_TRUE(options->clock);
    EXPECT_EQ(options->clock->initial_ms, 300000u);
    EXPECT_EQ(options->clock->increment_ms, 3000u);
    EXPECT_TRUE(options->is_private);
    EXPECT_EQ(options->position, "9/9 w");
}

TEST(CliOptions, CreateRefusesAnUnknownVariant) {
    auto options = parse({"create", "go"});
    ASSERT_FALSE(options);
    EXPECT_NE(options.error().find("unknown variant"), std::string::npos);
}

TEST(CliOptions, CreateNeedsAVariant) {
    EXPECT_FALSE(parse({"create"}));
}

TEST(CliOptions, SideMustBeFirstSecondOrRandom) {
    EXPECT_FALSE(parse({"create", "chess", "--side", "white"}));
    EXPECT_TRUE(parse({"create", "chess", "--side", "random"}));
}

TEST(CliOptions, GameCommandsTakeExactlyOneGame) {
    for (const char* command : {"join", "resume", "watch", "replay"}) {
        auto options = parse({command, "g7Kq2"});
        ASSERT_TRUE(options) << command;
        EXPECT_EQ(options->game, "g7Kq2");
        EXPECT_FALSE(parse({command})) << command;
        EXPECT_FALSE(parse({command, "a", "b"})) << command;
    }
}

TEST(CliOptions, ResumeTakesAToken) {
    auto options = parse({"resume", "g1", "--token", "abc"});
    ASSERT_TRUE(options);
    EXPECT_EQ(options->command, Command::resume);
    EXPECT_EQ(options->token, "abc");
}

TEST(CliOptions, OptionsMayComeBeforeTheCommand) {
    auto options = parse({"--json", "--no-color", "--numbers", "--flip", "watch", "g1"});
    ASSERT_TRUE(options);
    EXPECT_TRUE(options->json);
    EXPECT_FALSE(options->color);
    EXPECT_FALSE(options->unicode);
    EXPECT_TRUE(options->numbers);
    EXPECT_TRUE(options->flip);
}

TEST(CliOptions, AsciiKeepsColours) {
    auto options = parse({"--ascii", "lobby"});
    ASSERT_TRUE(options);
    EXPECT_TRUE(options->color);
    EXPECT_FALSE(options->unicode);
}

TEST(CliOptions, GamesFiltersAreChecked) {
    auto options = parse({"games", "--status", "ended", "--variant", "chess", "--limit", "20"});
    ASSERT_TRUE(options);
    EXPECT_EQ(options->status, "ended");
    EXPECT_EQ(options->variant, "chess");
    EXPECT_EQ(options->limit, 20);
    EXPECT_FALSE(parse({"games", "--status", "over"}));
    EXPECT_FALSE(parse({"games", "--limit", "0"}));
    EXPECT_FALSE(parse({"games", "--limit", "201"}));
    EXPECT_FALSE(parse({"games", "--limit", "2.5"}));
}

TEST(CliOptions, UnknownOptionsAndCommandsAreRefused) {
    EXPECT_FALSE(parse({"--colour", "lobby"}));
    EXPECT_FALSE(parse({"play"}));
    EXPECT_FALSE(parse({"lobby", "extra"}));
    EXPECT_FALSE(parse({"--json=yes", "lobby"}));
}

TEST(CliOptions, AnOptionOfAnotherCommandIsRefused) {
    // Each was silently ignored: `join` does not choose a side, `watch` has no clock.
    const std::pair<std::vector<std::string>, std::string> cases[] = {
        {{"join", "g1", "--side", "first"}, "--side is for create"},
        {{"watch", "g1", "--clock", "5+3"}, "--clock is for create"},
        {{"games", "--private"}, "--private is for create"},
        {{"--position", "8/8 w", "lobby"}, "--position is for create"},
        {{"join", "g1", "--opponent", "builtin"}, "--opponent is for create"},
        {{"join", "g1", "--token", "abc"}, "--token is for resume"},
        {{"watch", "g1", "--print"}, "--print is for replay"},
        {{"lobby", "--status", "ended"}, "--status is for games"},
        {{"replay", "g1", "--variant=chess"}, "--variant is for games"},
        {{"engines", "--limit", "5"}, "--limit is for games"},
        {{"games", "--once"}, "--once is for lobby"},
    };
    for (const auto& [arguments, refusal] : cases) {
        auto options = parse(arguments);
        ASSERT_FALSE(options) << refusal;
        EXPECT_EQ(options.error(), refusal);
    }
    // Options for every command still go with any of them.
    for (const std::vector<std::string>& arguments :
         {std::vector<std::string>{"watch", "g1", "--flip", "--numbers", "--json", "--name", "A"},
          std::vector<std::string>{"--ascii", "--no-color", "games", "--status", "ended"},
          std::vector<std::string>{"lobby", "--once"},
          std::vector<std::string>{"replay", "g1", "--print"},
          std::vector<std::string>{"resume", "g1", "--token", "abc"}}) {
        EXPECT_TRUE(parse(arguments)) << arguments.front();
    }
}

TEST(CliOptions, AnOptionWithoutItsValueIsRefused) {
    auto options = parse({"lobby", "--server"});
    ASSERT_FALSE(options);
    EXPECT_NE(options.error().find("--server"), std::string::npos);
}

TEST(CliOptions, NoArgumentsOrHelpMeanHelp) {
    EXPECT_EQ(parse({})->command, Command::help);
    EXPECT_EQ(parse({"--help"})->command, Command::help);
    EXPECT_EQ(parse({"help"})->command, Command::help);
}

TEST(CliRatingRange, EitherBoundMayBeOpen) {
    auto both = parse_rating_range("1400-1800");
    ASSERT_TRUE(both);
    EXPECT_EQ(both->min, 1400);
    EXPECT_EQ(both->max, 1800);
    auto floor = parse_rating_range("1400-");
    ASSERT_TRUE(floor);
    EXPECT_EQ(floor->min, 1400);
    EXPECT_FALSE(floor->max);
    EXPECT_EQ(parse_rating_range("-1800")->max, 1800);
    EXPECT_FALSE(parse_rating_range("1800-1400"));
    EXPECT_FALSE(parse_rating_range("-"));
    EXPECT_FALSE(parse_rating_range("1500"));
    EXPECT_FALSE(parse_rating_range("abc-1800"));
}

TEST(CliRatingRange, CreateTakesRatedAndTheRange) {
    auto options =
        parse({"create", "chess", "--clock", "3+2", "--rated", "--rating-range", "1400-"});
    ASSERT_TRUE(options) << options.error();
    EXPECT_TRUE(options->rated);
    ASSERT_TRUE(options->rating_range);
    EXPECT_EQ(options->rating_range->min, 1400);
}

TEST(CliClock, MinutesMayHaveAFraction) {
    auto clock = parse_clock("0.5+0");
    ASSERT_TRUE(clock);
    EXPECT_EQ(clock->initial_ms, 30000u);
    EXPECT_EQ(clock->increment_ms, 0u);
}

TEST(CliClock, RefusesWhatTheProtocolRefuses) {
    EXPECT_FALSE(parse_clock("5"));
    EXPECT_FALSE(parse_clock("0+3"));
    EXPECT_FALSE(parse_clock("1441+0"));
    EXPECT_FALSE(parse_clock("5+3601"));
    EXPECT_FALSE(parse_clock("-1+2"));
    EXPECT_FALSE(parse_clock("x+2"));
    EXPECT_TRUE(parse_clock("1440+3600"));
}

// Found in review: nlohmann's dump() throws on text that is not UTF-8, so `--name $'Ana\xff'`
// ended the client with an uncaught type_error.
TEST(CliOptions, ArgumentsThatAreNotUtf8AreRefused) {
    auto name = parse({"--name", "Ana\xff", "create", "chess"});
    ASSERT_FALSE(name);
    EXPECT_EQ(name.error(), "argument 2 is not valid UTF-8 text");
    EXPECT_FALSE(parse({"create", "chess", "--position=\xe9"}));
    EXPECT_FALSE(parse({"join", "g\xff"}));
    EXPECT_FALSE(parse({"games", "--variant", "chess\xc0"}));
}

TEST(CliOptions, TextOptionsKeepToTheProtocolLimits) {
    EXPECT_TRUE(parse({"--name", std::string(32, 'a'), "create", "chess"}));
    EXPECT_TRUE(parse({"--name",
                       "Ana L\xc3\xba"
                       "cia",
                       "create", "chess"}));
    auto long_name = parse({"--name", std::string(33, 'a'), "create", "chess"});
    ASSERT_FALSE(long_name);
    EXPECT_NE(long_name.error().find("--name is 1 to 32 characters"), std::string::npos);
    EXPECT_FALSE(parse({"--name", "Ana\tBo", "create", "chess"}));
    EXPECT_FALSE(parse({"create", "chess", "--position", std::string(257, 'p')}));
    EXPECT_FALSE(parse({"create", "chess", "--opponent", "stock fish"}));
    EXPECT_FALSE(parse({"join", std::string(33, 'g')}));
    EXPECT_FALSE(parse({"watch", "g 1"}));
    EXPECT_FALSE(parse({"resume", "g1", "--token", "a b"}));
    EXPECT_FALSE(parse({"games", "--variant", "go"}));
}

// Found in exploratory QA: a --server URL that could never work was taken, and the session then
// failed as if the server were down (exit 1, "cannot connect"), instead of as a usage error.
TEST(CliOptions, AServerUrlThatCannotWorkIsAUsageError) {
    for (const char* url : {"http://127.0.0.1:8080/ws", "127.0.0.1:8080", "ws://:8080/ws",
                            "ws://127.0.0.1:99999/ws", "ws://127.0.0.1:0/ws", "ws://[::1/ws"}) {
        auto options = parse_arguments({"--server", url, "games"});
        ASSERT_FALSE(options) << url;
        EXPECT_NE(options.error().find("--server"), std::string::npos) << options.error();
    }
    EXPECT_TRUE(parse_arguments({"--server=ws://example.org/ws", "games"}));
}

// Found in exploratory QA: ws://[::1]:8080/ws was split at its last colon and the client tried
// to resolve "[::1]".
TEST(CliWsUrl, AnIpv6AddressIsWrittenInBrackets) {
    auto url = parse_ws_url("ws://[::1]:18765/ws");
    ASSERT_TRUE(url) << url.error();
    EXPECT_EQ(url->host, "::1");
    EXPECT_EQ(url->port, "18765");
    EXPECT_EQ(url->target, "/ws");
    auto without_port = parse_ws_url("ws://[fe80::1]/play");
    ASSERT_TRUE(without_port) << without_port.error();
    EXPECT_EQ(without_port->host, "fe80::1");
    EXPECT_EQ(without_port->port, "80");
    EXPECT_EQ(without_port->target, "/play");
    EXPECT_FALSE(parse_ws_url("ws://[::1]x:80/ws"));
    auto plain = parse_ws_url("ws://127.0.0.1:8080");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->host, "127.0.0.1");
    EXPECT_EQ(plain->port, "8080");
}

}  // namespace
}  // namespace arbiter::client
