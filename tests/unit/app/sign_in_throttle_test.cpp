// The sign-in throttle (issue 40): a growing delay per address and per account, never a
// lockout longer than the largest delay. Time is a value.

#include "server/app/sign_in_throttle.hpp"

#include <gtest/gtest.h>

namespace arbiter::server::app {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

class SignInThrottleTest : public ::testing::Test {
  protected:
    void fail_times(const std::string& address, const std::string& account, int times) {
        for (int i = 0; i < times; ++i) {
            throttle_.note_failure(address, account, now_);
        }
    }

    SignInThrottle throttle_;
    Clock::time_point now_ = Clock::time_point{} + std::chrono::hours(1);
};

TEST(SignInThrottleDelay, FreeFailuresThenDoublingUpToTheCap) {
    EXPECT_EQ(SignInThrottle::delay_after(0), milliseconds(0));
    EXPECT_EQ(SignInThrottle::delay_after(3), milliseconds(0));
    EXPECT_EQ(SignInThrottle::delay_after(4), milliseconds(1000));
    EXPECT_EQ(SignInThrottle::delay_after(5), milliseconds(2000));
    EXPECT_EQ(SignInThrottle::delay_after(6), milliseconds(4000));
    EXPECT_EQ(SignInThrottle::delay_after(10), milliseconds(60'000));
    EXPECT_EQ(SignInThrottle::delay_after(1000), milliseconds(60'000));
}

TEST_F(SignInThrottleTest, NewClientMayTry) {
    EXPECT_FALSE(throttle_.wait_before("1.2.3.4", "anna", now_));
}

TEST_F(SignInThrottleTest, ThreeFailuresCostNothing) {
    fail_times("1.2.3.4", "anna", 3);
    EXPECT_FALSE(throttle_.wait_before("1.2.3.4", "anna", now_));
}

TEST_F(SignInThrottleTest, FourthFailureMakesTheNextAttemptWaitASecond) {
    fail_times("1.2.3.4", "anna", 4);
    EXPECT_EQ(throttle_.wait_before("1.2.3.4", "anna", now_), milliseconds(1000));
    EXPECT_EQ(throttle_.wait_before("1.2.3.4", "anna", now_ + milliseconds(400)),
              milliseconds(600));
    EXPECT_FALSE(throttle_.wait_before("1.2.3.4", "anna", now_ + milliseconds(1000)));
}

TEST_F(SignInThrottleTest, AddressIsSlowedOnEveryAccount) {
    fail_times("1.2.3.4", "anna", 2);
    fail_times("1.2.3.4", "bert", 3);
    EXPECT_EQ(throttle_.wait_before("1.2.3.4", "carl", now_), milliseconds(2000));
}

TEST_F(SignInThrottleTest, AccountIsSlowedFromEveryAddress) {
    fail_times("1.1.1.1", "anna", 2);
    fail_times("2.2.2.2", "anna", 3);
    EXPECT_EQ(throttle_.wait_before("3.3.3.3", "anna", now_), milliseconds(2000));
    EXPECT_FALSE(throttle_.wait_before("3.3.3.3", "bert", now_));
}

TEST_F(SignInThrottleTest, OwnerFromAFreshAddressWaitsNoLongerThanTheCap) {
    fail_times("6.6.6.6", "anna", 500);
    const auto wait = throttle_.wait_before("9.9.9.9", "anna", now_);
    ASSERT_TRUE(wait);
    EXPECT_EQ(*wait, SignInThrottle::kMaxDelay);
    EXPECT_FALSE(throttle_.wait_before("9.9.9.9", "anna", now_ + SignInThrottle::kMaxDelay));
}

TEST_F(SignInThrottleTest, SuccessForgetsTheAccountButNotTheAddress) {
    fail_times("1.2.3.4", "anna", 5);
    throttle_.note_success("anna");
    EXPECT_FALSE(throttle_.wait_before("5.5.5.5", "anna", now_));
    EXPECT_EQ(throttle_.wait_before("1.2.3.4", "bert", now_), milliseconds(2000));
}

TEST_F(SignInThrottleTest, FailuresAreForgottenAfterAQuietSpell) {
    fail_times("1.2.3.4", "anna", 10);
    now_ += SignInThrottle::kForgetAfter;
    EXPECT_FALSE(throttle_.wait_before("1.2.3.4", "anna", now_));
    // And the count starts again: one more failure is a free one.
    throttle_.note_failure("1.2.3.4", "anna", now_);
    EXPECT_FALSE(throttle_.wait_before("1.2.3.4", "anna", now_));
}

TEST_F(SignInThrottleTest, MemoryStaysBounded) {
    for (std::size_t i = 0; i < SignInThrottle::kMaxKeys; ++i) {
        throttle_.note_failure("10.0." + std::to_string(i), "anna", now_);
    }
    EXPECT_LE(throttle_.key_count(), SignInThrottle::kMaxKeys);
}

}  // namespace
}  // namespace arbiter::server::app
