#include "common/core/expected.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace arbiter {
namespace {

Expected<int, std::string> parse_digit(char c) {
    if (c < '0' || c > '9') {
        return unexpected(std::string("not a digit"));
    }
    return c - '0';
}

TEST(Expected, HoldsAValue) {
    auto result = parse_digit('7');
    ASSERT_TRUE(result);
    EXPECT_EQ(*result, 7);
    EXPECT_EQ(result.value_or(0), 7);
}

TEST(Expected, HoldsAnError) {
    auto result = parse_digit('x');
    ASSERT_FALSE(result.has_value());
    EXPECT_EQ(result.error(), "not a digit");
    EXPECT_EQ(result.value_or(-1), -1);
}

TEST(Expected, MovesOnlyValues) {
    Expected<std::unique_ptr<int>, std::string> boxed(std::make_unique<int>(3));
    ASSERT_TRUE(boxed);
    std::unique_ptr<int> taken = std::move(boxed).value();
    EXPECT_EQ(*taken, 3);
}

TEST(Expected, VoidCarriesOnlyFailure) {
    Expected<void, std::string> ok;
    EXPECT_TRUE(ok);
    Expected<void, std::string> failed = unexpected(std::string("no"));
    ASSERT_FALSE(failed);
    EXPECT_EQ(failed.error(), "no");
}

}  // namespace
}  // namespace arbiter
