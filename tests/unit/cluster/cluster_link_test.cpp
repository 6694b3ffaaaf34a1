// The forwarding between cluster nodes (server/app/cluster_link.hpp): two links, node a and node
// b, on a bus the test pumps by hand, each with a fake hub that records what reaches it.
#include "server/app/cluster_link.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/protocol/codec.hpp"
#include "tests/unit/cluster/test_bus.hpp"

namespace arbiter::server::app {
namespace {

using cluster::kMaxHops;
using testing::Broker;
using testing::NodeBus;

/// An `error` reply's code and id, as the wire has them ("" when `text` is not an error).
std::pair<std::string, std::string> error_of(const std::string& text) {
    const auto json = nlohmann::json::parse(text);
    if (json.value("type", "") != "error") {
        return {};
    }
    return {json.value("code", ""), json.value("id", "")};
}

/// Keeps posted work until the test runs it.
class QueueExecutor final : public Executor {
  public:
    void post(std::function<void()> task) override { tasks.push_back(std::move(task)); }
    std::shared_ptr<Timer> post_after(std::chrono::milliseconds /*delay*/,
                                      std::function<void()> task) override {
        tasks.push_back(std::move(task));
        return nullptr;
    }
    void run() {
        while (!tasks.empty()) {
            auto task = std::move(tasks.front());
            tasks.pop_front();
            task();
        }
    }
    std::deque<std::function<void()>> tasks;
};

/// A local connection: what it was sent, and how it was closed.
class TestPeer final : public net::Peer {
  public:
    explicit TestPeer(std::uint64_t id) : id_(id) {}
    std::uint64_t id() const noexcept override { return id_; }
    const std::string& address() const noexcept override { return address_; }
    bool send(std::shared_ptr<const std::string> text) override {
        sent.push_back(*text);
        return true;
    }
    void close(net::CloseCode code, std::string_view reason) override {
        closed.emplace_back(code, std::string(reason));
    }
    std::optional<std::chrono::milliseconds> round_trip() const noexcept override { return rtt; }
    bool responsive() const noexcept override { return answers; }
    std::optional<std::chrono::milliseconds> rtt;
    bool answers = true;
    std::vector<std::string> sent;
    std::vector<std::pair<net::CloseCode, std::string>> closed;

  private:
    std::uint64_t id_;
    std::string address_ = "127.0.0.1";
};

/// What the hub of one node was asked.
class FakeHub final : public ClusterHost {
  public:
    struct Request {
        std::shared_ptr<net::Peer> peer;
        protocol::ClientMessage message;
        std::string name;
        std::optional<AccountUser> user;
        std::uint64_t hops = 0;
    };
    void remote_opened(const std::shared_ptr<net::Peer>& peer) override { opened.push_back(peer); }
    void remote_closed(const std::shared_ptr<net::Peer>& peer) override { closed.push_back(peer); }
    void remote_request(const std::shared_ptr<net::Peer>& peer, protocol::ClientMessage message,
                        std::string name, std::optional<AccountUser> user,
                        std::uint64_t hops) override {
        requests.push_back({peer, std::move(message), std::move(name), std::move(user), hops});
    }
    void request_again(const std::shared_ptr<net::Peer>& peer, protocol::ClientMessage message,
                       std::uint64_t hops) override {
        again.push_back({peer, std::move(message), {}, std::nullopt, hops});
    }
    std::vector<std::shared_ptr<net::Peer>> opened;
    std::vector<std::shared_ptr<net::Peer>> closed;
    std::vector<Request> requests;
    std::vector<Request> again;
};

struct Node {
    Node(Broker& broker, const std::string& id, std::uint64_t incarnation)
        : bus(broker),
          executor(std::make_shared<QueueExecutor>()),
          link(std::make_shared<ClusterLink>(id, incarnation, hub, executor)) {
        link->attach(bus);
        link->on_bus_state(bus::BusState::connected);
    }
    NodeBus bus;
    FakeHub hub;
    std::shared_ptr<QueueExecutor> executor;
    std::shared_ptr<ClusterLink> link;
};

class ClusterLinkTest : public ::testing::Test {
  protected:
    /// Hands every published message to its node, until none is left.
    void pump() {
        while (!broker_.queue.empty()) {
            auto message = std::move(broker_.queue.front());
            broker_.queue.pop_front();
            for (Node* node : {&a_, &b_}) {
                if (message.channel == cluster::inbox_channel(node->link->self())) {
                    node->link->on_bus_message(message.channel, message.bytes);
                }
            }
            a_.executor->run();
            b_.executor->run();
        }
        a_.executor->run();
        b_.executor->run();
    }

    /// A move request of `peer` (a connection on b) for game g1, as the hub makes it.
    static RoomRequest move(const std::shared_ptr<TestPeer>& peer, std::uint32_t ply,
                            const std::string& id) {
        return RoomRequest{peer, id, protocol::MoveRequest{"g1", "e2e4", ply}, {}, {}};
    }

    Broker broker_;
    Node a_{broker_, "node-a", 5};
    Node b_{broker_, "node-b", 7};
};

TEST_F(ClusterLinkTest, EachNodeSubscribesItsInboxAndTheBroadcasts) {
    EXPECT_EQ(a_.bus.subscribed, (std::vector<std::string>{"inbox:node-a", "cluster:all"}));
    EXPECT_EQ(b_.bus.subscribed, (std::vector<std::string>{"inbox:node-b", "cluster:all"}));
}

TEST_F(ClusterLinkTest, AForwardedRequestReachesTheOwnersHubAndItsRepliesComeBackInOrder) {
    auto player = std::make_shared<TestPeer>(9);
    player->rtt = std::chrono::milliseconds(48);
    player->answers = false;
    RoomRequest watch{player, std::string("w1"),     protocol::Watch{"g1", std::nullopt}, "Ann",
                      {},     AccountUser{12, "ann"}};
    b_.link->forward(std::move(watch), "node-a");
    pump();
    ASSERT_EQ(a_.hub.opened.size(), 1U);
    ASSERT_EQ(a_.hub.requests.size(), 1U);
    const auto request = a_.hub.requests.front();  // a copy: more requests come
    EXPECT_EQ(request.peer, a_.hub.opened.front());
    EXPECT_TRUE(ClusterLink::is_remote(*request.peer));
    EXPECT_FALSE(ClusterLink::is_remote(*player));
    EXPECT_EQ(request.message.id, "w1");
    EXPECT_TRUE(std::holds_alternative<protocol::Watch>(request.message.body));
    EXPECT_EQ(request.name, "Ann");
    EXPECT_EQ(request.user, (AccountUser{12, "ann"}));
    EXPECT_EQ(request.hops, 0U);
    // Lag compensation and liveness on the owner see the holder's measure of the connection.
    EXPECT_EQ(request.peer->round_trip(), std::chrono::milliseconds(48));
    EXPECT_FALSE(request.peer->responsive());

    // The room answers, then sends two events: all reach the connection, in order.
    for (const char* text : {R"({"type":"state","id":"w1"})", R"({"type":"moved","seq":4})",
                             R"({"type":"moved","seq":5})"}) {
        request.peer->send(std::make_shared<const std::string>(text));
    }
    pump();
    EXPECT_EQ(player->sent, (std::vector<std::string>{R"({"type":"state","id":"w1"})",
                                                      R"({"type":"moved","seq":4})",
                                                      R"({"type":"moved","seq":5})"}));
    // The owner is remembered: the next request goes there without asking the database.
    auto next = move(player, 0, "m1");
    EXPECT_TRUE(b_.link->forward_known(next));
    pump();
    ASSERT_EQ(a_.hub.requests.size(), 2U);
    EXPECT_EQ(a_.hub.requests[1].peer, request.peer);  // the same connection on the owner
    EXPECT_EQ(a_.hub.opened.size(), 1U);
    RoomRequest unknown{player, std::nullopt, protocol::Resign{"g2"}, {}, {}};
    EXPECT_FALSE(b_.link->forward_known(unknown));
    const auto counters = b_.link->counters();
    EXPECT_EQ(counters.forwarded, 2U);
    EXPECT_EQ(counters.deliveries, 3U);
    EXPECT_EQ(counters.forwarded_connections, 1U);
    EXPECT_EQ(a_.link->counters().remote_connections, 1U);
}

TEST_F(ClusterLinkTest, AnEntryTheOwnerDoesNotOwnComesBackAndIsRoutedAgainABoundedNumberOfTimes) {
    auto player = std::make_shared<TestPeer>(9);
    const auto resume = [&](const std::string& id, std::uint64_t hops) {
        RoomRequest request{player, id, protocol::Resume{"g1", "token", std::nullopt}, {}, {}};
        request.hops = hops;
        return request;
    };
    b_.link->forward(resume("r1", 0), "node-a");
    pump();
    ASSERT_EQ(a_.hub.requests.size(), 1U);
    // node-a's registry finds the game elsewhere: the request goes back to its holder.
    auto forwarded = a_.hub.requests.front();
    a_.link->forward(
        RoomRequest{forwarded.peer, forwarded.message.id, forwarded.message.body, {}, {}},
        "node-c");
    pump();
    ASSERT_EQ(b_.hub.again.size(), 1U);
    EXPECT_EQ(b_.hub.again.front().peer, player);
    EXPECT_EQ(b_.hub.again.front().hops, 1U);
    EXPECT_EQ(b_.hub.again.front().message.id, "r1");
    EXPECT_TRUE(player->closed.empty());
    // node-b forgot node-a as the owner of g1.
    auto next = move(player, 3, "m2");
    EXPECT_FALSE(b_.link->forward_known(next));

    // Round and round: after kMaxHops the player is told, and nothing goes out again.
    for (std::uint64_t hops = 1; hops <= kMaxHops; ++hops) {
        b_.link->forward(resume("r1", hops), "node-a");
        pump();
        auto arrived = a_.hub.requests.back();
        RoomRequest bounce{arrived.peer, arrived.message.id, arrived.message.body, {}, {}};
        bounce.hops = arrived.hops;
        a_.link->forward(std::move(bounce), "node-c");
        pump();
    }
    EXPECT_EQ(b_.hub.again.size(), kMaxHops);
    ASSERT_FALSE(player->sent.empty());
    EXPECT_EQ(error_of(player->sent.back()),
              std::pair(std::string("unavailable"), std::string("r1")));
}

// A move that comes back relied on a seat the old owner's room held: the new owner does not know
// the connection, so it starts over (and resumes) rather than have its move refused there.
TEST_F(ClusterLinkTest, AMoveTheOwnerNoLongerOwnsClosesItsConnection) {
    auto player = std::make_shared<TestPeer>(9);
    b_.link->forward(move(player, 3, "m1"), "node-a");
    pump();
    auto arrived = a_.hub.requests.front();
    a_.link->forward(RoomRequest{arrived.peer, arrived.message.id, arrived.message.body, {}, {}},
                     "node-c");
    pump();
    EXPECT_TRUE(b_.hub.again.empty());
    ASSERT_EQ(player->closed.size(), 1U);
    EXPECT_EQ(player->closed.front().first, net::CloseCode::service_restart);
}

TEST_F(ClusterLinkTest, AClosedConnectionLeavesTheOwnersRooms) {
    auto player = std::make_shared<TestPeer>(9);
    b_.link->forward(move(player, 0, "m1"), "node-a");
    pump();
    ASSERT_EQ(a_.hub.opened.size(), 1U);
    b_.link->connection_closed(*player);
    pump();
    ASSERT_EQ(a_.hub.closed.size(), 1U);
    EXPECT_EQ(a_.hub.closed.front(), a_.hub.opened.front());
    EXPECT_EQ(a_.link->counters().remote_connections, 0U);
    EXPECT_EQ(b_.link->counters().forwarded_connections, 0U);
    // A later request of the same connection id opens a new one.
    b_.link->forward(move(player, 0, "m2"), "node-a");
    pump();
    EXPECT_EQ(a_.hub.opened.size(), 2U);
    EXPECT_NE(a_.hub.opened[0]->id(), a_.hub.opened[1]->id());
}

TEST_F(ClusterLinkTest, TheOwnerClosingARemoteConnectionClosesItOnItsHolderWith1012) {
    auto player = std::make_shared<TestPeer>(9);
    b_.link->forward(move(player, 0, "m1"), "node-a");
    pump();
    auto remote = a_.hub.opened.front();
    remote->close(net::CloseCode::service_restart, "this node lost its games; resume");
    // The close reaches the owner's hub later, never inside close().
    EXPECT_TRUE(a_.hub.closed.empty());
    pump();
    ASSERT_EQ(player->closed.size(), 1U);
    EXPECT_EQ(player->closed.front().first, net::CloseCode::service_restart);
    EXPECT_EQ(player->closed.front().second, "this node lost its games; resume");
    ASSERT_EQ(a_.hub.closed.size(), 1U);
    // Nothing is sent through a closed remote connection, and a second close does nothing.
    EXPECT_FALSE(remote->send(std::make_shared<const std::string>("{}")));
    remote->close(net::CloseCode::going_away, "again");
    pump();
    EXPECT_EQ(player->closed.size(), 1U);
    EXPECT_EQ(a_.hub.closed.size(), 1U);
}

TEST_F(ClusterLinkTest, AGracefulStopHangsUpEveryRemoteConnection) {
    auto first = std::make_shared<TestPeer>(9);
    auto second = std::make_shared<TestPeer>(10);
    b_.link->forward(move(first, 0, "m1"), "node-a");
    b_.link->forward(move(second, 0, "m2"), "node-a");
    pump();
    a_.link->hang_up_all("this node is stopping");
    pump();
    EXPECT_EQ(first->closed.size(), 1U);
    EXPECT_EQ(second->closed.size(), 1U);
    EXPECT_EQ(a_.hub.closed.size(), 2U);
}

TEST_F(ClusterLinkTest, AnOwnerGoneClosesItsConnectionsAndIsForgotten) {
    auto player = std::make_shared<TestPeer>(9);
    auto bystander = std::make_shared<TestPeer>(10);
    b_.link->forward(move(player, 0, "m1"), "node-a");
    pump();
    b_.link->nodes_live({{"node-a", 5}, {"node-b", 7}});
    EXPECT_TRUE(player->closed.empty());
    b_.link->nodes_live({{"node-b", 7}});
    ASSERT_EQ(player->closed.size(), 1U);
    EXPECT_EQ(player->closed.front().first, net::CloseCode::service_restart);
    EXPECT_TRUE(bystander->closed.empty());
    auto next = move(player, 1, "m2");
    EXPECT_FALSE(b_.link->forward_known(next));
    EXPECT_EQ(b_.link->counters().lost_owner, 1U);
}

TEST_F(ClusterLinkTest, AHolderGoneOrRestartedEndsItsRemoteConnections) {
    auto player = std::make_shared<TestPeer>(9);
    b_.link->forward(move(player, 0, "m1"), "node-a");
    pump();
    a_.link->nodes_live({{"node-a", 5}, {"node-b", 7}});
    EXPECT_TRUE(a_.hub.closed.empty());
    // node-b restarted: incarnation 8 is not the run that connection belonged to.
    a_.link->nodes_live({{"node-a", 5}, {"node-b", 8}});
    ASSERT_EQ(a_.hub.closed.size(), 1U);
    EXPECT_EQ(a_.link->counters().remote_connections, 0U);
    // A request the old run sent before it noticed (it was frozen): not served without the seat
    // its connection had here, but hung up, so that its client resumes.
    b_.link->forward(move(player, 1, "m2"), "node-a");
    pump();
    EXPECT_EQ(a_.hub.requests.size(), 1U);
    EXPECT_EQ(a_.hub.opened.size(), 1U);
    ASSERT_EQ(player->closed.size(), 1U);
    EXPECT_EQ(player->closed.front().first, net::CloseCode::service_restart);
}

TEST_F(ClusterLinkTest, AHangupMeantForAnEarlierRunOfTheHolderIsIgnored) {
    auto player = std::make_shared<TestPeer>(9);
    b_.link->forward(move(player, 0, "m1"), "node-a");
    pump();
    cluster::Hangup stale{"node-a", {"node-b", 6, 9}, false, 1012, "old"};
    b_.link->on_bus_message("inbox:node-b", cluster::encode(stale));
    EXPECT_TRUE(player->closed.empty());
    stale.connection.incarnation = 7;
    b_.link->on_bus_message("inbox:node-b", cluster::encode(stale));
    EXPECT_EQ(player->closed.size(), 1U);
}

TEST_F(ClusterLinkTest, WhenTheBusDropsEverythingStartsOverAndRequestsAreRefused) {
    auto player = std::make_shared<TestPeer>(9);
    b_.link->forward(move(player, 0, "m1"), "node-a");
    pump();
    ASSERT_EQ(a_.hub.opened.size(), 1U);
    broker_.up = false;
    a_.link->on_bus_state(bus::BusState::disconnected);
    b_.link->on_bus_state(bus::BusState::disconnected);
    EXPECT_EQ(a_.hub.closed.size(), 1U);
    ASSERT_EQ(player->closed.size(), 1U);
    EXPECT_EQ(player->closed.front().first, net::CloseCode::service_restart);

    auto again = std::make_shared<TestPeer>(11);
    b_.link->forward(move(again, 1, "m2"), "node-a");
    ASSERT_EQ(again->sent.size(), 1U);
    EXPECT_EQ(error_of(again->sent.front()),
              std::pair(std::string("unavailable"), std::string("m2")));
    // An unwatch is answered by nobody: it is dropped quietly.
    RoomRequest unwatch{again, std::nullopt, protocol::Unwatch{"g1"}, {}, {}};
    b_.link->forward(std::move(unwatch), "node-a");
    EXPECT_EQ(again->sent.size(), 1U);

    broker_.up = true;
    b_.link->on_bus_state(bus::BusState::reconnected);
    a_.link->on_bus_state(bus::BusState::reconnected);
    b_.link->forward(move(again, 1, "m3"), "node-a");
    pump();
    EXPECT_EQ(a_.hub.requests.size(), 2U);
}

TEST_F(ClusterLinkTest, AMessageTheBusDroppedWhileUpEndsEveryForwardedConnection) {
    auto player = std::make_shared<TestPeer>(9);
    b_.link->forward(move(player, 0, "m1"), "node-a");
    pump();
    const std::vector<std::pair<std::string, std::uint64_t>> live{{"node-a", 5}, {"node-b", 7}};
    b_.link->nodes_live(live);
    a_.link->nodes_live(live);
    EXPECT_TRUE(player->closed.empty());
    // Either side's queue was full once: a delivery or a hangup may be gone.
    b_.bus.dropped = 1;
    a_.bus.dropped = 3;
    b_.link->nodes_live(live);
    a_.link->nodes_live(live);
    ASSERT_EQ(player->closed.size(), 1U);
    EXPECT_EQ(player->closed.front().first, net::CloseCode::service_restart);
    EXPECT_EQ(a_.hub.closed.size(), 1U);
    // Only new drops count.
    auto again = std::make_shared<TestPeer>(10);
    b_.link->forward(move(again, 0, "m2"), "node-a");
    pump();
    b_.link->nodes_live(live);
    EXPECT_TRUE(again->closed.empty());
}

TEST_F(ClusterLinkTest, ARequestWithNothingBackInTimeClosesItsConnection) {
    const std::vector<std::pair<std::string, std::uint64_t>> live{{"node-a", 5}, {"node-b", 7}};
    auto player = std::make_shared<TestPeer>(9);
    const auto sent = std::chrono::steady_clock::now();
    b_.link->forward(move(player, 0, "m1"), "node-a");
    // Lost on the way (node-a's subscription was not back yet): nothing comes back.
    broker_.queue.clear();
    b_.link->nodes_live(live, sent + ClusterLink::kAnswerTimeout / 2);
    EXPECT_TRUE(player->closed.empty());
    b_.link->nodes_live(live, sent + ClusterLink::kAnswerTimeout + std::chrono::seconds(1));
    ASSERT_EQ(player->closed.size(), 1U);
    EXPECT_EQ(player->closed.front().first, net::CloseCode::service_restart);
    // Closed once, not at every sweep.
    b_.link->nodes_live(live, sent + ClusterLink::kAnswerTimeout * 3);
    EXPECT_EQ(player->closed.size(), 1U);

    // Answered in time: it stays; an unwatch needs no answer.
    auto other = std::make_shared<TestPeer>(10);
    const auto later = std::chrono::steady_clock::now();
    b_.link->forward(move(other, 0, "m2"), "node-a");
    pump();
    a_.hub.requests.back().peer->send(std::make_shared<const std::string>("{}"));
    pump();
    RoomRequest unwatch{other, std::nullopt, protocol::Unwatch{"g1"}, {}, {}};
    b_.link->forward(std::move(unwatch), "node-a");
    b_.link->nodes_live(live, later + ClusterLink::kAnswerTimeout * 2);
    EXPECT_TRUE(other->closed.empty());
}

TEST_F(ClusterLinkTest, ARejoinedNodeStartsItsConnectionsOverAsItsNewRun) {
    auto player = std::make_shared<TestPeer>(9);
    b_.link->forward(move(player, 0, "m1"), "node-a");
    pump();
    // node-b lost its lease: node-a ends the connections of node-b's run 7 ...
    a_.link->nodes_live({{"node-a", 5}, {"node-b", 8}});
    EXPECT_EQ(a_.hub.closed.size(), 1U);
    // ... and node-b, joined again as run 8, closes them itself.
    b_.link->rejoined(8);
    ASSERT_EQ(player->closed.size(), 1U);
    EXPECT_EQ(player->closed.front().first, net::CloseCode::service_restart);
    // What it forwards now is run 8's, and stays while run 8 is live.
    auto again = std::make_shared<TestPeer>(11);
    b_.link->forward(move(again, 0, "m2"), "node-a");
    pump();
    ASSERT_EQ(a_.hub.opened.size(), 2U);
    a_.link->nodes_live({{"node-a", 5}, {"node-b", 8}});
    EXPECT_EQ(a_.hub.closed.size(), 1U);
    // A hangup meant for run 7 is not run 8's.
    b_.link->on_bus_message("inbox:node-b", cluster::encode(cluster::Hangup{
                                                "node-a", {"node-b", 7, 11}, false, 1012, "old"}));
    EXPECT_TRUE(again->closed.empty());
}

// The owner lost its lease and joined again: its rooms are gone, and the holders of their
// remote members must close those clients (they cannot tell by themselves: the owner is live).
TEST_F(ClusterLinkTest, AnOwnerThatRejoinedHangsUpItsRemoteMembers) {
    auto spectator = std::make_shared<TestPeer>(9);
    RoomRequest watch{spectator, std::string("w1"), protocol::Watch{"g1", std::nullopt}, {}, {}};
    b_.link->forward(std::move(watch), "node-a");
    pump();
    ASSERT_EQ(a_.hub.opened.size(), 1U);
    a_.link->rejoined(6);
    pump();
    ASSERT_EQ(spectator->closed.size(), 1U);
    EXPECT_EQ(spectator->closed.front().first, net::CloseCode::service_restart);
    EXPECT_EQ(a_.hub.closed.size(), 1U);
    // The room's own close of that member, after, sends nothing more.
    a_.hub.opened.front()->close(net::CloseCode::service_restart, "evicted");
    pump();
    EXPECT_EQ(spectator->closed.size(), 1U);
}

TEST_F(ClusterLinkTest, WhatIsNotAnEnvelopeForThisNodeIsCountedAndDropped) {
    a_.link->on_bus_message("inbox:node-a", "not an envelope");
    a_.link->on_bus_message("inbox:node-b", cluster::encode(cluster::Delivery{"node-b", 9, "{}"}));
    EXPECT_EQ(a_.link->counters().malformed, 2U);
    // An intent whose message does not decode gets the codec's refusal, and reaches no room.
    cluster::Intent bad{{"node-b", 7, 9}, "g1", 0, "", 0, "", 0, true, "{not json"};
    auto player = std::make_shared<TestPeer>(9);
    b_.link->forward(move(player, 0, "m1"), "node-a");  // so that node-b knows the connection
    pump();
    a_.link->on_bus_message("inbox:node-a", cluster::encode(bad));
    pump();
    EXPECT_EQ(a_.hub.requests.size(), 1U);
    ASSERT_EQ(player->sent.size(), 1U);
    EXPECT_EQ(error_of(player->sent.front()).first, "bad_json") << player->sent.front();
}

}  // namespace
}  // namespace arbiter::server::app
