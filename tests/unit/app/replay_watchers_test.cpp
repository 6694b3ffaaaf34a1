// Who hears of a game's analysis (issue 42, protocol.md "Analysis"): the connections that
// replayed it, the last few games each, until they close.

#include "server/app/replay_watchers.hpp"

#include <gtest/gtest.h>

#include "tests/unit/app/fakes.hpp"

namespace arbiter::server::app {
namespace {

using fakes::FakePeer;

std::shared_ptr<const std::string> text(std::string value) {
    return std::make_shared<const std::string>(std::move(value));
}

TEST(ReplayWatchers, SendsToTheConnectionsThatReplayedTheGameOnly) {
    ReplayWatchers watchers;
    auto viewer = std::make_shared<FakePeer>(1);
    auto other = std::make_shared<FakePeer>(2);
    watchers.watch(viewer, "g1");
    watchers.watch(viewer, "g1");  // a second replay of the same game: still one copy
    watchers.watch(other, "g2");
    EXPECT_EQ(watchers.send("g1", text("one")), 1U);
    ASSERT_EQ(viewer->frames().size(), 1U);
    EXPECT_EQ(*viewer->frames()[0], "one");
    EXPECT_TRUE(other->frames().empty());
    EXPECT_EQ(watchers.send("g3", text("none")), 0U);
}

TEST(ReplayWatchers, AClosedConnectionIsForgotten) {
    ReplayWatchers watchers;
    auto viewer = std::make_shared<FakePeer>(1);
    watchers.watch(viewer, "g1");
    watchers.forget(1);
    EXPECT_EQ(watchers.watchers_of("g1"), 0U);
    EXPECT_EQ(watchers.send("g1", text("late")), 0U);
    EXPECT_TRUE(viewer->frames().empty());
}

TEST(ReplayWatchers, AConnectionGoneBeforeItsReplayWasAddedIsDroppedLater) {
    ReplayWatchers watchers;
    {
        auto gone = std::make_shared<FakePeer>(1);
        watchers.forget(1);  // closed while its replay was read
        watchers.watch(gone, "g1");
    }
    watchers.watch(std::make_shared<FakePeer>(2), "g2");
    EXPECT_EQ(watchers.watchers_of("g1"), 0U);
}

TEST(ReplayWatchers, AConnectionFollowsItsLastFewReplaysOnly) {
    ReplayWatchers watchers;
    auto viewer = std::make_shared<FakePeer>(1);
    for (std::size_t i = 0; i <= ReplayWatchers::kMaxReplaysPerConnection; ++i) {
        watchers.watch(viewer, "g" + std::to_string(i));
    }
    EXPECT_EQ(watchers.watchers_of("g0"), 0U);  // the oldest is forgotten
    EXPECT_EQ(watchers.watchers_of("g1"), 1U);
    EXPECT_EQ(watchers.watchers_of("g" + std::to_string(ReplayWatchers::kMaxReplaysPerConnection)),
              1U);
}

}  // namespace
}  // namespace arbiter::server::app
