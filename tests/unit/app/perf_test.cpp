// Rating pools: which speed a clock is rated at, the deviation's growth with time away, and when a
// rating is provisional.
#include "server/app/perf.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace arbiter::server::app {
namespace {

constexpr std::int64_t kDayMs = 86'400'000;

protocol::ClockSpec clock(std::int64_t initial_s, std::int64_t increment_s) {
    return {initial_s * 1000, increment_s * 1000};
}

TEST(Perf, SpeedsFollowLichessBoundsWithUltraBulletCountedAsBullet) {
    EXPECT_EQ(rated_speed(clock(15, 0)), RatedSpeed::bullet);  // ultra-bullet
    EXPECT_EQ(rated_speed(clock(60, 0)), RatedSpeed::bullet);
    EXPECT_EQ(rated_speed(clock(120, 1)), RatedSpeed::bullet);  // 160 s estimated
    EXPECT_EQ(rated_speed(clock(180, 0)), RatedSpeed::blitz);   // 180 s: the first blitz
    EXPECT_EQ(rated_speed(clock(180, 2)), RatedSpeed::blitz);   // 260 s
    EXPECT_EQ(rated_speed(clock(480, 0)), RatedSpeed::rapid);
    EXPECT_EQ(rated_speed(clock(600, 5)), RatedSpeed::rapid);  // 800 s
    EXPECT_EQ(rated_speed(clock(1500, 0)), RatedSpeed::classical);
    EXPECT_EQ(rated_speed(std::nullopt), std::nullopt) << "untimed games are not rated";
}

TEST(Perf, SpeedNamesRoundTripAndUnknownNamesAreRefused) {
    for (auto speed :
         {RatedSpeed::bullet, RatedSpeed::blitz, RatedSpeed::rapid, RatedSpeed::classical}) {
        EXPECT_EQ(parse_rated_speed(to_string(speed)), speed);
    }
    EXPECT_EQ(to_string(RatedSpeed::classical), "classical");
    EXPECT_EQ(parse_rated_speed("ultrabullet"), std::nullopt);
    EXPECT_EQ(parse_rated_speed("Blitz"), std::nullopt);
    EXPECT_EQ(parse_rated_speed(""), std::nullopt);
}

TEST(Perf, ProvisionalAboveLichessDeviationBound) {
    EXPECT_TRUE(provisional({1500, 350, 0.06}));
    EXPECT_TRUE(provisional({1500, 110.01, 0.06}));
    EXPECT_FALSE(provisional({1500, 110, 0.06}));
    EXPECT_FALSE(provisional({1500, 45, 0.06}));
}

TEST(Perf, DeviationGrowsWithDaysAwayAtLichessRateAndNeverPastTheInitial) {
    const glicko2::Rating settled{1720, 60, 0.06};
    EXPECT_EQ(rating_at(settled, 1000, 1000).deviation, 60) << "no time passed";
    EXPECT_EQ(rating_at(settled, 1000, 500).deviation, 60) << "a clock that went back";
    const auto week = rating_at(settled, 0, 7 * kDayMs);
    // phi' = sqrt(phi^2 + t sigma^2) on the Glicko-2 scale, t = 7 x 0.21436 periods.
    constexpr double kScale = 173.7178;
    const double phi = 60 / kScale;
    const double expected = std::sqrt(phi * phi + 7 * kRatingPeriodsPerDay * 0.06 * 0.06) * kScale;
    EXPECT_NEAR(week.deviation, expected, 1e-9);
    EXPECT_EQ(week.rating, 1720) << "time away moves only the deviation";
    EXPECT_EQ(week.volatility, 0.06);
    const auto year = rating_at(settled, 0, 365 * kDayMs);
    EXPECT_TRUE(provisional(year)) << "a year away makes the rating provisional again";
    EXPECT_EQ(rating_at(settled, 0, 7300 * kDayMs).deviation, 350) << "capped at the initial";
}

TEST(Perf, ShownRatingsAreRounded) {
    EXPECT_EQ(shown(1464.0507), 1464);
    EXPECT_EQ(shown(1499.5), 1500);
    EXPECT_EQ(shown(1512.49), 1512);
}

}  // namespace
}  // namespace arbiter::server::app
