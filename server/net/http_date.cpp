#include "server/net/http_date.hpp"

#include <array>
#include <chrono>

namespace arbiter::server::net {

namespace {

using std::chrono::days;
using std::chrono::sys_days;
using std::chrono::sys_seconds;

constexpr std::array<std::string_view, 7> kDays = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::array<std::string_view, 7> kLongDays = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                       "Thursday", "Friday", "Saturday"};
constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

std::string two_digits(unsigned value) {
    return {static_cast<char>('0' + value / 10 % 10), static_cast<char>('0' + value % 10)};
}

// The year is 4DIGIT (RFC 9110 5.6.7): year 999 is "0999". (A year past 9999 has no HTTP-date;
// it would keep its fifth digit.)
std::string year_digits(int year) {
    std::string digits = std::to_string(year);
    return year >= 0 && digits.size() < 4 ? std::string(4 - digits.size(), '0') + digits : digits;
}

/// Reads the fields of a date from left to right; any mismatch makes it fail for good. Names
/// are case-sensitive (RFC 9110 5.6.7: %s"Sun", %s"GMT").
class DateReader {
  public:
    explicit DateReader(std::string_view text) : rest_(text) {}

    bool ok() const { return ok_; }
    bool at_end() const { return ok_ && rest_.empty(); }

    void literal(std::string_view expected) {
        if (ok_ && rest_.starts_with(expected)) {
            rest_.remove_prefix(expected.size());
        } else {
            ok_ = false;
        }
    }

    /// Exactly `width` digits (no sign, no space).
    int number(std::size_t width) {
        if (!ok_ || rest_.size() < width) {
            ok_ = false;
            return 0;
        }
        int value = 0;
        for (std::size_t i = 0; i < width; ++i) {
            if (rest_[i] < '0' || rest_[i] > '9') {
                ok_ = false;
                return 0;
            }
            value = value * 10 + (rest_[i] - '0');
        }
        rest_.remove_prefix(width);
        return value;
    }

    /// Takes `text` when it comes next; no failure when it does not.
    bool skip(std::string_view text) {
        if (ok_ && rest_.starts_with(text)) {
            rest_.remove_prefix(text.size());
            return true;
        }
        return false;
    }

    /// One of `names`; its index.
    template <std::size_t N>
    unsigned name(const std::array<std::string_view, N>& names) {
        for (unsigned i = 0; i < N; ++i) {
            if (ok_ && rest_.starts_with(names[i])) {
                rest_.remove_prefix(names[i].size());
                return i;
            }
        }
        ok_ = false;
        return 0;
    }

    /// "HH:MM:SS" as seconds of the day; 60 seconds is a leap second (RFC 9110 5.6.7).
    std::int64_t time_of_day() {
        const int hour = number(2);
        literal(":");
        const int minute = number(2);
        literal(":");
        const int second = number(2);
        if (hour > 23 || minute > 59 || second > 60) {
            ok_ = false;
        }
        return (hour * 60 + minute) * 60 + second;
    }

  private:
    std::string_view rest_;
    bool ok_ = true;
};

std::optional<std::int64_t> to_seconds(int year, unsigned month, int day,
                                       std::int64_t seconds_of_day) {
    const std::chrono::year_month_day date{std::chrono::year(year), std::chrono::month(month + 1),
                                           std::chrono::day(static_cast<unsigned>(day))};
    if (!date.ok()) {
        return std::nullopt;  // 31 Feb and the like
    }
    return sys_seconds(sys_days(date)).time_since_epoch().count() + seconds_of_day;
}

int year_of(std::int64_t unix_seconds) {
    const auto day = std::chrono::floor<days>(sys_seconds(std::chrono::seconds(unix_seconds)));
    return static_cast<int>(std::chrono::year_month_day(day).year());
}

// IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT".
std::optional<std::int64_t> imf_fixdate(std::string_view text) {
    DateReader in(text);
    in.name(kDays);
    in.literal(", ");
    const int day = in.number(2);
    in.literal(" ");
    const unsigned month = in.name(kMonths);
    in.literal(" ");
    const int year = in.number(4);
    in.literal(" ");
    const std::int64_t time = in.time_of_day();
    in.literal(" GMT");
    return in.at_end() ? to_seconds(year, month, day, time) : std::nullopt;
}

// RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT".
std::optional<std::int64_t> rfc850_date(std::string_view text, std::int64_t now_seconds) {
    DateReader in(text);
    in.name(kLongDays);
    in.literal(", ");
    const int day = in.number(2);
    in.literal("-");
    const unsigned month = in.name(kMonths);
    in.literal("-");
    const int two_digit_year = in.number(2);
    in.literal(" ");
    const std::int64_t time = in.time_of_day();
    in.literal(" GMT");
    if (!in.at_end()) {
        return std::nullopt;
    }
    // RFC 9110 5.6.7: a year that would be more than 50 years in the future is the most recent
    // past year with the same last two digits.
    const int this_year = year_of(now_seconds);
    int year = this_year - this_year % 100 + two_digit_year;
    if (year > this_year + 50) {
        year -= 100;
    }
    return to_seconds(year, month, day, time);
}

// asctime: "Sun Nov  6 08:49:37 1994" (a day below 10 is padded with a space).
std::optional<std::int64_t> asctime_date(std::string_view text) {
    DateReader in(text);
    in.name(kDays);
    in.literal(" ");
    const unsigned month = in.name(kMonths);
    in.literal(" ");
    const int day = in.skip(" ") ? in.number(1) : in.number(2);  // date3: 2DIGIT / SP DIGIT
    in.literal(" ");
    const std::int64_t time = in.time_of_day();
    in.literal(" ");
    const int year = in.number(4);
    return in.at_end() ? to_seconds(year, month, day, time) : std::nullopt;
}

}  // namespace

std::string format_http_date(std::int64_t unix_seconds) {
    const sys_seconds time{std::chrono::seconds(unix_seconds)};
    const sys_days day = std::chrono::floor<days>(time);
    const std::chrono::year_month_day date(day);
    const std::chrono::hh_mm_ss clock(time - day);
    return std::string(kDays[std::chrono::weekday(day).c_encoding()]) + ", " +
           two_digits(static_cast<unsigned>(date.day())) + " " +
           std::string(kMonths[static_cast<unsigned>(date.month()) - 1]) + " " +
           year_digits(static_cast<int>(date.year())) + " " +
           two_digits(static_cast<unsigned>(clock.hours().count())) + ":" +
           two_digits(static_cast<unsigned>(clock.minutes().count())) + ":" +
           two_digits(static_cast<unsigned>(clock.seconds().count())) + " GMT";
}

std::optional<std::int64_t> parse_http_date(std::string_view text, std::int64_t now_seconds) {
    if (auto seconds = imf_fixdate(text)) {
        return seconds;
    }
    if (auto seconds = rfc850_date(text, now_seconds)) {
        return seconds;
    }
    return asctime_date(text);
}

}  // namespace arbiter::server::net
