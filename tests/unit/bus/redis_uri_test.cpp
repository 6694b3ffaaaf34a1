// The operator's --bus URI: exactly redis://host:port, everything else refused with a reason;
// and the capped backoff between connection attempts.

#include <gtest/gtest.h>

#include <string>

#include "server/bus/redis_link.hpp"
#include "server/bus/redis_uri.hpp"

namespace arbiter::server::bus {
namespace {

using namespace std::chrono_literals;

TEST(RedisUri, ReadsHostAndPort) {
    EXPECT_EQ(parse_redis_uri("redis://127.0.0.1:6379").value(), (RedisAddress{"127.0.0.1", 6379}));
    EXPECT_EQ(parse_redis_uri("redis://redis-1.internal:7000").value(),
              (RedisAddress{"redis-1.internal", 7000}));
    EXPECT_EQ(parse_redis_uri("redis://[::1]:6380").value(), (RedisAddress{"::1", 6380}));
}

TEST(RedisUri, RefusesAnythingElseAndSaysWhy) {
    for (const std::string uri : {"",
                                  "127.0.0.1:6379",
                                  "rediss://127.0.0.1:6379",
                                  "unix:///run/redis.sock",
                                  "http://127.0.0.1:6379",
                                  "redis://",
                                  "redis://:6379",
                                  "redis://127.0.0.1",
                                  "redis://127.0.0.1:",
                                  "redis://127.0.0.1:0",
                                  "redis://127.0.0.1:65536",
                                  "redis://127.0.0.1:63a9",
                                  "redis://127.0.0.1:-1",
                                  "redis://user:secret@127.0.0.1:6379",
                                  "redis://127.0.0.1:6379/0",
                                  "redis://127.0.0.1:6379?db=1",
                                  "redis://ho st:6379",
                                  "redis://[::1:6379",
                                  "redis://[]:6379",
                                  "redis://[::1]6379"}) {
        const auto parsed = parse_redis_uri(uri);
        ASSERT_FALSE(parsed.has_value()) << uri;
        EXPECT_NE(parsed.error().find("bus URI '" + uri + "'"), std::string::npos)
            << parsed.error();
        EXPECT_NE(parsed.error().find("expected redis://host:port"), std::string::npos)
            << parsed.error();
    }
}

TEST(RedisBackoff, DoublesUpToItsCapAndStartsOverAfterASuccess) {
    detail::Backoff backoff(50ms, 300ms);
    EXPECT_EQ(backoff.next(), 50ms);
    EXPECT_EQ(backoff.next(), 100ms);
    EXPECT_EQ(backoff.next(), 200ms);
    EXPECT_EQ(backoff.next(), 300ms);
    EXPECT_EQ(backoff.next(), 300ms);
    backoff.reset();
    EXPECT_EQ(backoff.next(), 50ms);
}

}  // namespace
}  // namespace arbiter::server::bus
