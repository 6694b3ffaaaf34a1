#include "server/app/http_api.hpp"

#include <gtest/gtest.h>

namespace arbiter::server::app {
namespace {

TEST(UrlDecode, DecodesPercentAndPlus) {
    EXPECT_EQ(url_decode("a%20b+c", true), "a b c");
    EXPECT_EQ(url_decode("a+b", false), "a+b");
    EXPECT_EQ(url_decode("%2e%2E", false), "..");
}

TEST(UrlDecode, RefusesMalformedEscapes) {
    EXPECT_EQ(url_decode("%", true), std::nullopt);
    EXPECT_EQ(url_decode("%4", true), std::nullopt);
    EXPECT_EQ(url_decode("%zz", true), std::nullopt);
}

}  // namespace
}  // namespace arbiter::server::app
