#include "server/app/lobby.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/unit/app/fakes.hpp"

namespace arbiter::server::app {
namespace {

using fakes::FakePeer;

protocol::GameSummary waiting(const std::string& game, std::int64_t created_ms) {
    protocol::GameSummary summary;
    summary.game = game;
    summary.status = protocol::GameStatus::waiting;
    summary.created_ms = created_ms;
    return summary;
}

protocol::GameSummary started(protocol::GameSummary summary) {
    summary.status = protocol::GameStatus::playing;
    return summary;
}

/// The game ids of a `lobby` message, in order.
std::vector<std::string> games_of(const nlohmann::json& lobby) {
    EXPECT_EQ(lobby["type"], "lobby");
    std::vector<std::string> games;
    for (const auto& game : lobby["games"]) {
        games.push_back(game["game"].get<std::string>());
    }
    return games;
}

TEST(Lobby, ASubscriberGetsTheListAtOnceAnsweringItsRequest) {
    Lobby lobby(100);
    lobby.changed(waiting("old", 1), false);
    lobby.changed(waiting("new", 2), false);
    auto peer = std::make_shared<FakePeer>(1);
    lobby.subscribe(peer, "l1");
    auto plain = std::make_shared<FakePeer>(2);
    lobby.subscribe(plain, std::nullopt);
    const auto answered = peer->messages();
    ASSERT_EQ(answered.size(), 1u);
    EXPECT_EQ(answered[0]["id"], "l1");
    EXPECT_EQ(games_of(answered[0]), (std::vector<std::string>{"new", "old"}));
    ASSERT_EQ(plain->messages().size(), 1u);
    EXPECT_FALSE(plain->messages()[0].contains("id"));
    EXPECT_EQ(games_of(plain->messages()[0]), (std::vector<std::string>{"new", "old"}));
}

TEST(Lobby, ListsPublicWaitingGamesNewestFirstUpToItsSize) {
    Lobby lobby(2);
    auto peer = std::make_shared<FakePeer>(1);
    lobby.subscribe(peer, std::nullopt);
    lobby.changed(waiting("a", 10), false);
    lobby.changed(waiting("hidden", 40), true);  // private: not listed, nobody told
    lobby.changed(waiting("b", 30), false);
    lobby.changed(waiting("c", 20), false);
    const auto heard = peer->messages();
    ASSERT_EQ(heard.size(), 4u);  // the first list, then one per change that touched it
    EXPECT_EQ(games_of(heard[1]), (std::vector<std::string>{"a"}));
    EXPECT_EQ(games_of(heard[2]), (std::vector<std::string>{"b", "a"}));
    EXPECT_EQ(games_of(heard[3]), (std::vector<std::string>{"b", "c"}));
}

TEST(Lobby, AGameThatStartsLeavesTheListAndOtherChangesAreNotSent) {
    Lobby lobby(100);
    auto peer = std::make_shared<FakePeer>(1);
    lobby.changed(waiting("a", 1), false);
    lobby.subscribe(peer, std::nullopt);
    lobby.changed(started(waiting("elsewhere", 2)), false);  // never listed: no news
    EXPECT_EQ(peer->messages().size(), 1u);
    lobby.changed(started(waiting("a", 1)), false);
    ASSERT_EQ(peer->messages().size(), 2u);
    EXPECT_TRUE(games_of(peer->messages()[1]).empty());
    lobby.changed(started(waiting("a", 1)), false);  // gone already
    EXPECT_EQ(peer->messages().size(), 2u);
}

TEST(Lobby, EveryFollowerGetsTheSameFrameOncePerChange) {
    Lobby lobby(100);
    auto first = std::make_shared<FakePeer>(1);
    auto second = std::make_shared<FakePeer>(2);
    lobby.subscribe(first, std::nullopt);
    lobby.subscribe(second, std::nullopt);
    lobby.changed(waiting("a", 1), false);
    ASSERT_EQ(first->frames().size(), 2u);
    ASSERT_EQ(second->frames().size(), 2u);
    EXPECT_EQ(first->frames()[1], second->frames()[1]) << "encoded once, shared";
}

TEST(Lobby, AFollowerThatLeftOrIsGoneHearsNoMore) {
    Lobby lobby(100);
    auto stays = std::make_shared<FakePeer>(1);
    auto leaves = std::make_shared<FakePeer>(2);
    auto dropped = std::make_shared<FakePeer>(3);
    for (const auto& peer : {stays, leaves, dropped}) {
        lobby.subscribe(peer, std::nullopt);
    }
    EXPECT_EQ(lobby.subscribers(), (std::set<std::uint64_t>{1, 2, 3}));
    lobby.unsubscribe(2);
    std::weak_ptr<FakePeer> weak = dropped;
    dropped.reset();  // the network let go of it
    lobby.changed(waiting("a", 1), false);
    EXPECT_TRUE(weak.expired()) << "the lobby holds no follower alive";
    EXPECT_EQ(stays->messages().size(), 2u);
    EXPECT_EQ(leaves->messages().size(), 1u);
    EXPECT_EQ(lobby.subscribers(), (std::set<std::uint64_t>{1}));
}

TEST(Lobby, ClearForgetsGamesAndFollowers) {
    Lobby lobby(100);
    auto peer = std::make_shared<FakePeer>(1);
    lobby.changed(waiting("a", 1), false);
    lobby.subscribe(peer, std::nullopt);
    lobby.clear();
    EXPECT_TRUE(lobby.subscribers().empty());
    auto later = std::make_shared<FakePeer>(2);
    lobby.subscribe(later, std::nullopt);
    EXPECT_TRUE(games_of(later->messages()[0]).empty());
}

// The order is kept as games come and go: ties by id, a game listed again once, and a game that
// left memory taken off (followers told); one that was not listed changes nothing.
TEST(Lobby, KeepsItsOrderAsGamesComeAndGo) {
    Lobby lobby(3);
    auto peer = std::make_shared<FakePeer>(1);
    lobby.subscribe(peer, std::nullopt);
    lobby.changed(waiting("b", 10), false);
    lobby.changed(waiting("a", 10), false);
    lobby.changed(waiting("c", 20), false);
    auto renamed = waiting("a", 10);
    renamed.first = protocol::PlayerInfo{"Ana", true, false, std::nullopt};
    lobby.changed(renamed, false);
    EXPECT_EQ(games_of(peer->messages().back()), (std::vector<std::string>{"c", "a", "b"}));
    EXPECT_EQ(peer->messages().back()["games"][1]["players"]["white"]["name"], "Ana");
    lobby.removed("c");
    EXPECT_EQ(games_of(peer->messages().back()), (std::vector<std::string>{"a", "b"}));
    const auto sent = peer->messages().size();
    lobby.removed("never-listed");
    EXPECT_EQ(peer->messages().size(), sent);
}

// The list cut at the lobby's size says where it goes on; pages walk every open game once, newest
// first, by keyset (a game of the same time is ordered by id), and none follows the lobby.
TEST(Lobby, PagesWalkEveryOpenGameOnceAndTheFullListSaysWhereItGoesOn) {
    Lobby lobby(2);
    for (const auto& [game, created_ms] : std::vector<std::pair<std::string, std::int64_t>>{
             {"a", 10}, {"b", 20}, {"c", 20}, {"d", 30}, {"e", 40}}) {
        lobby.changed(waiting(game, created_ms), false);
    }
    auto follower = std::make_shared<FakePeer>(1);
    lobby.subscribe(follower, std::nullopt);
    EXPECT_EQ(games_of(follower->messages()[0]), (std::vector<std::string>{"e", "d"}));
    EXPECT_EQ(follower->messages()[0]["next"], "d");

    std::vector<std::string> walked;
    std::optional<std::string> after;
    int pages = 0;
    do {
        const auto page = lobby.page(2, after);
        ASSERT_TRUE(page);
        for (const auto& summary : page->games) {
            walked.push_back(summary.game);
        }
        after = page->next;
        ++pages;
    } while (after && pages < 10);
    EXPECT_EQ(walked, (std::vector<std::string>{"e", "d", "b", "c", "a"}));
    EXPECT_EQ(pages, 3);
    EXPECT_FALSE(lobby.page(5, std::nullopt)->next) << "all of them: nothing follows";
    EXPECT_TRUE(lobby.page(3, "a")->games.empty()) << "after the last";
    EXPECT_EQ(lobby.subscribers().size(), 1u) << "a page follows nothing";
}

TEST(Lobby, APageAfterAGameNoLongerOpenIsNone) {
    Lobby lobby(100);
    lobby.changed(waiting("a", 10), false);
    lobby.changed(waiting("b", 20), false);
    EXPECT_TRUE(lobby.page(1, "b"));
    lobby.changed(started(waiting("b", 20)), false);
    EXPECT_FALSE(lobby.page(1, "b"));
    EXPECT_FALSE(lobby.page(1, "never-listed"));
}

}  // namespace
}  // namespace arbiter::server::app
