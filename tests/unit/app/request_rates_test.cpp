#include "server/app/request_rates.hpp"

#include <gtest/gtest.h>

namespace arbiter::server::app {
namespace {

using namespace std::chrono_literals;
const RequestRates::TimePoint start{std::chrono::hours(1)};

TEST(RequestRates, EachClientHasItsOwnBucket) {
    RequestRates rates(1, 2);
    EXPECT_EQ(rates.take("203.0.113.7", start), std::nullopt);
    EXPECT_EQ(rates.take("203.0.113.7", start), std::nullopt);
    EXPECT_EQ(rates.take("203.0.113.7", start + 250ms), RequestRates::Duration(750ms));
    EXPECT_EQ(rates.take("203.0.113.8", start + 250ms), std::nullopt);
    EXPECT_EQ(rates.take("203.0.113.7", start + 1s), std::nullopt);
}

TEST(RequestRates, AClientWhoseBucketIsFullAgainIsForgotten) {
    RequestRates rates(1, 2);
    for (int i = 0; i < 100; ++i) {
        ASSERT_EQ(rates.take("198.51.100." + std::to_string(i), start), std::nullopt);
    }
    EXPECT_EQ(rates.client_count(), 100u);
    // One second later every bucket has its token back: only the one asking now is kept.
    EXPECT_EQ(rates.take("192.0.2.1", start + 1s), std::nullopt);
    EXPECT_EQ(rates.client_count(), 1u);
    // A client forgotten starts again with a full bucket: the same as kept.
    EXPECT_EQ(rates.take("198.51.100.1", start + 1s), std::nullopt);
    EXPECT_EQ(rates.take("198.51.100.1", start + 1s), std::nullopt);
    EXPECT_NE(rates.take("198.51.100.1", start + 1s), std::nullopt);
}

TEST(RequestRates, TheWalkRunsAtMostOnceASecond) {
    RequestRates rates(10, 1);
    EXPECT_EQ(rates.take("a", start), std::nullopt);
    EXPECT_EQ(rates.take("b", start + 500ms), std::nullopt);  // a's bucket is full, not walked
    EXPECT_EQ(rates.client_count(), 2u);
    EXPECT_EQ(rates.take("c", start + 1s), std::nullopt);
    EXPECT_EQ(rates.client_count(), 1u);
}

}  // namespace
}  // namespace arbiter::server::app
