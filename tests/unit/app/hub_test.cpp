#include "server/app/hub.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/unit/app/fakes.hpp"

namespace arbiter::server::app {
namespace {

using namespace std::chrono_literals;
using fakes::FakePeer;
using fakes::FakeRepository;
using fakes::ManualExecutors;
using fakes::ManualReads;
using fakes::ManualTime;

/// The hub with its rooms on manual executors, storage in memory and no network: messages go in
/// through on_message, and what each connection was sent is kept by its FakePeer.
struct HubTest : ::testing::Test {
    ManualTime time;
    FakeRepository repository;
    Metrics metrics;
    ManualExecutors executors{time};
    ManualReads reads;
    HubConfig config = [] {
        HubConfig bounds;
        bounds.messages_per_second = 1;
        bounds.message_burst = 5;
        bounds.max_refused_in_row = 2;
        bounds.max_open_games = 2;
        bounds.max_creates_per_minute = 3;
        return bounds;
    }();
    std::shared_ptr<Hub> hub = std::make_shared<Hub>(
        config, repository, time, metrics, [this] { return executors.make(); }, reads);
    std::uint64_t next_peer = 1;

    std::shared_ptr<FakePeer> connect() {
        auto peer = std::make_shared<FakePeer>(next_peer++);
        hub->on_open(peer);
        return peer;
    }
    /// A connection of a client elsewhere, at `address` (its limits follow the address).
    std::shared_ptr<FakePeer> connect_from(const std::string& address) {
        auto peer =
            std::make_shared<FakePeer>(next_peer++, address, net::ClientAddress{address, false});
        hub->on_open(peer);
        return peer;
    }
    void send(const std::shared_ptr<FakePeer>& peer, const std::string& text) {
        hub->on_message(peer, text);
        settle();
    }
    void settle() {
        while (reads.run() + executors.run() > 0) {
        }
    }
    /// Creates a public untimed chess game as `peer`, first seat; returns its id.
    std::string create(const std::shared_ptr<FakePeer>& peer, const std::string& id) {
        send(peer, R"({"type":"create","variant":"chess","side":"first","id":")" + id + R"("})");
        const auto created = peer->reply_to(id);
        return created.value("game", "");
    }
    ~HubTest() override {
        hub->close();
        executors.clear();
    }
};

TEST_F(HubTest, HelloIsWelcomedAndPingAnswered) {
    auto peer = connect();
    send(peer, R"({"type":"hello","name":"Ana","id":"h"})");
    send(peer, R"({"type":"ping","id":"p"})");
    EXPECT_EQ(peer->reply_to("h")["type"], "welcome");
    EXPECT_EQ(peer->reply_to("p")["type"], "pong");
}

TEST_F(HubTest, AFrameThatDoesNotDecodeIsRefusedWithItsId) {
    auto peer = connect();
    send(peer, R"({"type":"teleport","id":"t"})");
    EXPECT_EQ(peer->reply_to("t")["type"], "error");
    EXPECT_EQ(peer->reply_to("t")["code"], "unknown_type");
}

TEST_F(HubTest, AFloodIsRefusedByIdThenClosed) {
    auto peer = connect();
    for (int i = 0; i < 5; ++i) {
        send(peer, R"({"type":"ping","id":"p)" + std::to_string(i) + R"("})");
    }
    send(peer, R"({"type":"ping","id":"over1"})");
    send(peer, R"({"type":"ping","id":"over2"})");
    EXPECT_EQ(peer->reply_to("over1")["code"], "rate_limited");
    EXPECT_EQ(peer->reply_to("over2")["code"], "rate_limited");
    EXPECT_FALSE(peer->closed());
    send(peer, R"({"type":"ping","id":"over3"})");
    EXPECT_EQ(peer->closed(), net::CloseCode::policy_violation);
    EXPECT_TRUE(peer->reply_to("over3").is_null()) << "closed, not answered";
}

// A client that sends refused requests in a stream does not write a log line for each: one a
// second per error code goes through. The metrics count every one, and every one is answered.
TEST_F(HubTest, RefusedRequestsAreLoggedSampledAndAllCounted) {
    ASSERT_TRUE(configure_logging(LogFormat::json, "info"));
    auto peer = connect();
    ::testing::internal::CaptureStderr();
    for (int i = 0; i < 5; ++i) {
        send(peer, R"({"type":"teleport","id":"t)" + std::to_string(i) + R"("})");
    }
    const std::string logged = ::testing::internal::GetCapturedStderr();
    std::size_t lines = 0;
    for (auto at = logged.find("request_refused"); at != std::string::npos;
         at = logged.find("request_refused", at + 1)) {
        ++lines;
    }
    EXPECT_LE(lines, 1u) << logged;
    EXPECT_EQ(metrics.refused_count(protocol::ErrorCode::unknown_type), 5u);
    EXPECT_EQ(peer->reply_to("t4")["code"], "unknown_type");
}

TEST_F(HubTest, AGameCreatedIsListedAndTheCreatorsThirdOpenGameRefused) {
    auto follower = connect();
    send(follower, R"({"type":"lobby","id":"l"})");
    auto creator = connect();
    send(creator, R"({"type":"hello","name":"Ana"})");
    const auto game = create(creator, "c1");
    ASSERT_FALSE(game.empty());
    const auto lobby = follower->messages().back();
    ASSERT_EQ(lobby["type"], "lobby");
    ASSERT_EQ(lobby["games"].size(), 1u);
    EXPECT_EQ(lobby["games"][0]["game"], game);
    EXPECT_FALSE(create(creator, "c2").empty());
    send(creator, R"({"type":"create","variant":"chess","id":"c3"})");
    EXPECT_EQ(creator->reply_to("c3")["code"], "not_allowed");
    // Another connection has its own count.
    auto other = connect();
    EXPECT_FALSE(create(other, "c1").empty());
}

// Connect, create 8, close, repeat made 14,000 games in 100 s from one client while the limit
// was per connection: keyed by the client's address, reconnecting refills nothing.
TEST_F(HubTest, ReconnectChurnFromOneAddressHitsTheOpenGamesLimit) {
    auto first = connect_from("203.0.113.7");
    EXPECT_FALSE(create(first, "c1").empty());
    EXPECT_FALSE(create(first, "c2").empty());
    hub->on_close(first);
    auto second = connect_from("203.0.113.7");
    send(second, R"({"type":"create","variant":"chess","id":"c3"})");
    EXPECT_EQ(second->reply_to("c3")["code"], "not_allowed");
    EXPECT_NE(second->reply_to("c3")["message"].get<std::string>().find("your address"),
              std::string::npos);
    // Another address has its own count.
    EXPECT_FALSE(create(connect_from("203.0.113.8"), "c1").empty());
}

TEST_F(HubTest, ReconnectingRefillsNoMessageTokens) {
    auto first = connect_from("2001:db8::/64");
    for (int i = 0; i < 5; ++i) {
        send(first, R"({"type":"ping","id":"p)" + std::to_string(i) + R"("})");
    }
    hub->on_close(first);
    auto second = connect_from("2001:db8::/64");
    send(second, R"({"type":"ping","id":"again"})");
    EXPECT_EQ(second->reply_to("again")["code"], "rate_limited");
    time.advance(1s);  // one token a second
    send(second, R"({"type":"ping","id":"later"})");
    EXPECT_EQ(second->reply_to("later")["type"], "pong");
}

// A game joined at once frees its place among the open games, but the creates a minute still
// bound how many games one client writes into the database.
TEST_F(HubTest, CreatesAMinuteAreCountedPerAddressAcrossConnections) {
    auto opponent = connect();
    for (int i = 0; i < 3; ++i) {
        auto creator = connect_from("198.51.100.5");
        const auto game = create(creator, "c");
        ASSERT_FALSE(game.empty()) << i;
        const auto join = "j" + std::to_string(i);
        send(opponent, R"({"type":"join","game":")" + game + R"(","id":")" + join + R"("})");
        ASSERT_EQ(opponent->reply_to(join)["type"], "joined");
        hub->on_close(creator);
    }
    auto creator = connect_from("198.51.100.5");
    send(creator, R"({"type":"create","variant":"chess","id":"c4"})");
    EXPECT_EQ(creator->reply_to("c4")["code"], "rate_limited");
    EXPECT_EQ(metrics.refused_count(protocol::ErrorCode::rate_limited), 1u);
    time.advance(20s);  // 3 a minute: one more every 20 s
    EXPECT_FALSE(create(creator, "c5").empty());
}

// A create refused for its engine opens no game: it gives back the place it held among its
// creator's open games (limit 2 here).
TEST_F(HubTest, ACreateRefusedForItsEngineDoesNotCountAmongTheOpenGames) {
    auto creator = connect();
    EXPECT_FALSE(create(creator, "c1").empty());
    send(creator,
         R"({"type":"create","variant":"chess","id":"e1","opponent":{"engine":"none","level":1}})");
    EXPECT_EQ(creator->reply_to("e1")["code"], "engine_unavailable");
    EXPECT_FALSE(create(creator, "c2").empty());
    send(creator, R"({"type":"create","variant":"chess","id":"c3"})");
    EXPECT_EQ(creator->reply_to("c3")["code"], "not_allowed");
}

// A `lobby` with a page is answered once with it, and follows nothing; a page after a game that
// is no longer open is refused, and the client asks for the first page again.
TEST_F(HubTest, ALobbyPageIsAnsweredOnceAndFollowsNothing) {
    auto creator = connect();
    const auto older = create(creator, "c1");
    const auto newer = create(creator, "c2");
    ASSERT_FALSE(older.empty());
    ASSERT_FALSE(newer.empty());
    auto reader = connect();
    send(reader, R"({"type":"lobby","limit":1,"id":"p1"})");
    const auto first = reader->reply_to("p1");
    ASSERT_EQ(first["type"], "lobby");
    ASSERT_EQ(first["games"].size(), 1u);
    const std::string next = first["next"];
    send(reader, R"({"type":"lobby","limit":1,"after":")" + next + R"(","id":"p2"})");
    const auto second = reader->reply_to("p2");
    ASSERT_EQ(second["games"].size(), 1u);
    EXPECT_NE(second["games"][0]["game"], first["games"][0]["game"]);
    EXPECT_FALSE(second.contains("next"));
    send(reader, R"({"type":"lobby","after":"gone1","id":"p3"})");
    EXPECT_EQ(reader->reply_to("p3")["code"], "unknown_game");
    const auto heard = reader->messages().size();
    EXPECT_FALSE(create(connect(), "c3").empty());
    EXPECT_EQ(reader->messages().size(), heard) << "a page is not a subscription";
}

// A create whose write fails (a full disk) is answered `unavailable` and leaves nothing behind:
// no room in memory, nothing listed, nothing counted among its creator's open games (limit 2).
TEST_F(HubTest, ACreateWhoseWriteFailsIsAnsweredAndLeavesNoPhantom) {
    auto follower = connect();
    send(follower, R"({"type":"lobby","id":"l"})");
    auto creator = connect();
    repository.fail_writes = true;
    send(creator, R"({"type":"create","variant":"chess","id":"c1"})");
    EXPECT_EQ(creator->reply_to("c1")["type"], "error");
    EXPECT_EQ(creator->reply_to("c1")["code"], "unavailable");
    EXPECT_EQ(hub->room_count(), 0u);
    EXPECT_EQ(follower->messages().size(), 1u) << "the lobby never changed";
    repository.fail_writes = false;
    EXPECT_FALSE(create(creator, "c2").empty());
    EXPECT_FALSE(create(creator, "c3").empty()) << "the failed create holds no open game";
}

// The creator of a waiting game left, and its abort could not be stored: the game leaves the
// lobby and memory rather than stay listed for good with nobody in it.
TEST_F(HubTest, AWaitingGameWhoseAbortFailsIsNoLongerListed) {
    auto follower = connect();
    send(follower, R"({"type":"lobby","id":"l"})");
    auto creator = connect();
    const auto game = create(creator, "c");
    ASSERT_EQ(follower->messages().back()["games"].size(), 1u);
    hub->on_close(creator);
    settle();
    repository.fail_writes = true;
    time.advance(config.room.disconnect_timeout + 1s);
    settle();
    EXPECT_EQ(hub->room_count(), 0u);
    EXPECT_TRUE(follower->messages().back()["games"].empty());
    // Storage still has it waiting: a request brings it back, and it is aborted in due time.
    repository.fail_writes = false;
    auto watcher = connect();
    send(watcher, R"({"type":"watch","game":")" + game + R"(","id":"w"})");
    EXPECT_EQ(watcher->reply_to("w")["status"], "waiting");
    send(watcher, R"({"type":"unwatch","game":")" + game + R"("})");
    time.advance(config.room.disconnect_timeout + 1s);
    settle();
    EXPECT_EQ(repository.stored(game)->header.status, protocol::GameStatus::aborted);
    EXPECT_TRUE(follower->messages().back()["games"].empty());
}

TEST_F(HubTest, AJoinedGameNoLongerCountsAmongItsCreatorsOpenGames) {
    auto creator = connect();
    const auto first = create(creator, "c1");
    create(creator, "c2");
    auto joiner = connect();
    send(joiner, R"({"type":"join","game":")" + first + R"(","id":"j"})");
    EXPECT_EQ(joiner->reply_to("j")["type"], "joined");
    EXPECT_FALSE(create(creator, "c3").empty());
}

TEST_F(HubTest, ConnectionsAreCountedByRoleAndACloseReachesTheirRooms) {
    auto creator = connect();
    const auto game = create(creator, "c");
    auto watcher = connect();
    send(watcher, R"({"type":"watch","game":")" + game + R"(","id":"w"})");
    auto follower = connect();
    send(follower, R"({"type":"lobby"})");
    connect();
    auto roles = hub->connection_roles();
    EXPECT_EQ(roles.players, 1u);
    EXPECT_EQ(roles.spectators, 1u);
    EXPECT_EQ(roles.lobby, 1u);
    EXPECT_EQ(roles.other, 1u);
    EXPECT_EQ(hub->connection_count(), 4u);

    send(watcher, R"({"type":"unwatch","game":")" + game + R"("})");
    EXPECT_EQ(hub->connection_roles().spectators, 0u);
    EXPECT_EQ(hub->connection_roles().other, 2u);

    // The creator leaves its waiting game: after the disconnect timeout it is aborted, and it
    // leaves the lobby and memory.
    hub->on_close(creator);
    settle();
    EXPECT_EQ(hub->connection_count(), 3u);
    time.advance(config.room.disconnect_timeout + 1s);
    settle();
    EXPECT_EQ(hub->room_count(), 0u);
    EXPECT_TRUE(follower->messages().back()["games"].empty());
}

TEST_F(HubTest, TheNetworkIsToldWhichConnectionsHoldASeat) {
    // The outgoing memory budget closes players last: the net layer learns who they are from
    // the rooms' membership reports.
    auto creator = connect();
    const auto game = create(creator, "c");
    EXPECT_TRUE(creator->player());
    const auto token = creator->reply_to("c").value("token", "");
    auto watcher = connect();
    send(watcher, R"({"type":"watch","game":")" + game + R"(","id":"w"})");
    EXPECT_FALSE(watcher->player());
    auto joiner = connect();
    send(joiner, R"({"type":"join","game":")" + game + R"(","id":"j"})");
    EXPECT_TRUE(joiner->player());
    // Another device takes the creator's seat: the first connection is no player any more.
    auto device = connect();
    send(device,
         R"({"type":"resume","game":")" + game + R"(","token":")" + token + R"(","id":"r"})");
    EXPECT_TRUE(device->player());
    EXPECT_FALSE(creator->player());
}

TEST_F(HubTest, APlayerWhoEntersAnotherGameLeavesItsFinishedOne) {
    auto ana = connect();
    auto bo = connect();
    const auto game = create(ana, "c");
    send(bo, R"({"type":"join","game":")" + game + R"(","id":"j"})");
    send(ana, R"({"type":"resign","game":")" + game + R"(","id":"r"})");
    ASSERT_EQ(hub->games_in_memory().at({"ended", "chess"}), 1u);
    create(ana, "c2");
    hub->on_close(bo);
    settle();
    EXPECT_FALSE(hub->games_in_memory().contains({"ended", "chess"}))
        << "nobody is in the finished game any more";
    EXPECT_EQ(hub->connection_roles().players, 1u);
}

TEST_F(HubTest, AGameOutOfMemoryIsBroughtBackForARequest) {
    auto ana = connect();
    auto bo = connect();
    const auto game = create(ana, "c");
    send(bo, R"({"type":"join","game":")" + game + R"(","id":"j"})");
    send(ana, R"({"type":"resign","game":")" + game + R"(","id":"r"})");
    hub->on_close(ana);
    hub->on_close(bo);
    settle();
    ASSERT_EQ(hub->room_count(), 0u);
    auto watcher = connect();
    hub->on_message(watcher, R"({"type":"watch","game":")" + game + R"(","id":"w"})");
    EXPECT_EQ(reads.queued(), 1u);
    settle();
    EXPECT_EQ(watcher->reply_to("w")["type"], "state");
    EXPECT_EQ(hub->room_count(), 1u);
}

}  // namespace
}  // namespace arbiter::server::app
