// Three nodes on one LoopbackBus, with the fake room, ownership table and database of
// test_cluster.hpp, and manual time: the cluster's promises end to end.

#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "common/protocol/codec.hpp"
#include "test_cluster.hpp"

namespace arbiter::server::cluster {
namespace {

using testing::TestCluster;

std::vector<std::uint64_t> one_to(std::size_t last) {
    std::vector<std::uint64_t> out(last);
    std::iota(out.begin(), out.end(), 1);
    return out;
}

bool is_answer(const Envelope& envelope) {
    return std::holds_alternative<Answer>(envelope);
}

class ClusterTest : public ::testing::Test {
  protected:
    ClusterTest() : cluster_({"node-a", "node-b", "node-c"}) {
        cluster_.set_owner("g1", Owner{"node-a", 1});
    }
    void watch(const std::string& node, ConnectionId viewer) {
        cluster_.node(node).relay().add_viewer("g1", viewer, 0, cluster_.now());
    }
    /// The `moved` of the move at `ply_after` as the mover's request `id` gets it.
    std::string ack(std::uint32_t ply_after, const std::string& id) {
        for (const auto& stored : cluster_.game("g1").events) {
            if (stored.ply_after == ply_after) {
                return protocol::requester_copy(stored.message, id);
            }
        }
        return "no such move";
    }
    void expect_each_move_applied_once() {
        for (const auto& [ply, times] : cluster_.game("g1").applied) {
            EXPECT_EQ(times, 1) << "ply " << ply;
        }
    }

    TestCluster cluster_;
};

TEST_F(ClusterTest, AForwardedMoveIsAppliedOnceWhenTheAnswerIsLostAndRetried) {
    bool dropped = false;
    cluster_.set_drop_rule([&](const std::string& from, const std::string&, const Envelope& e) {
        if (from == "node-a" && is_answer(e) && !dropped) {
            dropped = true;
            return true;
        }
        return false;
    });
    ASSERT_TRUE(cluster_.forward_move("node-b", 7, "g1", 0, "e2e4", "m1"));
    cluster_.pump();
    EXPECT_TRUE(dropped);
    EXPECT_EQ(cluster_.game("g1").applied[1], 1);
    EXPECT_TRUE(cluster_.delivered("node-b", 7).empty());

    cluster_.advance(Millis{250});
    ASSERT_EQ(cluster_.delivered("node-b", 7), std::vector<std::string>{ack(1, "m1")});
    EXPECT_EQ(cluster_.game("g1").events.size(), 1U);
    expect_each_move_applied_once();
    const auto counters = cluster_.node("node-b").counters();
    EXPECT_EQ(counters.forwarder.forwarded, 1U);
    EXPECT_EQ(counters.forwarder.retried, 1U);
    EXPECT_EQ(counters.forwarder.answered, 1U);
    // The retry never reached the room: the owner's inbox answered it as it answered the first.
    EXPECT_EQ(cluster_.node("node-a").counters().inbox.intents, 1U);
    EXPECT_EQ(cluster_.node("node-a").counters().inbox.repeats, 1U);
    cluster_.advance(Millis{3000});
    EXPECT_EQ(cluster_.node("node-b").counters().forwarder.retried, 1U);
}

TEST_F(ClusterTest, TheEventAForwardedMoveCausedSettlesItWhenTheAnswerIsLost) {
    cluster_.set_drop_rule([](const std::string&, const std::string&, const Envelope& envelope) {
        return is_answer(envelope);
    });
    watch("node-b", 8);
    cluster_.pump();
    ASSERT_TRUE(cluster_.forward_move("node-b", 7, "g1", 0, "e2e4", "m1"));
    cluster_.pump();
    EXPECT_EQ(cluster_.delivered("node-b", 7), std::vector<std::string>{ack(1, "m1")});
    EXPECT_EQ(cluster_.seqs("node-b", 8), one_to(1));
    cluster_.advance(Millis{3000});
    const auto counters = cluster_.node("node-b").counters();
    EXPECT_EQ(counters.forwarder.settled_by_event, 1U);
    EXPECT_EQ(counters.forwarder.retried, 0U);
    EXPECT_EQ(cluster_.node("node-a").counters().inbox.intents, 1U);
}

TEST_F(ClusterTest, BrokerDownTwoSecondsViewersEndWithNoGapAndNoDuplicate) {
    watch("node-b", 1);
    watch("node-b", 2);
    watch("node-c", 3);
    cluster_.pump();
    for (const auto* move : {"e2e4", "e7e5", "g1f3"}) {
        cluster_.play_local("g1", move);
    }
    cluster_.pump();
    EXPECT_EQ(cluster_.seqs("node-c", 3), one_to(3));

    cluster_.set_broker_up(false);
    for (const auto* move : {"b8c6", "f1b5", "a7a6", "b5a4"}) {
        cluster_.play_local("g1", move);  // committed; their events are lost with the broker
    }
    ASSERT_TRUE(cluster_.forward_move("node-b", 7, "g1", 7, "g8f6", "m8"));
    cluster_.advance(Millis{2000});
    EXPECT_EQ(cluster_.game("g1").events.size(), 7U);  // the forwarded move has not arrived
    EXPECT_EQ(cluster_.seqs("node-c", 3), one_to(3));

    cluster_.set_broker_up(true);
    // The viewers caught up from the database, and the forwarded move was sent again at once,
    // without waiting for the end of its backoff.
    EXPECT_EQ(cluster_.seqs("node-c", 3), one_to(8));
    EXPECT_EQ(cluster_.delivered("node-b", 7), std::vector<std::string>{ack(8, "m8")});
    for (const auto* move : {"e1g1", "f8e7"}) {
        cluster_.play_local("g1", move);
    }
    cluster_.pump();

    ASSERT_EQ(cluster_.game("g1").events.size(), 10U);
    for (const auto& [node, viewer] :
         {std::pair<std::string, ConnectionId>{"node-b", 1}, {"node-b", 2}, {"node-c", 3}}) {
        EXPECT_EQ(cluster_.seqs(node, viewer), one_to(10)) << node << " " << viewer;
    }
    expect_each_move_applied_once();
    for (const auto* node : {"node-b", "node-c"}) {
        const auto counters = cluster_.node(node).counters();
        EXPECT_GE(counters.relay.catch_ups, 2U) << node;  // the subscription, the reconnection
        EXPECT_EQ(counters.malformed, 0U);
    }
    EXPECT_GE(cluster_.node("node-b").counters().forwarder.retried, 1U);
    EXPECT_GT(cluster_.bus_counters().dropped, 0U);
}

TEST_F(ClusterTest, AnOwnerThatMovesTakesThePendingIntentsAndTheViewersAlong) {
    watch("node-b", 1);
    watch("node-c", 2);
    cluster_.pump();
    cluster_.play_local("g1", "e2e4");
    cluster_.play_local("g1", "e7e5");
    cluster_.pump();

    // node-a freezes: it hears nothing and says nothing.
    cluster_.set_drop_rule(
        [](const std::string& from, const std::string& channel, const Envelope&) {
            return from == "node-a" || channel == "inbox:node-a";
        });
    ASSERT_TRUE(cluster_.forward_move("node-b", 7, "g1", 2, "g1f3", "m3"));
    cluster_.pump();
    EXPECT_TRUE(cluster_.delivered("node-b", 7).empty());
    // Its lease expires and node-c adopts the game under a higher epoch.
    cluster_.set_owner("g1", Owner{"node-c", 2});
    cluster_.advance(Millis{250});
    EXPECT_EQ(cluster_.delivered("node-b", 7), std::vector<std::string>{ack(3, "m3")});
    cluster_.play_local("g1", "b8c6");
    cluster_.pump();

    for (const auto& [node, viewer] :
         {std::pair<std::string, ConnectionId>{"node-b", 1}, {"node-c", 2}}) {
        EXPECT_EQ(cluster_.seqs(node, viewer), one_to(4)) << node;
        EXPECT_EQ(cluster_.node(node).relay().owner_of("g1"), (Owner{"node-c", 2})) << node;
    }
    EXPECT_EQ(cluster_.node("node-b").counters().relay.epoch_changes, 1U);
    EXPECT_EQ(cluster_.node("node-b").counters().forwarder.rerouted, 1U);
    EXPECT_EQ(cluster_.game("g1").events.back().epoch, 2U);
    expect_each_move_applied_once();
}

TEST_F(ClusterTest, AStaleOwnerAnswersNotOwnerAndTheSenderReroutesAtOnce) {
    cluster_.set_owner("g1", Owner{"node-c", 2});
    cluster_.set_owner_seen_by("node-b", "g1", Owner{"node-a", 1});  // node-b's cache lags
    ASSERT_TRUE(cluster_.forward_move("node-b", 7, "g1", 0, "e2e4", "m1"));
    cluster_.pump();
    EXPECT_EQ(cluster_.delivered("node-b", 7), std::vector<std::string>{ack(1, "m1")});
    EXPECT_EQ(cluster_.node("node-a").counters().inbox.not_owner, 1U);
    EXPECT_EQ(cluster_.node("node-c").counters().inbox.intents, 1U);
    const auto counters = cluster_.node("node-b").counters();
    EXPECT_EQ(counters.forwarder.rerouted, 1U);
    EXPECT_EQ(counters.forwarder.retried, 0U);
    EXPECT_EQ(cluster_.now(), TimePoint{});
}

TEST_F(ClusterTest, AnOwnerThatNeverAnswersEndsInUnavailable) {
    cluster_.set_drop_rule([](const std::string&, const std::string& channel, const Envelope&) {
        return channel == "inbox:node-a";
    });
    ASSERT_TRUE(cluster_.forward_move("node-b", 7, "g1", 0, "e2e4", "m1"));
    cluster_.advance(Millis{5700});
    EXPECT_TRUE(cluster_.delivered("node-b", 7).empty());
    cluster_.advance(Millis{100});
    EXPECT_EQ(cluster_.delivered("node-b", 7),
              std::vector<std::string>{
                  protocol::encode_error(protocol::ErrorCode::unavailable,
                                         "the game's server did not answer: try again", "m1")});
    EXPECT_EQ(cluster_.node("node-b").counters().forwarder.gave_up, 1U);
    EXPECT_EQ(cluster_.node("node-b").forwarder().pending(), 0U);
    EXPECT_TRUE(cluster_.game("g1").events.empty());
}

TEST(ClusterBounds, PendingIntentsAreBoundedAndRefusalsSendNothing) {
    TestCluster cluster({"node-a", "node-b"},
                        ForwarderLimits{.max_pending_per_connection = 2, .max_pending = 3});
    cluster.set_owner("g1", Owner{"node-a", 1});
    cluster.set_drop_rule([](const std::string&, const std::string& channel, const Envelope&) {
        return channel == "inbox:node-b";  // no answer comes back: the intents stay pending
    });
    EXPECT_TRUE(cluster.forward_move("node-b", 1, "g1", 0, "e2e4", "1"));
    EXPECT_TRUE(cluster.forward_move("node-b", 1, "g1", 0, "e2e4", "2"));
    const auto third = cluster.forward_move("node-b", 1, "g1", 0, "e2e4", "3");
    ASSERT_FALSE(third.has_value());
    EXPECT_EQ(third.error().code, protocol::ErrorCode::rate_limited);
    EXPECT_TRUE(cluster.forward_move("node-b", 2, "g1", 1, "e7e5", "4"));
    const auto fourth = cluster.forward_move("node-b", 3, "g1", 1, "e7e5", "5");
    ASSERT_FALSE(fourth.has_value());
    EXPECT_EQ(fourth.error().code, protocol::ErrorCode::unavailable);
    cluster.pump();
    EXPECT_EQ(cluster.node("node-a").counters().inbox.intents, 3U);
    EXPECT_EQ(cluster.node("node-b").counters().forwarder.refused, 2U);
    EXPECT_EQ(cluster.node("node-b").forwarder().pending(), 3U);
    EXPECT_TRUE(cluster.delivered("node-b", 3).empty());
}

TEST_F(ClusterTest, MalformedEnvelopesAreRefusedCountedAndChangeNothing) {
    watch("node-b", 1);
    cluster_.pump();
    cluster_.publish_raw("inbox:node-b", "not an envelope");
    cluster_.publish_raw("inbox:node-b", std::string("\x01\x03", 2) + "truncated");
    // A kind on the wrong channel, and an event on another game's channel.
    cluster_.publish_raw("inbox:node-b", encode(Event{"g1", 1, "node-a", 1, "{}", "", 0}));
    cluster_.publish_raw("game:g1", encode(Event{"g2", 1, "node-a", 1, "{}", "", 0}));
    cluster_.publish_raw("game:g1", encode(Intent{"node-c", 1, 1, "g1", "{}"}));
    cluster_.pump();
    EXPECT_EQ(cluster_.node("node-b").counters().malformed, 5U);
    EXPECT_TRUE(cluster_.delivered("node-b", 1).empty());
    EXPECT_EQ(cluster_.node("node-b").relay().relayed_seq("g1"), 0U);

    // An intent whose player message does not decode never reaches the room; the sender hears
    // the refusal (here: an answer to no pending intent).
    cluster_.publish_raw("inbox:node-a", encode(Intent{"node-b", 9, 99, "g1", "not json"}));
    // And one whose message is about another game than the envelope says.
    cluster_.publish_raw(
        "inbox:node-a",
        encode(Intent{"node-b", 9, 98, "g1",
                      protocol::encode(testing::move_request("g2", 0, "e2e4", "x"))}));
    cluster_.pump();
    EXPECT_EQ(cluster_.node("node-a").counters().inbox.bad_messages, 2U);
    EXPECT_EQ(cluster_.node("node-a").counters().inbox.intents, 0U);
    EXPECT_EQ(cluster_.node("node-b").counters().forwarder.late_answers, 2U);
    EXPECT_TRUE(cluster_.game("g1").events.empty());
}

}  // namespace
}  // namespace arbiter::server::cluster

namespace arbiter::server::cluster {
namespace {

using testing::TestCluster;

// Two players on two non-owner nodes play 30 plies while the bus loses 40 % of all that the
// nodes publish (intents, answers, events) and the broker goes away every few plies. Whatever is
// lost: every request is answered exactly once (its move, or `unavailable` and the player sends
// it again), every ply is committed once, and every viewer ends with every seq once, in order.
TEST(ClusterSoak, LossyBusAndBrokerFlapsLoseNothingAndRepeatNothing) {
    for (const unsigned seed : {1U, 2U, 3U, 4U, 5U}) {
        SCOPED_TRACE(seed);
        TestCluster cluster({"node-a", "node-b", "node-c"});
        cluster.set_owner("g1", Owner{"node-a", 1});
        for (const auto& [node, viewer] :
             {std::pair<std::string, ConnectionId>{"node-b", 1}, {"node-b", 2}, {"node-c", 3}}) {
            cluster.node(node).relay().add_viewer("g1", viewer, 0, cluster.now());
        }
        cluster.pump();
        std::mt19937 random(seed);
        cluster.set_drop_rule([&random](const std::string&, const std::string&, const Envelope&) {
            return random() % 5 < 2;
        });
        constexpr std::uint32_t kPlies = 30;
        int requests = 0;
        std::uint32_t flapped_at = kPlies;
        for (std::uint32_t ply = 0; ply < kPlies;) {
            const std::string node = ply % 2 == 0 ? "node-b" : "node-c";
            const ConnectionId mover = ply % 2 == 0 ? 7 : 8;
            const auto id = "r" + std::to_string(++requests);
            const auto before = cluster.delivered(node, mover).size();
            ASSERT_TRUE(
                cluster.forward_move(node, mover, "g1", ply, "m" + std::to_string(ply), id));
            if (ply % 7 == 6 && ply != flapped_at) {
                // The broker goes with the request in flight (and then its answer and event).
                flapped_at = ply;
                cluster.set_broker_up(false);
                cluster.advance(Millis{500});
                cluster.set_broker_up(true);
            }
            for (int slice = 0; slice < 200 && cluster.delivered(node, mover).size() == before;
                 ++slice) {
                cluster.advance(Millis{50});
            }
            ASSERT_EQ(cluster.delivered(node, mover).size(), before + 1) << "ply " << ply;
            const auto& reply = cluster.delivered(node, mover).back();
            ASSERT_NE(reply.find("\"id\":\"" + id + "\""), std::string::npos) << reply;
            if (reply.find("\"type\":\"moved\"") != std::string::npos) {
                EXPECT_NE(reply.find("\"ply\":" + std::to_string(ply + 1)), std::string::npos);
                ++ply;
            } else {
                EXPECT_NE(reply.find("\"code\":\"unavailable\""), std::string::npos) << reply;
            }
        }
        // The bus heals; the next event shows any gap left at the tail.
        cluster.set_drop_rule({});
        cluster.play_local("g1", "last");
        cluster.advance(Millis{2000});

        const auto& game = cluster.game("g1");
        ASSERT_EQ(game.events.size(), kPlies + 1);
        for (const auto& [ply, times] : game.applied) {
            EXPECT_EQ(times, 1) << "ply " << ply;
        }
        for (const auto& [node, viewer] :
             {std::pair<std::string, ConnectionId>{"node-b", 1}, {"node-b", 2}, {"node-c", 3}}) {
            EXPECT_EQ(cluster.seqs(node, viewer), one_to(kPlies + 1)) << node << " " << viewer;
        }
        for (const auto& [node, mover] :
             {std::pair<std::string, ConnectionId>{"node-b", 7}, {"node-c", 8}}) {
            EXPECT_EQ(cluster.node(node).forwarder().pending(), 0U);
        }
        const auto b = cluster.node("node-b").counters();
        const auto c = cluster.node("node-c").counters();
        EXPECT_GT(b.forwarder.retried + c.forwarder.retried, 0U);
        EXPECT_GT(cluster.bus_counters().dropped, 0U);  // the broker went away with messages
        EXPECT_GT(b.relay.catch_ups, 1U);
        EXPECT_EQ(b.malformed, 0U);
    }
}

}  // namespace
}  // namespace arbiter::server::cluster
