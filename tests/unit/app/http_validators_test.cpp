// Validators of the static files and the conditional requests they answer (RFC 9110 8.8, 13).
#include "server/app/http_validators.hpp"

#include <gtest/gtest.h>

namespace arbiter::server::app {
namespace {

constexpr std::int64_t kRfcExample = 784111777;  // Sun, 06 Nov 1994 08:49:37 GMT
constexpr std::int64_t kNow = 1780000000;        // in 2026

TEST(HttpDate, IsWrittenAsImfFixdate) {
    EXPECT_EQ(format_http_date(kRfcExample), "Sun, 06 Nov 1994 08:49:37 GMT");
    EXPECT_EQ(format_http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
    EXPECT_EQ(format_http_date(951825599), "Tue, 29 Feb 2000 11:59:59 GMT");
}

TEST(HttpDate, TheYearHasFourDigitsAndReadsBack) {
    // Seen while writing fuzz_http's round-trip check: a date before year 1000 was written with
    // fewer digits, which no reader (ours included) takes.
    const auto year_999 = parse_http_date("Tue, 31 Dec 0999 23:59:59 GMT", kNow);
    ASSERT_TRUE(year_999.has_value());
    EXPECT_EQ(format_http_date(*year_999), "Tue, 31 Dec 0999 23:59:59 GMT");
    const auto year_0 = parse_http_date("Sat, 01 Jan 0000 00:00:00 GMT", kNow);
    ASSERT_TRUE(year_0.has_value());
    EXPECT_EQ(format_http_date(*year_0), "Sat, 01 Jan 0000 00:00:00 GMT");
    EXPECT_EQ(parse_http_date(format_http_date(*year_0), kNow), year_0);
}

TEST(HttpDate, TheThreeFormatsAreRead) {
    EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT", kNow), kRfcExample);
    EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT", kNow), kRfcExample);
    EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994", kNow), kRfcExample);
    EXPECT_EQ(parse_http_date("Wed Nov 16 08:49:37 1994", kNow), kRfcExample + 10 * 86400);
    // RFC 850's year is at most 50 years ahead, else the century before.
    EXPECT_EQ(parse_http_date("Thursday, 01-Jan-26 00:00:00 GMT", kNow),
              parse_http_date("Thu, 01 Jan 2026 00:00:00 GMT", kNow));
    EXPECT_EQ(parse_http_date("Saturday, 01-Jan-77 00:00:00 GMT", kNow),
              parse_http_date("Sat, 01 Jan 1977 00:00:00 GMT", kNow));
    for (const std::int64_t seconds : {0LL, 1LL, 86399LL, 951825599LL, 4102444800LL}) {
        EXPECT_EQ(parse_http_date(format_http_date(seconds), kNow), seconds);
    }
}

TEST(HttpDate, AnythingElseIsRefused) {
    for (const std::string_view text : {
             "",
             "yesterday",
             "Sun, 06 Nov 1994 08:49:37 UTC",
             "sun, 06 Nov 1994 08:49:37 GMT",   // names are case-sensitive
             "Sun, 6 Nov 1994 08:49:37 GMT",    // a day is two digits
             "Sun, -6 Nov 1994 08:49:37 GMT",   // no signs
             "Sun, 31 Feb 1994 08:49:37 GMT",   // no such day
             "Sun, 06 Nov 1994 24:00:00 GMT",   // no such hour
             "Sun, 06 Nov 1994 08:49:37 GMT ",  // nothing after it
             "Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT",  // one date only
             "Sunday, 06-Nov-1994 08:49:37 GMT",
             "Sun Nov 6 08:49:37 1994",
             "1994-11-06T08:49:37Z",
         }) {
        EXPECT_EQ(parse_http_date(text, kNow), std::nullopt) << text;
    }
}

TEST(FileValidators, WeakTagOfSizeAndNanosecondsAndLastModifiedInSeconds) {
    const auto validators = file_validators(1234, kRfcExample * 1'000'000'000 + 999'999'999, kNow);
    EXPECT_EQ(validators.etag, "W/\"4d2-ae1b981f7e3d3ff\"");
    EXPECT_EQ(validators.modified_seconds, kRfcExample);
    EXPECT_NE(file_validators(1234, kRfcExample * 1'000'000'000 + 1, kNow).etag, validators.etag);
    EXPECT_NE(file_validators(1235, kRfcExample * 1'000'000'000 + 999'999'999, kNow).etag,
              validators.etag);
    EXPECT_EQ(file_validators(1, -1, kNow).modified_seconds, -1) << "rounded down";
    EXPECT_EQ(file_validators(1, (kNow + 3600) * 1'000'000'000, kNow).modified_seconds, kNow)
        << "a time in the future reads as now";
}

struct NotModifiedTest : ::testing::Test {
    const FileValidators file = file_validators(10, kRfcExample * 1'000'000'000, kNow);
    const std::string last_modified = format_http_date(kRfcExample);

    bool with(std::optional<std::string> if_none_match,
              std::optional<std::string> if_modified_since) const {
        return not_modified(file, {std::move(if_none_match), std::move(if_modified_since)}, kNow);
    }
};

TEST_F(NotModifiedTest, IfNoneMatchComparesWeakly) {
    const std::string opaque = file.etag.substr(2);
    EXPECT_TRUE(with(file.etag, std::nullopt));
    EXPECT_TRUE(with(opaque, std::nullopt)) << "W/ or not, the same tag";
    EXPECT_TRUE(with("*", std::nullopt));
    EXPECT_TRUE(with("\"a,b\", W/\"x\" ," + file.etag, std::nullopt)) << "a list";
    EXPECT_FALSE(with("W/\"other\"", std::nullopt));
    EXPECT_FALSE(with("", std::nullopt));
    EXPECT_FALSE(with(opaque.substr(0, opaque.size() - 1), std::nullopt)) << "unclosed";
    EXPECT_FALSE(with(std::nullopt, std::nullopt));
}

TEST_F(NotModifiedTest, IfNoneMatchTakesPrecedence) {
    EXPECT_FALSE(with("W/\"other\"", last_modified));
    EXPECT_TRUE(with(file.etag, "Sun, 06 Nov 1994 08:49:36 GMT"));
}

TEST_F(NotModifiedTest, IfModifiedSinceThatTimeOrLater) {
    EXPECT_TRUE(with(std::nullopt, last_modified));
    EXPECT_TRUE(with(std::nullopt, "Sunday, 06-Nov-94 08:49:37 GMT"));
    EXPECT_TRUE(with(std::nullopt, "Mon, 07 Nov 1994 00:00:00 GMT"));
    EXPECT_FALSE(with(std::nullopt, "Sun, 06 Nov 1994 08:49:36 GMT"));
}

// RFC 9110 13.1.3: a field value that is not one valid HTTP-date is ignored.
TEST_F(NotModifiedTest, MalformedIfModifiedSinceIsIgnored) {
    EXPECT_FALSE(with(std::nullopt, "Mon, 07 Nov 1994"));
    EXPECT_FALSE(with(std::nullopt, "tomorrow"));
    EXPECT_FALSE(with(std::nullopt, last_modified + ", " + last_modified));
}

}  // namespace
}  // namespace arbiter::server::app
