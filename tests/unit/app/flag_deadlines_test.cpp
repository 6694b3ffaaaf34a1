#include "server/app/flag_deadlines.hpp"

#include <gtest/gtest.h>

namespace arbiter::server::app {
namespace {

using namespace std::chrono_literals;
using Strings = std::vector<std::string>;

const FlagDeadlines::TimePoint kStart{std::chrono::hours(1)};

TEST(FlagDeadlines, GamesFallDueInDeadlineOrderAndLeaveTheIndex) {
    FlagDeadlines deadlines;
    deadlines.add("late", kStart + 30s);
    deadlines.add("early", kStart + 10s);
    deadlines.add("middle", kStart + 20s);
    EXPECT_EQ(deadlines.next(), kStart + 10s);
    EXPECT_TRUE(deadlines.take_due(kStart + 9s).empty());
    EXPECT_EQ(deadlines.take_due(kStart + 20s), (Strings{"early", "middle"}));
    EXPECT_EQ(deadlines.size(), 1u);
    EXPECT_EQ(deadlines.next(), kStart + 30s);
    EXPECT_EQ(deadlines.take_due(kStart + 1h), (Strings{"late"}));
    EXPECT_FALSE(deadlines.next());
}

TEST(FlagDeadlines, ANewDeadlineReplacesTheOldAndARemovedGameNeverFalls) {
    FlagDeadlines deadlines;
    deadlines.add("g1", kStart + 10s);
    deadlines.add("g1", kStart + 50s);  // back in memory, moved, and out again
    deadlines.add("g2", kStart + 20s);
    deadlines.remove("g2");  // brought back by a request
    deadlines.remove("unknown");
    EXPECT_EQ(deadlines.size(), 1u);
    EXPECT_TRUE(deadlines.take_due(kStart + 49s).empty());
    EXPECT_EQ(deadlines.take_due(kStart + 50s), (Strings{"g1"}));
}

}  // namespace
}  // namespace arbiter::server::app
