#include "server/net/shared_state.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace arbiter::server::net::detail {
namespace {

/// A connection whose queue a test sets, and that records being shed.
class FakeConnection final : public Connection {
  public:
    FakeConnection(std::uint64_t id, std::size_t bytes, bool player)
        : id_(id), bytes_(bytes), player_(player) {}
    void shut_down(bool /*force*/) override {}
    std::optional<QueueHolder> queue_use() const noexcept override {
        return QueueHolder{id_, bytes_, player_, shed_};
    }
    void shed() override { shed_ = true; }
    bool was_shed() const noexcept { return shed_; }

  private:
    std::uint64_t id_;
    std::size_t bytes_;
    bool player_;
    bool shed_ = false;
};

struct SharedStateTest : ::testing::Test {
    std::shared_ptr<SharedState> state = [] {
        NetLimits limits;
        limits.max_outgoing_bytes = 1000;  // low-water mark: 750
        return std::make_shared<SharedState>(limits, RequestPolicy{}, nullptr, nullptr,
                                             [](std::string_view) {});
    }();
    int scheduled = 0;
    std::vector<std::shared_ptr<FakeConnection>> connections;

    SharedStateTest() {
        state->on_over_budget([this] { ++scheduled; });
    }
    std::shared_ptr<FakeConnection> add(std::uint64_t id, std::size_t bytes, bool player) {
        auto connection = std::make_shared<FakeConnection>(id, bytes, player);
        state->track(id, connection);
        state->queued(bytes);
        connections.push_back(connection);
        return connection;
    }
};

TEST_F(SharedStateTest, CrossingTheBudgetAsksForOneShedUntilItHasRun) {
    add(1, 600, false);
    EXPECT_EQ(scheduled, 0);
    EXPECT_EQ(state->stats().queued_bytes, 600U);
    add(2, 500, false);  // 1,100: over
    EXPECT_EQ(scheduled, 1);
    state->queued(10);  // still over, a shed already asked for: no second one
    EXPECT_EQ(scheduled, 1);
    state->unqueued(10);
    EXPECT_EQ(state->shed(), 1U);
    state->queued(1);  // over again after the shed ran: asked again
    EXPECT_EQ(scheduled, 2);
}

TEST_F(SharedStateTest, AShedClosesTheLargestNonPlayersFirstAndCountsNothingItself) {
    auto player = add(1, 700, true);
    auto spectator = add(2, 300, false);
    auto follower = add(3, 100, false);
    // 1,100 queued, down to 750: the spectator's 300 and the follower's 100, not the player.
    EXPECT_EQ(state->shed(), 2U);
    EXPECT_FALSE(player->was_shed());
    EXPECT_TRUE(spectator->was_shed());
    EXPECT_TRUE(follower->was_shed());
    // Their bytes are not freed yet (the sessions drop their queues on their strands): a second
    // shed counts them as on their way out and closes nobody more.
    EXPECT_EQ(state->shed(), 0U);
    EXPECT_FALSE(player->was_shed());
}

TEST_F(SharedStateTest, UnderTheHighMarkAShedDoesNothing) {
    auto spectator = add(1, 900, false);
    EXPECT_EQ(state->shed(), 0U);
    EXPECT_FALSE(spectator->was_shed());
}

}  // namespace
}  // namespace arbiter::server::net::detail
