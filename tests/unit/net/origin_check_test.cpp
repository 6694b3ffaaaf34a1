#include "server/net/origin_check.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace arbiter::server::net {
namespace {

const std::vector<std::string> kNone;

TEST(OriginCheck, NoOriginIsNoBrowserAndIsAllowed) {
    EXPECT_TRUE(origin_allowed(std::nullopt, "games.example.org", kNone));
}

TEST(OriginCheck, ThePagesOfThisServerAreAllowed) {
    EXPECT_TRUE(origin_allowed("https://games.example.org", "games.example.org", kNone));
    EXPECT_TRUE(origin_allowed("http://Games.Example.org:8080", "games.example.org:8080", kNone));
    EXPECT_TRUE(origin_allowed("http://127.0.0.1:8080", "127.0.0.1:8080", kNone));
    EXPECT_TRUE(origin_allowed("http://[::1]:8080", "[::1]:8080", kNone));
    // The scheme's port, written or not.
    EXPECT_TRUE(origin_allowed("http://games.example.org", "games.example.org:80", kNone));
    EXPECT_TRUE(origin_allowed("https://games.example.org:443", "games.example.org", kNone));
}

TEST(OriginCheck, AnyOtherPageIsRefused) {
    EXPECT_FALSE(origin_allowed("https://evil.example", "games.example.org", kNone));
    EXPECT_FALSE(origin_allowed("http://games.example.org:8081", "games.example.org:8080", kNone));
    EXPECT_FALSE(origin_allowed("http://games.example.org", "games.example.org:8080", kNone));
    EXPECT_FALSE(
        origin_allowed("https://games.example.org.evil.example", "games.example.org", kNone));
    EXPECT_FALSE(origin_allowed("null", "games.example.org", kNone));
    EXPECT_FALSE(origin_allowed("", "games.example.org", kNone));
    EXPECT_FALSE(origin_allowed("ftp://games.example.org", "games.example.org", kNone));
    EXPECT_FALSE(origin_allowed("https://games.example.org", "", kNone));
    EXPECT_FALSE(origin_allowed("https://games.example.org:x", "games.example.org:x", kNone));
}

TEST(OriginCheck, ListedOriginsAreAllowed) {
    const std::vector<std::string> listed = {"https://play.example.net", "http://localhost:3000"};
    EXPECT_TRUE(origin_allowed("https://PLAY.example.net", "games.example.org", listed));
    EXPECT_TRUE(origin_allowed("http://localhost:3000", "games.example.org", listed));
    EXPECT_FALSE(origin_allowed("https://play.example.net:8443", "games.example.org", listed));
    EXPECT_FALSE(origin_allowed("https://evil.example", "games.example.org", listed));
    // Its own pages still are.
    EXPECT_TRUE(origin_allowed("https://games.example.org", "games.example.org", listed));
    const std::vector<std::string> any = {"*"};
    EXPECT_TRUE(origin_allowed("https://evil.example", "games.example.org", any));
}

}  // namespace
}  // namespace arbiter::server::net
