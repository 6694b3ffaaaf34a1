#include "server/net/token_bucket.hpp"

#include <gtest/gtest.h>

namespace arbiter::server::net {
namespace {

using namespace std::chrono_literals;
const TokenBucket::TimePoint start{std::chrono::hours(1)};

TEST(TokenBucket, ABurstThenTheRate) {
    TokenBucket bucket(2, 3, start);
    for (int i = 0; i < 3; ++i) {
        EXPECT_TRUE(bucket.take(start)) << i;
    }
    EXPECT_FALSE(bucket.take(start));
    EXPECT_EQ(bucket.wait_at(start), 500ms);
    EXPECT_FALSE(bucket.take(start + 250ms));
    EXPECT_TRUE(bucket.take(start + 500ms));
    EXPECT_FALSE(bucket.full_at(start + 1s));
    EXPECT_TRUE(bucket.full_at(start + 2s));
    EXPECT_EQ(bucket.wait_at(start + 2s), 0ms);
}

TEST(TokenBucket, AnHourIdleFillsItNoFurtherThanTheBurst) {
    TokenBucket bucket(1, 2, start);
    EXPECT_TRUE(bucket.take(start + 1h));
    EXPECT_TRUE(bucket.take(start + 1h));
    EXPECT_FALSE(bucket.take(start + 1h));
}

TEST(TokenBucket, TimeGoingBackGivesNothing) {
    TokenBucket bucket(1, 1, start);
    EXPECT_TRUE(bucket.take(start));
    EXPECT_FALSE(bucket.take(start - 10s));
    EXPECT_FALSE(bucket.take(start + 500ms));
    EXPECT_TRUE(bucket.take(start + 1s));
}

}  // namespace
}  // namespace arbiter::server::net
