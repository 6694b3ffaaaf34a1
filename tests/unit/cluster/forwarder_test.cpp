#include "server/cluster/forwarder.hpp"

#include <gtest/gtest.h>

#include "common/protocol/codec.hpp"
#include "test_cluster.hpp"

namespace arbiter::server::cluster {
namespace {

using testing::move_request;
using testing::moved_text;
using testing::RecordingBus;
using testing::TableOwnership;

class ForwarderTest : public ::testing::Test {
  protected:
    ForwarderTest() { ownership_.owners["g1"] = Owner{"node-a", 1}; }

    Forwarder make(ForwarderLimits limits = {}) {
        return Forwarder(
            "node-b", bus_, ownership_,
            [this](ConnectionId connection, const std::string& message) {
                delivered_.emplace_back(connection, message);
            },
            limits);
    }
    Intent sent(std::size_t index) const {
        return std::get<Intent>(decode(bus_.published.at(index).bytes).value());
    }
    static Answer reply(const Intent& intent, std::vector<std::string> messages) {
        return Answer{"node-a",    intent.connection,   intent.attempt,
                      intent.game, AnswerKind::replied, "",
                      0,           std::move(messages)};
    }

    RecordingBus bus_;
    TableOwnership ownership_;
    std::vector<std::pair<ConnectionId, std::string>> delivered_;
    TimePoint start_{};
};

TEST_F(ForwarderTest, SendsTheIntentToTheOwnersInboxAndDeliversItsAnswer) {
    auto forwarder = make();
    const auto attempt = forwarder.forward(move_request("g1", 0, "e2e4", "r1"), "g1", 5, start_);
    ASSERT_TRUE(attempt.has_value());
    ASSERT_EQ(bus_.published.size(), 1U);
    EXPECT_EQ(bus_.published[0].channel, "inbox:node-a");
    const auto intent = sent(0);
    EXPECT_EQ(intent.from_node, "node-b");
    EXPECT_EQ(intent.connection, 5U);
    EXPECT_EQ(intent.attempt, attempt.value());
    EXPECT_EQ(protocol::decode(intent.message).value(), move_request("g1", 0, "e2e4", "r1"));

    forwarder.on_answer(reply(intent, {"ack"}), start_ + Millis{10});
    ASSERT_EQ(delivered_.size(), 1U);
    EXPECT_EQ(delivered_[0], std::make_pair(ConnectionId{5}, std::string("ack")));
    EXPECT_EQ(forwarder.pending(), 0U);
    EXPECT_EQ(forwarder.counters().answered, 1U);
    // A second copy of the answer (a retry answered twice) is late, not delivered again.
    forwarder.on_answer(reply(intent, {"ack"}), start_ + Millis{20});
    EXPECT_EQ(delivered_.size(), 1U);
    EXPECT_EQ(forwarder.counters().late_answers, 1U);
}

TEST_F(ForwarderTest, RetriesWithADoublingWaitThenAnswersUnavailable) {
    auto forwarder = make();
    ASSERT_TRUE(forwarder.forward(move_request("g1", 0, "e2e4", "r1"), "g1", 5, start_));
    EXPECT_EQ(forwarder.next_deadline(), start_ + Millis{250});
    forwarder.tick(start_ + Millis{249});
    EXPECT_EQ(bus_.published.size(), 1U);
    // Sends at 0, 250, 750, 1750 and 3750 ms; the last wait ends at 5750 ms.
    const int sends_at[] = {250, 750, 1750, 3750};
    for (const int at : sends_at) {
        forwarder.tick(start_ + Millis{at});
        EXPECT_EQ(sent(bus_.published.size() - 1).attempt, sent(0).attempt);
    }
    EXPECT_EQ(bus_.published.size(), 5U);
    EXPECT_EQ(forwarder.counters().retried, 4U);
    forwarder.tick(start_ + Millis{5749});
    EXPECT_TRUE(delivered_.empty());
    forwarder.tick(start_ + Millis{5750});
    ASSERT_EQ(delivered_.size(), 1U);
    EXPECT_EQ(delivered_[0].second,
              protocol::encode_error(protocol::ErrorCode::unavailable,
                                     "the game's server did not answer: try again", "r1"));
    EXPECT_EQ(forwarder.pending(), 0U);
    EXPECT_EQ(forwarder.counters().gave_up, 1U);
    EXPECT_EQ(bus_.published.size(), 5U);
}

TEST_F(ForwarderTest, NotOwnerReroutesAtOnceToTheOwnerNamed) {
    auto forwarder = make();
    ASSERT_TRUE(forwarder.forward(move_request("g1", 0, "e2e4", "r1"), "g1", 5, start_));
    const auto intent = sent(0);
    forwarder.on_answer(
        Answer{"node-a", 5, intent.attempt, "g1", AnswerKind::not_owner, "node-c", 2, {}},
        start_ + Millis{5});
    ASSERT_EQ(bus_.published.size(), 2U);
    EXPECT_EQ(bus_.published[1].channel, "inbox:node-c");
    EXPECT_EQ(forwarder.counters().rerouted, 1U);
    // A not_owner that names no better owner waits for the timeout instead of bouncing.
    forwarder.on_answer(Answer{"node-c", 5, intent.attempt, "g1", AnswerKind::not_owner, "", 0, {}},
                        start_ + Millis{6});
    EXPECT_EQ(bus_.published.size(), 2U);
    ownership_.owners["g1"] = Owner{"node-d", 3};
    forwarder.tick(start_ + Millis{5 + 500});
    ASSERT_EQ(bus_.published.size(), 3U);
    EXPECT_EQ(bus_.published[2].channel, "inbox:node-d");
}

TEST_F(ForwarderTest, ANewerEpochOnTheGamesEventsReroutesPendingIntents) {
    auto forwarder = make();
    ASSERT_TRUE(forwarder.forward(move_request("g1", 0, "e2e4", "r1"), "g1", 5, start_));
    ASSERT_TRUE(forwarder.forward(move_request("g2", 0, "e2e4", "r2"), "g2", 6, start_));
    EXPECT_EQ(bus_.published.size(), 1U);  // g2 has no owner yet: it waits for one
    forwarder.on_event(Event{"g1", 3, "node-a", 1, "{}", "", 0}, start_ + Millis{1});
    EXPECT_EQ(bus_.published.size(), 1U);  // the same owner
    forwarder.on_event(Event{"g1", 4, "node-c", 2, "{}", "", 0}, start_ + Millis{2});
    ASSERT_EQ(bus_.published.size(), 2U);
    EXPECT_EQ(bus_.published[1].channel, "inbox:node-c");
    EXPECT_EQ(sent(1).game, "g1");
    ownership_.owners["g2"] = Owner{"node-a", 1};
    forwarder.tick(start_ + Millis{250});
    EXPECT_EQ(bus_.published.back().channel, "inbox:node-a");
    EXPECT_EQ(sent(bus_.published.size() - 1).game, "g2");
}

TEST_F(ForwarderTest, TheEventAnIntentCausedSettlesItWithTheRequestId) {
    auto forwarder = make();
    const auto attempt = forwarder.forward(move_request("g1", 0, "e2e4", "r\"1"), "g1", 5, start_);
    ASSERT_TRUE(attempt.has_value());
    const auto text = moved_text("g1", 1, 1, "e2e4");
    forwarder.on_event(Event{"g1", 1, "node-a", 1, text, "node-x", attempt.value()},
                       start_ + Millis{1});
    EXPECT_TRUE(delivered_.empty());  // caused by another node's intent
    forwarder.on_event(Event{"g1", 1, "node-a", 1, text, "node-b", attempt.value()},
                       start_ + Millis{2});
    ASSERT_EQ(delivered_.size(), 1U);
    EXPECT_EQ(delivered_[0].second, protocol::requester_copy(text, "r\"1"));
    EXPECT_EQ(forwarder.counters().settled_by_event, 1U);
    EXPECT_EQ(forwarder.pending(), 0U);
    forwarder.on_answer(reply(sent(0), {"late"}), start_ + Millis{3});
    EXPECT_EQ(delivered_.size(), 1U);
}

TEST_F(ForwarderTest, AReconnectedBusResendsAtOnceWithinTheAttemptBound) {
    auto forwarder = make(ForwarderLimits{.max_attempts = 2});
    ASSERT_TRUE(forwarder.forward(move_request("g1", 0, "e2e4", "r1"), "g1", 5, start_));
    forwarder.on_reconnected(start_ + Millis{100});
    ASSERT_EQ(bus_.published.size(), 2U);
    EXPECT_EQ(sent(1).attempt, sent(0).attempt);
    EXPECT_EQ(forwarder.next_deadline(), start_ + Millis{100 + 500});
    forwarder.on_reconnected(start_ + Millis{200});  // the last attempt was made: no more
    EXPECT_EQ(bus_.published.size(), 2U);
    forwarder.tick(start_ + Millis{600});
    EXPECT_EQ(forwarder.counters().gave_up, 1U);
}

TEST_F(ForwarderTest, OnlyAMoveIsSettledByItsEvent) {
    auto forwarder = make();
    const protocol::ClientMessage resign{"q1", protocol::Resign{"g1"}};
    const auto attempt = forwarder.forward(resign, "g1", 5, start_);
    ASSERT_TRUE(attempt.has_value());
    forwarder.on_event(
        Event{"g1", 1, "node-a", 1, "{\"type\":\"ended\"}", "node-b", attempt.value()},
        start_ + Millis{1});
    EXPECT_TRUE(delivered_.empty());
    EXPECT_EQ(forwarder.pending(), 1U);
    forwarder.on_answer(reply(sent(0), {"answer"}), start_ + Millis{2});
    ASSERT_EQ(delivered_.size(), 1U);
    EXPECT_EQ(delivered_[0].second, "answer");
}

TEST_F(ForwarderTest, BoundsRefuseWithoutSendingAnything) {
    auto forwarder = make(ForwarderLimits{.max_pending_per_connection = 2, .max_pending = 3});
    EXPECT_TRUE(forwarder.forward(move_request("g1", 0, "a", "1"), "g1", 1, start_));
    EXPECT_TRUE(forwarder.forward(move_request("g1", 0, "b", "2"), "g1", 1, start_));
    const auto per_connection = forwarder.forward(move_request("g1", 0, "c", "3"), "g1", 1, start_);
    ASSERT_FALSE(per_connection.has_value());
    EXPECT_EQ(per_connection.error().code, protocol::ErrorCode::rate_limited);
    EXPECT_TRUE(forwarder.forward(move_request("g1", 0, "d", "4"), "g1", 2, start_));
    const auto total = forwarder.forward(move_request("g1", 0, "e", "5"), "g1", 3, start_);
    ASSERT_FALSE(total.has_value());
    EXPECT_EQ(total.error().code, protocol::ErrorCode::unavailable);
    const auto bad_game = forwarder.forward(move_request("g:1", 0, "e", "6"), "g:1", 4, start_);
    ASSERT_FALSE(bad_game.has_value());
    EXPECT_EQ(bad_game.error().code, protocol::ErrorCode::unknown_game);
    const auto too_large = forwarder.forward(
        move_request("g1", 0, std::string(kMaxMessageBytes, 'x'), "7"), "g1", 5, start_);
    ASSERT_FALSE(too_large.has_value());
    EXPECT_EQ(too_large.error().code, protocol::ErrorCode::too_large);
    EXPECT_EQ(bus_.published.size(), 3U);
    EXPECT_EQ(forwarder.pending(), 3U);
    EXPECT_EQ(forwarder.counters().refused, 4U);
    // A closed connection frees its places.
    forwarder.drop_connection(1);
    EXPECT_EQ(forwarder.pending(), 1U);
    EXPECT_TRUE(forwarder.forward(move_request("g1", 0, "f", "8"), "g1", 3, start_));
}

}  // namespace
}  // namespace arbiter::server::cluster
