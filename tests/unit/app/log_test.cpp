// Structured log lines: every value escaped for its format, so no field can break a line.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "server/app/log.hpp"

namespace arbiter::server::app {
namespace {

constexpr std::string_view kTime = "2026-01-02T03:04:05.678Z";
// Quotes, a backslash, a newline, a carriage return, a tab, NUL, ESC and DEL in one value.
const std::string kHostile = std::string("a\"b\\c\nd\re\tf") + '\0' + "\x1b[31m\x7f";

TEST(LogFormat, ParsesTheThreeNamesOnly) {
    EXPECT_EQ(parse_log_format("json"), LogFormat::json);
    EXPECT_EQ(parse_log_format("logfmt"), LogFormat::logfmt);
    EXPECT_EQ(parse_log_format("text"), LogFormat::text);
    EXPECT_FALSE(parse_log_format("JSON"));
    EXPECT_FALSE(parse_log_format(""));
}

TEST(LogJson, EventAndFieldsRoundTrip) {
    const auto line = format_log_line(LogFormat::json, kTime, LogLevel::info, "game_created",
                                      {{"game", "abc"}, {"plies", 12}, {"rated", true}});
    const auto parsed = nlohmann::json::parse(line);
    EXPECT_EQ(parsed["time"], kTime);
    EXPECT_EQ(parsed["level"], "info");
    EXPECT_EQ(parsed["event"], "game_created");
    EXPECT_EQ(parsed["game"], "abc");
    EXPECT_EQ(parsed["plies"], 12);
    EXPECT_EQ(parsed["rated"], true);
}

TEST(LogJson, HostileValueStaysOneLineAndRoundTrips) {
    const auto line =
        format_log_line(LogFormat::json, kTime, LogLevel::warn, "", {{"msg", kHostile}});
    EXPECT_EQ(line.find('\n'), std::string::npos);
    EXPECT_EQ(line.find('\r'), std::string::npos);
    EXPECT_EQ(line.find('\0'), std::string::npos);
    const auto parsed = nlohmann::json::parse(line);
    EXPECT_EQ(parsed["msg"], kHostile);
    EXPECT_FALSE(parsed.contains("event"));
}

TEST(LogJson, InvalidUtf8IsReplacedNotPassedThrough) {
    const std::string bad = "ok\xff\xc0\xafz";
    const auto line = format_log_line(LogFormat::json, kTime, LogLevel::info, "e", {{"v", bad}});
    const auto parsed = nlohmann::json::parse(line);  // throws on invalid UTF-8
    EXPECT_EQ(parsed["v"], "ok\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz");
}

TEST(LogJson, ValidUtf8IsKept) {
    const std::string name = "Jos\xc3\xa9 \xe8\xb1\xa1";  // José 象
    const auto line = format_log_line(LogFormat::json, kTime, LogLevel::info, "e", {{"v", name}});
    EXPECT_EQ(nlohmann::json::parse(line)["v"], name);
}

TEST(LogLogfmt, PlainValuesAreBare) {
    const auto line = format_log_line(LogFormat::logfmt, kTime, LogLevel::info, "game_ended",
                                      {{"game", "abc"}, {"result", "1-0"}});
    EXPECT_EQ(line,
              "time=2026-01-02T03:04:05.678Z level=info event=game_ended game=abc result=1-0");
}

TEST(LogLogfmt, ValuesWithSpacesQuotesOrEqualsAreQuotedAndEscaped) {
    const auto line = format_log_line(LogFormat::logfmt, kTime, LogLevel::error, "",
                                      {{"msg", "a b"}, {"x", "k=v"}, {"y", kHostile}, {"z", ""}});
    EXPECT_EQ(line,
              "time=2026-01-02T03:04:05.678Z level=error msg=\"a b\" x=\"k=v\" "
              "y=\"a\\\"b\\\\c\\nd\\re\\tf\\u0000\\u001b[31m\\u007f\" z=\"\"");
}

TEST(LogText, OneLineWithEventAndEscapedFields) {
    const auto line = format_log_line(LogFormat::text, kTime, LogLevel::debug, "move_accepted",
                                      {{"game", "g1"}, {"note", "two\nlines"}});
    EXPECT_EQ(line, "2026-01-02T03:04:05.678Z debug move_accepted game=g1 note=\"two\\nlines\"");
}

TEST(LogLevelName, NamesEveryLevel) {
    EXPECT_EQ(level_name(LogLevel::trace), "trace");
    EXPECT_EQ(level_name(LogLevel::warn), "warn");
    EXPECT_EQ(level_name(LogLevel::error), "error");
}

TEST(LogOncePerSecond, LetsTheFirstLineThroughThenOneASecond) {
    OncePerSecond gate;
    const std::chrono::steady_clock::time_point start{};  // a fake clock may start at zero
    EXPECT_TRUE(gate.allow(start));
    EXPECT_FALSE(gate.allow(start));
    EXPECT_FALSE(gate.allow(start + std::chrono::milliseconds(999)));
    EXPECT_TRUE(gate.allow(start + std::chrono::seconds(1)));
    EXPECT_FALSE(gate.allow(start + std::chrono::milliseconds(1500)));
    EXPECT_TRUE(gate.allow(start + std::chrono::seconds(5)));
}

TEST(SampledLog, OneLineASecondPerKindSayingHowManyWereLeftOut) {
    using namespace std::chrono_literals;
    SampledLog sampled(2);
    const std::chrono::steady_clock::time_point start{std::chrono::hours(1)};
    EXPECT_EQ(sampled.allow(0, start), 0u);
    EXPECT_EQ(sampled.allow(0, start + 1ms), std::nullopt);
    EXPECT_EQ(sampled.allow(0, start + 999ms), std::nullopt);
    EXPECT_EQ(sampled.allow(1, start + 999ms), 0u) << "each kind on its own";
    EXPECT_EQ(sampled.allow(0, start + 1'000ms), 2u) << "the two left out";
    EXPECT_EQ(sampled.allow(0, start + 1'500ms), std::nullopt);
    EXPECT_EQ(sampled.allow(0, start + 5'000ms), 1u);
    EXPECT_EQ(sampled.allow(0, start + 6'000ms), 0u);
    EXPECT_EQ(sampled.allow(7, start), 0u) << "a kind it does not sample goes through";
}

}  // namespace
}  // namespace arbiter::server::app
