// What every node must know (server/app/cluster_fanout.hpp): two nodes, a and b, each with its
// link, directory, rating book, lobby and fan-out, on a bus the test pumps by hand.
#include "server/app/cluster_fanout.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/protocol/codec.hpp"
#include "tests/unit/cluster/test_bus.hpp"

namespace arbiter::server::app {
namespace {

const std::string kAnnHash(64, 'a');
const std::string kBobHash(64, 'b');

using testing::Broker;
using testing::InlineExecutor;
using testing::NodeBus;

class NoHost final : public ClusterHost {
  public:
    void remote_opened(const std::shared_ptr<net::Peer>& /*peer*/) override {}
    void remote_closed(const std::shared_ptr<net::Peer>& /*peer*/) override {}
    void remote_request(const std::shared_ptr<net::Peer>& /*peer*/,
                        protocol::ClientMessage /*message*/, std::string /*name*/,
                        std::optional<AccountUser> /*user*/, std::uint64_t /*hops*/) override {}
    void request_again(const std::shared_ptr<net::Peer>& /*peer*/,
                       protocol::ClientMessage /*message*/, std::uint64_t /*hops*/) override {}
};

/// The store: what a heal reads, and a game writer whose commits the test decides.
class Store final : public storage::GameRepository {
  public:
    void write(storage::GameIntent /*intent*/, Done done) override {
        done(fail ? Expected<void, storage::StorageError>(
                        unexpected(storage::StorageError{"the disk is gone"}))
                  : Expected<void, storage::StorageError>());
    }
    void flush() override {}
    Expected<std::vector<storage::StoredGame>, storage::StorageError> load_unfinished() override {
        return std::vector<storage::StoredGame>{};
    }
    Expected<std::optional<storage::StoredGame>, storage::StorageError> load(
        const std::string& /*id*/) override {
        return std::optional<storage::StoredGame>{};
    }
    Expected<std::vector<storage::GameRow>, storage::StorageError> list(
        const storage::GameQuery& /*query*/) override {
        return std::vector<storage::GameRow>{};
    }
    bool writable() override { return true; }
    std::uint64_t size_bytes() override { return 0; }
    Expected<void, storage::StorageError> backup(const std::string& /*path*/) override {
        return {};
    }

    bool fail = false;
    storage::AccountSnapshot accounts;
    std::vector<storage::RatingRow> ratings;
    bool unreadable = false;
};

struct Node {
    Node(Broker& broker, const std::string& id, std::uint64_t incarnation)
        : bus(broker),
          link(std::make_shared<ClusterLink>(id, incarnation, host,
                                             std::make_shared<InlineExecutor>())),
          fanout(id, directory, ratings,
                 FanoutSources{
                     [this]() -> Expected<storage::AccountSnapshot, storage::StorageError> {
                         if (store.unreadable) {
                             return unexpected(storage::StorageError{"down"});
                         }
                         return store.accounts;
                     },
                     [this]() -> Expected<std::vector<storage::RatingRow>, storage::StorageError> {
                         if (store.unreadable) {
                             return unexpected(storage::StorageError{"down"});
                         }
                         return store.ratings;
                     }}),
          games(store, fanout) {
        fanout.serve_lobby(lobby);
        fanout.start(*link, false);
        link->attach(bus);
        link->on_bus_state(bus::BusState::connected);
    }
    ~Node() {
        fanout.stop();
        link->close();
    }
    Node(const Node&) = delete;
    Node& operator=(const Node&) = delete;
    Node(Node&&) = delete;
    Node& operator=(Node&&) = delete;

    NodeBus bus;
    NoHost host;
    std::shared_ptr<ClusterLink> link;
    AccountDirectory directory;
    RatingBook ratings;
    Lobby lobby{100};
    Store store;
    ClusterFanout fanout;
    RatingsCommitted games;
};

protocol::GameSummary waiting(const std::string& game, std::int64_t created_ms) {
    protocol::GameSummary summary;
    summary.game = game;
    summary.status = protocol::GameStatus::waiting;
    summary.created_ms = created_ms;
    summary.first = protocol::PlayerInfo{};
    summary.first->name = "Ann";
    return summary;
}

/// The game ids a lobby lists, newest first.
std::vector<std::string> listed(const Lobby& lobby) {
    std::vector<std::string> games;
    const auto page = lobby.page(1000, std::nullopt);
    for (const auto& summary : page->games) {
        games.push_back(summary.game);
    }
    return games;
}

class ClusterFanoutTest : public ::testing::Test {
  protected:
    /// Hands every published message to each node subscribed to its channel.
    void pump() {
        while (!broker_.queue.empty()) {
            auto message = std::move(broker_.queue.front());
            broker_.queue.pop_front();
            for (Node* node : {&a_, &b_}) {
                const auto& subscribed = node->bus.subscribed;
                if (std::find(subscribed.begin(), subscribed.end(), message.channel) !=
                    subscribed.end()) {
                    node->link->on_bus_message(message.channel, message.bytes);
                }
            }
        }
    }

    /// A rated blitz chess game between ann (12) and bob (13) that a's room ends: settled in
    /// a's book and written through a's store, as GameRoom::commit does.
    Settlement end_rated_game_on_a(std::int64_t now_ms) {
        const Perf blitz{rules::Variant::chess, RatedSpeed::blitz};
        auto settled = a_.ratings.settle({12, 13}, blitz, rules::Outcome::first_wins, now_ms);
        storage::EndGame end;
        end.game = "g1";
        end.ratings = settled.stored();
        a_.games.write(end, [this, settled](Expected<void, storage::StorageError> done) {
            if (!done) {
                a_.ratings.undo(settled);
            }
        });
        return settled;
    }

    Broker broker_;
    Node a_{broker_, "node-a", 5};
    Node b_{broker_, "node-b", 7};
};

TEST_F(ClusterFanoutTest, EachNodeSubscribesTheBroadcastChannelBesidesItsInbox) {
    EXPECT_EQ(a_.bus.subscribed, (std::vector<std::string>{"inbox:node-a", "cluster:all"}));
    EXPECT_EQ(b_.bus.subscribed, (std::vector<std::string>{"inbox:node-b", "cluster:all"}));
}

TEST_F(ClusterFanoutTest, ASignInOnAIsKnownOnBAndItsSignOutToo) {
    a_.directory.signed_up("Ann");
    a_.directory.signed_in(kAnnHash, AccountUser{12, "Ann"});
    EXPECT_FALSE(b_.directory.session_user(kAnnHash));
    pump();
    EXPECT_EQ(b_.directory.session_user(kAnnHash), (AccountUser{12, "Ann"}));
    EXPECT_TRUE(b_.directory.registered("ANN"));  // a guest on b cannot take the name
    // a's own broadcasts came back to it, and were ignored.
    EXPECT_EQ(a_.link->counters().broadcasts, 0U);
    EXPECT_EQ(a_.link->counters().broadcasts_sent, 2U);
    EXPECT_EQ(b_.link->counters().broadcasts, 2U);
    EXPECT_EQ(b_.fanout.counters().applied, 2U);

    a_.directory.signed_out(kAnnHash);
    pump();
    EXPECT_FALSE(b_.directory.session_user(kAnnHash));
}

TEST_F(ClusterFanoutTest, APasswordChangeAndADeletionEndSessionsOnEveryNode) {
    a_.directory.signed_in(kAnnHash, AccountUser{12, "Ann"});
    a_.directory.signed_in(kBobHash, AccountUser{12, "Ann"});  // a second session of ann
    pump();
    EXPECT_EQ(b_.directory.session_count(), 2U);
    b_.directory.other_sessions_ended(12, kBobHash);  // changed on b, this time
    pump();
    EXPECT_FALSE(a_.directory.session_user(kAnnHash));
    EXPECT_TRUE(a_.directory.session_user(kBobHash));
    a_.directory.account_deleted(12);
    pump();
    EXPECT_TRUE(b_.directory.deleted(12));
    EXPECT_EQ(b_.directory.session_count(), 0U);
}

TEST_F(ClusterFanoutTest, ARatingSettledOnAIsBsOnceCommitted) {
    const Perf blitz{rules::Variant::chess, RatedSpeed::blitz};
    const auto settled = end_rated_game_on_a(1'700'000'000'000);
    pump();
    for (std::size_t seat = 0; seat < 2; ++seat) {
        const auto on_b = b_.ratings.entry(settled.users[seat], blitz);
        ASSERT_TRUE(on_b);
        EXPECT_EQ(*on_b, settled.after[seat]);
        EXPECT_EQ(on_b->games, 1);
    }
    EXPECT_EQ(b_.ratings.current(12, blitz, 1'700'000'000'000).rating,
              a_.ratings.current(12, blitz, 1'700'000'000'000).rating);
    // A late or repeated broadcast never takes a rating back.
    const auto second = end_rated_game_on_a(1'700'000'100'000);
    pump();
    EXPECT_EQ(b_.ratings.entry(12, blitz)->games, 2);
    EXPECT_FALSE(b_.ratings.apply(12, blitz, settled.after[0]));
    EXPECT_EQ(*b_.ratings.entry(12, blitz), second.after[0]);
}

TEST_F(ClusterFanoutTest, ASettleWhoseCommitFailedNeverLeavesItsNode) {
    a_.store.fail = true;
    end_rated_game_on_a(1'700'000'000'000);
    pump();
    const Perf blitz{rules::Variant::chess, RatedSpeed::blitz};
    EXPECT_FALSE(a_.ratings.entry(12, blitz));  // undone
    EXPECT_FALSE(b_.ratings.entry(12, blitz));
    EXPECT_EQ(a_.link->counters().broadcasts_sent, 0U);
}

TEST_F(ClusterFanoutTest, AGameListedOnAIsInBsLobbyUntilItStarts) {
    a_.lobby.changed(waiting("g1", 10), false);
    a_.lobby.changed(waiting("hidden", 11), true);  // private: never listed, never sent
    b_.lobby.changed(waiting("g2", 20), false);
    pump();
    EXPECT_EQ(listed(b_.lobby), (std::vector<std::string>{"g2", "g1"}));
    EXPECT_EQ(listed(a_.lobby), (std::vector<std::string>{"g2", "g1"}));
    EXPECT_EQ(b_.lobby.remote_count(), 1U);
    auto started = waiting("g1", 10);
    started.status = protocol::GameStatus::playing;
    a_.lobby.changed(started, false);
    pump();
    EXPECT_EQ(listed(b_.lobby), (std::vector<std::string>{"g2"}));
    // Removed from a's memory: gone from b's lobby too.
    a_.lobby.changed(waiting("g3", 30), false);
    pump();
    EXPECT_EQ(listed(b_.lobby), (std::vector<std::string>{"g3", "g2"}));
    a_.lobby.removed("g3");
    pump();
    EXPECT_EQ(listed(b_.lobby), (std::vector<std::string>{"g2"}));
}

TEST_F(ClusterFanoutTest, ANodeGoneTakesItsListingsWithIt) {
    a_.lobby.changed(waiting("g1", 10), false);
    a_.lobby.changed(waiting("g3", 30), false);
    b_.lobby.changed(waiting("g2", 20), false);
    pump();
    EXPECT_EQ(listed(b_.lobby), (std::vector<std::string>{"g3", "g2", "g1"}));
    b_.link->nodes_live({{"node-a", 5}, {"node-b", 7}});
    EXPECT_EQ(listed(b_.lobby).size(), 3U);
    b_.link->nodes_live({{"node-b", 7}});
    EXPECT_EQ(listed(b_.lobby), (std::vector<std::string>{"g2"}));  // its own stays
}

TEST_F(ClusterFanoutTest, AHealBringsBackWhatTheBusLost) {
    const Perf blitz{rules::Variant::chess, RatedSpeed::blitz};
    broker_.up = false;  // everything below is lost on the way
    a_.directory.signed_in(kAnnHash, AccountUser{12, "Ann"});
    a_.lobby.changed(waiting("g1", 10), false);
    end_rated_game_on_a(1'700'000'000'000);
    broker_.up = true;
    pump();
    EXPECT_FALSE(b_.directory.session_user(kAnnHash));
    EXPECT_TRUE(listed(b_.lobby).empty());
    // What a committed to the store, b reads at its heal; a's listings come with a's heal.
    b_.store.accounts.users.push_back(storage::AccountSnapshot::User{12, "Ann", "ann", false});
    b_.store.accounts.sessions.push_back(storage::AccountSnapshot::Session{kAnnHash, 12});
    b_.store.ratings.push_back(storage::RatingRow{rules::Variant::chess, "blitz", 1662.3, 290.3,
                                                  0.06, 1, 1'700'000'000'000, 12});
    EXPECT_TRUE(b_.fanout.heal());
    EXPECT_TRUE(a_.fanout.heal());
    pump();
    EXPECT_EQ(b_.directory.session_user(kAnnHash), (AccountUser{12, "Ann"}));
    EXPECT_EQ(b_.ratings.entry(12, blitz)->games, 1);
    EXPECT_EQ(listed(b_.lobby), (std::vector<std::string>{"g1"}));
    EXPECT_EQ(b_.fanout.counters().heals, 1U);
    // A heal that cannot read the store keeps what the node knows.
    b_.store.unreadable = true;
    EXPECT_FALSE(b_.fanout.heal());
    EXPECT_EQ(b_.directory.session_user(kAnnHash), (AccountUser{12, "Ann"}));
    EXPECT_EQ(b_.fanout.counters().heal_failures, 1U);
}

TEST_F(ClusterFanoutTest, AListingsOfReplacesWhatWasHeldOfItsNode) {
    a_.lobby.changed(waiting("g1", 10), false);
    pump();
    broker_.up = false;
    auto started = waiting("g1", 10);
    started.status = protocol::GameStatus::playing;
    a_.lobby.changed(started, false);  // lost: b still lists g1
    a_.lobby.changed(waiting("g4", 40), false);
    broker_.up = true;
    pump();
    EXPECT_EQ(listed(b_.lobby), (std::vector<std::string>{"g1"}));
    a_.fanout.on_bus_up();  // no thread here: heal by hand, as the thread would
    a_.fanout.heal();
    pump();
    EXPECT_EQ(listed(b_.lobby), (std::vector<std::string>{"g4"}));
}

TEST_F(ClusterFanoutTest, AReloadKeepsTheSignInsMadeWhileTheStoreWasRead) {
    b_.directory.begin_reload();
    a_.directory.signed_in(kAnnHash, AccountUser{12, "Ann"});
    pump();  // reaches b while b reads a snapshot taken before it
    b_.directory.finish_reload(storage::AccountSnapshot{});
    EXPECT_EQ(b_.directory.session_user(kAnnHash), (AccountUser{12, "Ann"}));
}

TEST_F(ClusterFanoutTest, MalformedAndOversizedBroadcastsAreCountedAndDropped) {
    const auto channel = std::string(cluster::broadcast_channel());
    b_.link->on_bus_message(channel, "garbage");
    // An inbox kind on the broadcast channel, and a broadcast kind on an inbox.
    b_.link->on_bus_message(channel,
                            cluster::encode(cluster::Delivery{"node-a", 1, R"({"type":"pong"})"}));
    b_.link->on_bus_message("inbox:node-b",
                            cluster::encode(cluster::AccountChanged{
                                "node-a", cluster::AccountChange::signed_in, 12, "Ann", kAnnHash}));
    // A listing that claims 2 MiB.
    auto oversized = cluster::encode(cluster::ListingsOf{"node-a", ""});
    oversized[oversized.size() - 2] = '\x20';
    b_.link->on_bus_message(channel, oversized);
    EXPECT_EQ(b_.link->counters().malformed, 4U);
    EXPECT_EQ(b_.link->counters().broadcasts, 0U);
    EXPECT_FALSE(b_.directory.session_user(kAnnHash));

    // Well-formed envelopes whose content makes no sense: refused by the fan-out.
    b_.link->on_bus_message(channel, cluster::encode(cluster::ListingChanged{
                                         "node-a", "g1", true, R"({"type":"pong"})"}));
    b_.link->on_bus_message(channel,
                            cluster::encode(cluster::ListingChanged{
                                "node-a", "g1", true,
                                protocol::encode(protocol::ServerMessage{
                                    protocol::LobbyList{{waiting("g2", 1)}}, {}})}));  // not g1
    b_.link->on_bus_message(channel,
                            cluster::encode(cluster::AccountChanged{
                                "node-a", cluster::AccountChange::signed_in, 0, "", kAnnHash}));
    EXPECT_EQ(b_.fanout.counters().refused, 3U);
    EXPECT_EQ(b_.fanout.counters().applied, 0U);
    EXPECT_TRUE(listed(b_.lobby).empty());
    EXPECT_EQ(b_.directory.session_count(), 0U);
}

TEST_F(ClusterFanoutTest, StrangersOnTheBusCannotGrowTheLobbyWithoutBound) {
    const auto channel = std::string(cluster::broadcast_channel());
    const auto list = [&](const std::string& node, const std::string& game, std::int64_t at) {
        b_.link->on_bus_message(channel, cluster::encode(cluster::ListingChanged{
                                             node, game, true,
                                             protocol::encode(protocol::ServerMessage{
                                                 protocol::LobbyList{{waiting(game, at)}}, {}})}));
    };
    for (std::size_t game = 0; game < Lobby::kMaxListingsPerNode + 10; ++game) {
        list("stranger", "s" + std::to_string(game), static_cast<std::int64_t>(game));
    }
    EXPECT_EQ(b_.lobby.remote_count(), Lobby::kMaxListingsPerNode);
    const auto newest = b_.lobby.page(1, std::nullopt)->games;
    EXPECT_EQ(newest.front().game, "s" + std::to_string(Lobby::kMaxListingsPerNode + 9));
    for (std::size_t node = 1; node < Lobby::kMaxRemoteNodes + 5; ++node) {
        list("n" + std::to_string(node), "x" + std::to_string(node), 1);
    }
    EXPECT_EQ(b_.lobby.remote_count(), Lobby::kMaxListingsPerNode + Lobby::kMaxRemoteNodes - 1);
    EXPECT_EQ(b_.fanout.counters().refused, 5U);
    // The sweeper's next look drops every node without a lease.
    b_.link->nodes_live({{"node-a", 5}, {"node-b", 7}});
    EXPECT_EQ(b_.lobby.remote_count(), 0U);
}

}  // namespace
}  // namespace arbiter::server::app
