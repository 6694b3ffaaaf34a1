#include "server/net/memory_budget.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace arbiter::server::net {
namespace {

using Ids = std::vector<std::uint64_t>;

TEST(MemoryBudget, UnderTheLowMarkNobodyIsShed) {
    const std::vector<QueueHolder> holders{{1, 500, false, false}, {2, 400, false, false}};
    EXPECT_EQ(connections_to_shed(holders, 900, 900), Ids{});
    EXPECT_EQ(connections_to_shed(holders, 900, 1000), Ids{});
}

TEST(MemoryBudget, TheLargestQueuesGoFirstUntilUnderTheLowMark) {
    const std::vector<QueueHolder> holders{{1, 100, false, false},
                                           {2, 700, false, false},
                                           {3, 300, false, false},
                                           {4, 300, false, false},
                                           {5, 50, false, false}};
    // 1,450 queued, down to 500: the 700 and one 300 (the older of the two) free 1,000.
    EXPECT_EQ(connections_to_shed(holders, 1450, 500), (Ids{2, 3}));
    // Down to 100: the 700, both 300s and the 100 (50 left).
    EXPECT_EQ(connections_to_shed(holders, 1450, 100), (Ids{2, 3, 4, 1}));
}

TEST(MemoryBudget, PlayersAreShedOnlyWhenAllOthersAreNotEnough) {
    const std::vector<QueueHolder> holders{
        {1, 5000, true, false}, {2, 100, false, false}, {3, 200, false, false}};
    // The player holds the most, yet the two others are closed first.
    EXPECT_EQ(connections_to_shed(holders, 5300, 5000), (Ids{3, 2}));
    EXPECT_EQ(connections_to_shed(holders, 5300, 5100), (Ids{3}));
    // Not enough without the player: it goes too, last.
    EXPECT_EQ(connections_to_shed(holders, 5300, 1000), (Ids{3, 2, 1}));
}

TEST(MemoryBudget, ConnectionsAlreadyClosingCountAsFreedAndAreNotChosenAgain) {
    const std::vector<QueueHolder> holders{
        {1, 800, false, true}, {2, 300, false, false}, {3, 200, false, false}};
    // 1,300 down to 600: the closing 800 is enough.
    EXPECT_EQ(connections_to_shed(holders, 1300, 600), Ids{});
    // Down to 200: 300 more after the 800.
    EXPECT_EQ(connections_to_shed(holders, 1300, 200), (Ids{2}));
}

TEST(MemoryBudget, AConnectionHoldingNothingIsNeverShed) {
    const std::vector<QueueHolder> holders{{1, 0, false, false}, {2, 100, true, false}};
    // The total counts bytes no holder can free (a frame in flight): closing an empty queue
    // would not help, so only the player, the one holding bytes, is chosen.
    EXPECT_EQ(connections_to_shed(holders, 10'000, 0), (Ids{2}));
}

// Between two sheds, a connection that does not read is closed at its next frame once the
// server is over budget, unless it is a player's or holds no more than a reader that keeps up.
TEST(MemoryBudget, OverBudgetAConnectionThatDoesNotReadIsClosedAtItsNextFrame) {
    EXPECT_TRUE(closes_over_budget(true, kHoldOverBudget + 1, false));
    EXPECT_FALSE(closes_over_budget(true, kHoldOverBudget + 1, true))
        << "a player waits for a shed";
    EXPECT_FALSE(closes_over_budget(true, kHoldOverBudget, false)) << "a reader that keeps up";
    EXPECT_FALSE(closes_over_budget(false, 4 * kHoldOverBudget, false)) << "under the budget";
}

TEST(MemoryBudget, MarksAndDefault) {
    const auto budget = OutgoingBudget::of(8 << 20);
    EXPECT_EQ(budget.high_water, 8U << 20);
    EXPECT_EQ(budget.low_water, 6U << 20);
    EXPECT_EQ(default_outgoing_budget(1ULL << 30), 128U << 20);    // 1 GiB: an eighth
    EXPECT_EQ(default_outgoing_budget(64ULL << 20), 16U << 20);    // a floor
    EXPECT_EQ(default_outgoing_budget(256ULL << 30), 2ULL << 30);  // a ceiling
}

}  // namespace
}  // namespace arbiter::server::net
