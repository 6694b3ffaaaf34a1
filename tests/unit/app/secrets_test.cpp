#include "server/app/secrets.hpp"

#include <gtest/gtest.h>

#include <set>

namespace arbiter::server::app {
namespace {

TEST(Secrets, TokensAre128BitHexAndDistinct) {
    std::set<std::string> seen;
    for (int i = 0; i < 1000; ++i) {
        const auto token = new_seat_token();
        ASSERT_EQ(token.size(), 32U);
        ASSERT_EQ(token.find_first_not_of("0123456789abcdef"), std::string::npos);
        seen.insert(token);
    }
    EXPECT_EQ(seen.size(), 1000U);
}

TEST(Secrets, GameIdsAreShortAndUrlSafe) {
    std::set<std::string> seen;
    for (int i = 0; i < 1000; ++i) {
        const auto id = new_game_id();
        ASSERT_EQ(id.size(), 10U);
        ASSERT_EQ(
            id.find_first_not_of("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
            std::string::npos);
        seen.insert(id);
    }
    EXPECT_EQ(seen.size(), 1000U);
}

TEST(Secrets, HashIsSha256) {
    // FIPS 180-2 test vector.
    EXPECT_EQ(token_hash("abc"),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Secrets, SameHashComparesWholeValues) {
    const auto a = token_hash("one");
    EXPECT_TRUE(same_hash(a, token_hash("one")));
    EXPECT_FALSE(same_hash(a, token_hash("two")));
    EXPECT_FALSE(same_hash(a, a.substr(0, 63)));
    EXPECT_FALSE(same_hash("", "")) << "an empty hash (open seat) never matches";
}

}  // namespace
}  // namespace arbiter::server::app
