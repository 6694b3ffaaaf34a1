#include "server/app/room_registry.hpp"

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "server/app/metrics.hpp"
#include "server/app/secrets.hpp"
#include "tests/unit/app/fakes.hpp"

namespace arbiter::server::app {
namespace {

using fakes::FakePeer;
using fakes::FakeRepository;
using fakes::ManualExecutors;
using fakes::ManualReads;
using fakes::ManualTime;

/// A chess game that ended by resignation, as stored.
storage::StoredGame finished_game(const std::string& id) {
    storage::StoredGame stored;
    auto& header = stored.header;
    header.id = id;
    header.variant = rules::Variant::chess;
    header.initial_position =
        rules::make_game(rules::Variant::chess, "").value()->initial_position();
    header.status = protocol::GameStatus::ended;
    header.result = rules::Outcome::first_wins;
    header.reason = protocol::EndReason::resign;
    header.seats = {storage::SeatRow{"Ana", token_hash("token-a"), "", 0},
                    storage::SeatRow{"Bo", token_hash("token-b"), "", 0}};
    header.seq = 3;
    return stored;
}

/// A chess game in play with a clock of `clock_ms` each, both sides having moved: White's clock
/// runs from the moment it is loaded.
storage::StoredGame timed_game(const std::string& id, std::int64_t clock_ms) {
    storage::StoredGame stored = finished_game(id);
    auto& header = stored.header;
    header.status = protocol::GameStatus::playing;
    header.result = rules::Outcome::ongoing;
    header.reason = protocol::EndReason::none;
    header.clock_initial_ms = clock_ms;
    header.clock_increment_ms = 0;
    header.clock_ms = {clock_ms, clock_ms};
    header.ply = 2;
    std::uint32_t ply = 0;
    for (const char* move : {"e2e4", "e7e5"}) {
        ++ply;
        storage::MoveRow row;
        row.ply = ply;
        row.move = move;
        row.notation = move;
        row.clock_ms = clock_ms;
        row.seq = 1 + ply;
        stored.moves.push_back(row);
    }
    return stored;
}

/// A registry whose rooms run on manual executors and read a fake store on a manual reader. It
/// is the rooms' host too, as the hub is: what concerns the registry goes to it.
struct RoomRegistryTest : ::testing::Test, RoomHost {
    ManualTime time;
    FakeRepository repository;
    Metrics metrics;
    ManualExecutors executors{time};
    ManualReads reads{8};
    RoomContext context{repository, time, *this, metrics, RoomConfig{}, nullptr};
    Replies replies{metrics, time};
    RoomRegistry registry{context, [this] { return executors.make(); }, reads, replies};
    std::vector<std::string> members_left;

    // RoomHost
    void listing_changed(const protocol::GameSummary&, bool) override {}
    void start_rematch(const storage::GameRow&, const std::string&,
                       std::array<SeatSpec, 2>) override {}
    std::optional<std::string> open_game_refusal(const std::shared_ptr<net::Peer>&) override {
        return std::nullopt;
    }
    bool member_joined(const std::shared_ptr<net::Peer>&, const std::string&, bool,
                       const std::string&) override {
        return true;
    }
    void member_left(const std::shared_ptr<net::Peer>&, const std::string& game, bool,
                     bool still_member) override {
        if (!still_member) {
            members_left.push_back(game);
        }
    }
    bool unload_room(const std::string& game, const GameRoom* room,
                     std::optional<std::chrono::steady_clock::time_point> flag_at) override {
        return registry.unload(game, room, flag_at);
    }
    void reroute(RoomRequest request) override { registry.route(std::move(request)); }
    void disown_room(const std::string& game, const GameRoom* room) override {
        registry.evict(game, room, "this node no longer owns the game");
    }

    RoomRequest request(const std::shared_ptr<FakePeer>& peer, const std::string& id,
                        protocol::ClientBody body) {
        return RoomRequest{peer, id, std::move(body), "Cy", time.now()};
    }
    RoomRequest watch(const std::shared_ptr<FakePeer>& peer, const std::string& id,
                      const std::string& game) {
        return request(peer, id, protocol::Watch{game, std::nullopt});
    }
    /// A move from a connection with no seat: refused (forbidden), nobody enters the game.
    RoomRequest stray_move(const std::shared_ptr<FakePeer>& peer, const std::string& id,
                           const std::string& game) {
        return request(peer, id, protocol::MoveRequest{game, "e2e4", 0});
    }
    /// `game` adopted (a timed game in play) and watched by a new connection, which it returns.
    std::shared_ptr<FakePeer> watched_adoption(const std::string& game) {
        EXPECT_TRUE(registry.adopt(timed_game(game, 60'000)));
        auto watcher = std::make_shared<FakePeer>(1);
        registry.route(watch(watcher, "w", game));
        settle();
        return watcher;
    }
    /// Runs the reader and every room until nothing is left to run.
    void settle() {
        while (reads.run() + executors.run() > 0) {
        }
    }
    ~RoomRegistryTest() override {
        registry.close();
        executors.clear();
    }
};

TEST_F(RoomRegistryTest, AGameNotInMemoryIsReadBackOnTheReaderAndServed) {
    repository.store(finished_game("g1"));
    auto peer = std::make_shared<FakePeer>(1);
    EXPECT_TRUE(registry.route(watch(peer, "w", "g1")));
    EXPECT_EQ(registry.find("g1"), nullptr) << "not read on the caller's thread";
    EXPECT_EQ(reads.queued(), 1u);
    EXPECT_TRUE(peer->messages().empty());
    settle();
    const auto state = peer->reply_to("w");
    ASSERT_FALSE(state.is_null());
    EXPECT_EQ(state["type"], "state");
    EXPECT_NE(registry.find("g1"), nullptr) << "a watcher keeps it in memory";
    EXPECT_EQ(registry.size(), 1u);
    EXPECT_EQ(repository.loads, 1);
}

TEST_F(RoomRegistryTest, RequestsArrivingDuringTheReadWaitForItInTheOrderSent) {
    repository.store(finished_game("g1"));
    auto peer = std::make_shared<FakePeer>(1);
    auto other = std::make_shared<FakePeer>(2);
    ASSERT_TRUE(registry.route(stray_move(peer, "m1", "g1")));
    ASSERT_TRUE(registry.route(watch(other, "w", "g1")));
    ASSERT_TRUE(registry.route(stray_move(peer, "m2", "g1")));
    ASSERT_TRUE(registry.route(watch(peer, "w2", "g1")));
    EXPECT_EQ(reads.queued(), 1u) << "one read for all of them";
    settle();
    EXPECT_EQ(peer->reply_ids(), (std::vector<std::string>{"m1", "m2", "w2"}));
    EXPECT_EQ(peer->reply_to("m1")["code"], "forbidden");
    EXPECT_EQ(other->reply_ids(), (std::vector<std::string>{"w"}));
    EXPECT_EQ(repository.loads, 1);
}

// A game request is a player's: its read goes ahead of API and replay reads (ReadPriority).
TEST_F(RoomRegistryTest, ReadsForGameRequestsAreAPlayers) {
    repository.store(finished_game("g1"));
    auto peer = std::make_shared<FakePeer>(1);
    registry.route(watch(peer, "w", "g1"));
    EXPECT_EQ(reads.priorities(), (std::vector<ReadPriority>{ReadPriority::player}));
    settle();
}

TEST_F(RoomRegistryTest, AGameInMemoryIsServedWithoutARead) {
    repository.store(finished_game("g1"));
    auto watcher = std::make_shared<FakePeer>(1);
    registry.route(watch(watcher, "w", "g1"));
    settle();
    auto peer = std::make_shared<FakePeer>(2);
    EXPECT_TRUE(registry.route(stray_move(peer, "m", "g1")));
    EXPECT_EQ(reads.queued(), 0u);
    settle();
    EXPECT_EQ(peer->reply_to("m")["code"], "forbidden");
    EXPECT_EQ(repository.loads, 1);
}

TEST_F(RoomRegistryTest, AnUnknownGameIsRefusedOnceRead) {
    auto peer = std::make_shared<FakePeer>(1);
    EXPECT_TRUE(registry.route(watch(peer, "w", "nosuchgame")));
    settle();
    EXPECT_EQ(peer->reply_to("w")["code"], "unknown_game");
    EXPECT_EQ(registry.size(), 0u);
}

TEST_F(RoomRegistryTest, AStorageFailureIsRefusedAsUnavailable) {
    repository.store(finished_game("g1"));
    repository.fail_loads = true;
    auto peer = std::make_shared<FakePeer>(1);
    registry.route(watch(peer, "w", "g1"));
    settle();
    const auto refusal = peer->reply_to("w");
    EXPECT_EQ(refusal["code"], "unavailable");
    EXPECT_EQ(refusal["message"].get<std::string>().rfind("storage: ", 0), 0u);
    // The next request reads again.
    repository.fail_loads = false;
    registry.route(watch(peer, "w2", "g1"));
    settle();
    EXPECT_EQ(peer->reply_to("w2")["type"], "state");
}

TEST_F(RoomRegistryTest, AReadBeyondTheReadersQueueIsRefusedBusy) {
    ManualReads full(0);
    RoomRegistry busy{context, [this] { return executors.make(); }, full, replies};
    repository.store(finished_game("g1"));
    auto peer = std::make_shared<FakePeer>(1);
    EXPECT_FALSE(busy.route(watch(peer, "w", "g1")));
    const auto refusal = peer->reply_to("w");
    EXPECT_EQ(refusal["code"], "unavailable");
    EXPECT_NE(refusal["message"].get<std::string>().find("busy"), std::string::npos);
    // Nothing was left waiting: the next request asks the reader again (and is refused again).
    EXPECT_FALSE(busy.route(watch(peer, "w2", "g1")));
    EXPECT_EQ(peer->reply_to("w2")["code"], "unavailable");
}

TEST_F(RoomRegistryTest, ARequestNamingNoGameIsRefused) {
    auto peer = std::make_shared<FakePeer>(1);
    EXPECT_FALSE(registry.route(request(peer, "p", protocol::Ping{})));
    EXPECT_EQ(peer->reply_to("p")["code"], "unknown_game");
}

TEST_F(RoomRegistryTest, AnUnwatchWaitingForTheReadLeavesAfterTheWatch) {
    repository.store(finished_game("g1"));
    auto peer = std::make_shared<FakePeer>(1);
    registry.route(watch(peer, "w", "g1"));
    registry.unwatch(request(peer, "u", protocol::Unwatch{"g1"}));
    settle();
    EXPECT_EQ(peer->reply_ids(), (std::vector<std::string>{"w"})) << "an unwatch has no reply";
    EXPECT_EQ(members_left, (std::vector<std::string>{"g1"}));
    EXPECT_EQ(registry.find("g1"), nullptr) << "nobody in a finished game: it left memory";
}

TEST_F(RoomRegistryTest, AnUnwatchOfAGameNotInMemoryReadsNothing) {
    auto peer = std::make_shared<FakePeer>(1);
    registry.unwatch(request(peer, "u", protocol::Unwatch{"g1"}));
    EXPECT_EQ(reads.queued(), 0u);
    EXPECT_TRUE(peer->messages().empty());
}

TEST_F(RoomRegistryTest, ARoomWithARequestOnItsWayStaysInMemoryForIt) {
    repository.store(finished_game("g1"));
    auto peer = std::make_shared<FakePeer>(1);
    registry.route(watch(peer, "w", "g1"));
    settle();
    const auto room = registry.find("g1");
    ASSERT_NE(room, nullptr);
    auto stranger = std::make_shared<FakePeer>(2);
    registry.route(stray_move(stranger, "m1", "g1"));
    registry.route(stray_move(stranger, "m2", "g1"));
    EXPECT_EQ(room->requests_in_flight(), 2u);
    EXPECT_FALSE(registry.unload("g1", room.get())) << "two requests are on their way";
    EXPECT_FALSE(registry.unload("g1", nullptr)) << "not the room held for g1";
    // The watcher leaves; the refused requests then leave the room empty, and it goes once the
    // last of them has been served.
    registry.unwatch(request(peer, "u", protocol::Unwatch{"g1"}));
    settle();
    EXPECT_EQ(stranger->reply_ids(), (std::vector<std::string>{"m1", "m2"}));
    EXPECT_EQ(registry.find("g1"), nullptr);
    EXPECT_EQ(repository.loads, 1);
}

TEST_F(RoomRegistryTest, RequestsSentAtOnceAcrossItsUnloadsAreAnsweredInOrder) {
    // Each refused request leaves the finished game with nobody in it, so it leaves memory while
    // later ones are on their way to it, and a later one brings it back again.
    repository.store(finished_game("g1"));
    auto peer = std::make_shared<FakePeer>(1);
    std::vector<std::string> sent;
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < 5; ++i) {
            sent.push_back("q" + std::to_string(round) + "." + std::to_string(i));
            registry.route(stray_move(peer, sent.back(), "g1"));
        }
        reads.run();  // the game is back, and has the round's requests on their way
        sent.push_back("late" + std::to_string(round));
        registry.route(stray_move(peer, sent.back(), "g1"));
        executors.run();
        EXPECT_EQ(registry.find("g1"), nullptr) << round;
    }
    settle();
    EXPECT_EQ(peer->reply_ids(), sent);
    EXPECT_EQ(repository.loads, 3);
}

TEST_F(RoomRegistryTest, AReadDuringWhichRoomsLeftMemoryIsMadeAgain) {
    // A room that left memory meanwhile may have written the game being read after the read (an
    // id reused is impossible, but the registry cannot know which game left): read again.
    repository.store(finished_game("g1"));
    repository.store(finished_game("other"));
    auto watcher = std::make_shared<FakePeer>(1);
    registry.route(watch(watcher, "w", "other"));
    settle();
    auto other = registry.find("other");
    ASSERT_NE(other, nullptr);
    repository.on_load = [&](const std::string& game) {
        if (game == "g1" && other) {
            EXPECT_TRUE(registry.unload("other", other.get()));
            other.reset();
        }
    };
    auto peer = std::make_shared<FakePeer>(2);
    registry.route(watch(peer, "w", "g1"));
    settle();
    EXPECT_EQ(repository.loads, 3) << "other, then g1 twice";
    EXPECT_EQ(peer->reply_to("w")["type"], "state");
}

TEST_F(RoomRegistryTest, RoomsLeavingMemoryOnEveryReadEndInAReadUnderTheLock) {
    repository.store(finished_game("g1"));
    std::vector<std::shared_ptr<GameRoom>> churn;
    for (int i = 0; i < 3; ++i) {
        auto stored = finished_game("c" + std::to_string(i));
        auto room = GameRoom::restore(context, executors.make(), stored);
        ASSERT_TRUE(room);
        registry.add(*room);
        churn.push_back(*room);
    }
    repository.on_load = [&](const std::string&) {
        if (!churn.empty()) {  // a read under the lock would wait for itself here
            EXPECT_TRUE(registry.unload(churn.back()->id(), churn.back().get()));
            churn.pop_back();
        }
    };
    auto peer = std::make_shared<FakePeer>(1);
    registry.route(watch(peer, "w", "g1"));
    settle();
    EXPECT_EQ(repository.loads, 4) << "three reads without the lock, then one under it";
    EXPECT_EQ(peer->reply_to("w")["type"], "state");
}

TEST_F(RoomRegistryTest, UnfinishedGamesAreRestoredAtStartAndOthersLeftOut) {
    auto playing = finished_game("playing");
    playing.header.status = protocol::GameStatus::playing;
    playing.header.result = rules::Outcome::ongoing;
    playing.header.reason = protocol::EndReason::none;
    repository.store(playing);
    auto broken = finished_game("broken");
    broken.header.status = protocol::GameStatus::waiting;
    broken.header.result = rules::Outcome::ongoing;
    broken.header.reason = protocol::EndReason::none;
    broken.header.initial_position = "not a position";
    repository.store(broken);
    repository.store(finished_game("ended"));
    const auto restored = registry.restore_unfinished();
    ASSERT_TRUE(restored);
    EXPECT_EQ(restored->games, 1u);
    EXPECT_EQ(restored->not_restored, 1u);
    EXPECT_NE(registry.find("playing"), nullptr);
    EXPECT_EQ(registry.find("ended"), nullptr);
    settle();  // the room lists itself once started
    const auto gauges = registry.by_status_and_variant();
    EXPECT_EQ(gauges.at({"playing", "chess"}), 1u);
}

// Both players left a timed game whose clock runs: after the disconnect timeout it leaves memory
// (a day's clock must not pin it there), with its flag deadline stored, and the registry's one
// timer brings it back when the flag falls: the game ends on time, with nobody connected, and
// leaves memory again.
TEST_F(RoomRegistryTest, AGameNobodyIsInLeavesMemoryAndStillFlagsOnTime) {
    using namespace std::chrono_literals;
    repository.store(timed_game("g1", 120'000));
    auto ana = std::make_shared<FakePeer>(1);
    registry.route(request(ana, "r", protocol::Resume{"g1", "token-a", std::nullopt}));
    settle();
    const auto room = registry.find("g1");
    ASSERT_NE(room, nullptr);
    const auto flag_at_ms = time.unix_ms() + 120'000;
    room->leave(ana);
    settle();

    time.advance(context.config.disconnect_timeout + 1ms);
    settle();
    EXPECT_EQ(registry.find("g1"), nullptr) << "nobody is in it: it left memory";
    EXPECT_EQ(registry.parked(), 1u);
    auto stored = repository.stored("g1");
    ASSERT_TRUE(stored && stored->header.parked_flag);
    EXPECT_EQ(stored->header.parked_flag->at_ms, flag_at_ms);
    EXPECT_EQ(stored->header.status, protocol::GameStatus::playing);

    time.advance(120'000ms - context.config.disconnect_timeout - 2ms);
    settle();
    EXPECT_EQ(repository.stored("g1")->header.status, protocol::GameStatus::playing)
        << "not before its flag falls";
    const int loads = repository.loads;
    time.advance(2ms);
    settle();
    stored = repository.stored("g1");
    EXPECT_EQ(repository.loads, loads + 1) << "brought back by the deadline timer";
    EXPECT_EQ(stored->header.status, protocol::GameStatus::ended);
    EXPECT_EQ(stored->header.reason, protocol::EndReason::timeout);
    EXPECT_EQ(stored->header.result, rules::Outcome::second_wins);
    EXPECT_EQ(stored->header.clock_ms[0], 0);
    EXPECT_EQ(registry.find("g1"), nullptr) << "ended with nobody in it: out of memory again";
    EXPECT_EQ(registry.parked(), 0u);

    // The opponent's next resume finds the result.
    auto bo = std::make_shared<FakePeer>(2);
    registry.route(request(bo, "back", protocol::Resume{"g1", "token-b", std::nullopt}));
    settle();
    EXPECT_EQ(bo->reply_to("back")["status"], "ended");
    EXPECT_EQ(bo->reply_to("back")["reason"], "timeout");
}

// A request that brings a game back after its deadline, before the timer did, finds it lost on
// time: the flag falls as it loads, before the request is served.
TEST_F(RoomRegistryTest, AGameBroughtBackAfterItsDeadlineFlagsBeforeServingTheRequest) {
    using namespace std::chrono_literals;
    repository.store(timed_game("g1", 120'000));
    auto ana = std::make_shared<FakePeer>(1);
    registry.route(request(ana, "r", protocol::Resume{"g1", "token-a", std::nullopt}));
    settle();
    registry.find("g1")->leave(ana);
    settle();
    time.advance(context.config.disconnect_timeout + 1ms);
    settle();
    ASSERT_EQ(registry.find("g1"), nullptr);

    time.advance(600'000ms);  // the timer has not run yet: the test runs nothing until the resume
    auto again = std::make_shared<FakePeer>(3);
    registry.route(request(again, "back", protocol::Resume{"g1", "token-a", std::nullopt}));
    reads.run();
    executors.run();
    const auto state = again->reply_to("back");
    EXPECT_EQ(state["type"], "state");
    EXPECT_EQ(state["status"], "ended");
    EXPECT_EQ(state["reason"], "timeout");
    EXPECT_EQ(repository.stored("g1")->header.reason, protocol::EndReason::timeout);
    settle();
    EXPECT_EQ(registry.parked(), 0u);
}

// ---- a cluster node's registry (GameClaims) -------------------------------------------------

/// Claims as a cluster node makes them: games in `elsewhere` belong to another node, the rest
/// are read from the fake store (as owned, or adopted). What was forwarded, in order.
struct FakeClaims final : GameClaims {
    explicit FakeClaims(FakeRepository& store) : repository(store) {}
    Expected<Claim, storage::StorageError> claim(const std::string& game) override {
        ++claims;
        if (auto owner = elsewhere.find(game); owner != elsewhere.end()) {
            return Claim(Elsewhere{owner->second});
        }
        auto stored = repository.load(game);
        if (!stored) {
            return unexpected(stored.error());
        }
        if (during_claim) {
            // What happens on another thread while this claim reads: run once.
            std::exchange(during_claim, nullptr)();
        }
        return Claim(std::move(*stored));
    }
    bool forward_known(RoomRequest& request) override {
        const auto* move = std::get_if<protocol::MoveRequest>(&request.body);
        if (move == nullptr || !known.contains(move->game)) {
            return false;
        }
        forward(std::move(request), known[move->game]);
        return true;
    }
    void forward(RoomRequest request, const std::string& owner) override {
        known[std::get_if<protocol::MoveRequest>(&request.body) != nullptr
                  ? std::get<protocol::MoveRequest>(request.body).game
                  : std::string()] = owner;
        forwarded.emplace_back(request.id.value_or(""), owner);
    }
    FakeRepository& repository;
    std::map<std::string, std::string> elsewhere;                ///< game -> its owner node
    std::map<std::string, std::string> known;                    ///< what forward() taught
    std::vector<std::pair<std::string, std::string>> forwarded;  ///< (request id, owner)
    int claims = 0;
    std::function<void()> during_claim;
};

/// `game` belongs to `owner` now: a move for it from a new connection goes there, the first
/// thing `claims` forwards.
void expect_next_request_forwarded(RoomRegistryTest& test, FakeClaims& claims,
                                   const std::string& game, const std::string& owner) {
    claims.elsewhere[game] = owner;
    auto peer = std::make_shared<FakePeer>(2);
    test.registry.route(test.stray_move(peer, "m1", game));
    test.settle();
    EXPECT_EQ(claims.forwarded, (std::vector<std::pair<std::string, std::string>>{{"m1", owner}}));
}

TEST_F(RoomRegistryTest, AGameAnotherNodeOwnsIsForwardedInTheOrderSentAndThenWithoutARead) {
    FakeClaims claims(repository);
    claims.elsewhere["g1"] = "node-b";
    registry.set_claims(&claims);
    auto peer = std::make_shared<FakePeer>(1);
    ASSERT_TRUE(registry.route(stray_move(peer, "m1", "g1")));
    ASSERT_TRUE(registry.route(stray_move(peer, "m2", "g1")));  // waits for the same read
    settle();
    EXPECT_EQ(claims.claims, 1);
    EXPECT_EQ(claims.forwarded, (std::vector<std::pair<std::string, std::string>>{
                                    {"m1", "node-b"}, {"m2", "node-b"}}));
    EXPECT_EQ(registry.find("g1"), nullptr) << "no room for another node's game";
    ASSERT_TRUE(registry.route(stray_move(peer, "m3", "g1")));
    EXPECT_EQ(reads.queued(), 0u) << "the owner is known: no read";
    EXPECT_EQ(claims.forwarded.back(), std::pair(std::string("m3"), std::string("node-b")));
    EXPECT_TRUE(peer->messages().empty()) << "the owner answers, not this node";
}

TEST_F(RoomRegistryTest, AGameClaimedHereIsServedAsAStoredOne) {
    FakeClaims claims(repository);
    registry.set_claims(&claims);
    repository.store(finished_game("g1"));
    auto peer = std::make_shared<FakePeer>(1);
    registry.route(watch(peer, "w", "g1"));
    settle();
    EXPECT_EQ(peer->reply_to("w")["type"], "state");
    EXPECT_EQ(claims.claims, 1);
    EXPECT_TRUE(claims.forwarded.empty());
}

TEST_F(RoomRegistryTest, AnAdoptedGameIsInMemoryAtOnceAndServedWithoutARead) {
    EXPECT_TRUE(registry.adopt(timed_game("g1", 60'000)));
    ASSERT_NE(registry.find("g1"), nullptr);
    auto peer = std::make_shared<FakePeer>(1);
    registry.route(watch(peer, "w", "g1"));
    EXPECT_EQ(reads.queued(), 0u);
    settle();
    EXPECT_EQ(peer->reply_to("w")["status"], "playing");
    EXPECT_EQ(repository.loads, 0);
    // Adopted again (a sweep that raced a request): the room in memory stays.
    const auto room = registry.find("g1");
    EXPECT_TRUE(registry.adopt(timed_game("g1", 60'000)));
    EXPECT_EQ(registry.find("g1"), room);
}

TEST_F(RoomRegistryTest, EvictingClosesEveryMemberWith1012AndTheNextRequestClaimsAgain) {
    FakeClaims claims(repository);
    registry.set_claims(&claims);
    const auto watcher = watched_adoption("g1");
    ASSERT_EQ(watcher->reply_to("w")["type"], "state");
    EXPECT_EQ(registry.evict_all("this node lost its games"), (std::vector<std::string>{"g1"}));
    EXPECT_EQ(registry.find("g1"), nullptr);
    settle();
    EXPECT_EQ(watcher->closed(), net::CloseCode::service_restart);
    // Another node adopted it meanwhile: the next request goes there.
    expect_next_request_forwarded(*this, claims, "g1", "node-c");
}

// A claim that read this node as the owner while the node lost its games (its lease ended, every
// room evicted, none of them this game's) is stale: its game is claimed again, not brought into
// a room that could commit nothing and would refuse every move for ever.
TEST_F(RoomRegistryTest, AClaimMadeBeforeAnEvictionIsMadeAgainAfterIt) {
    FakeClaims claims(repository);
    registry.set_claims(&claims);
    repository.store(timed_game("g1", 60'000));
    claims.during_claim = [&] {
        EXPECT_TRUE(registry.evict_all("this node lost its games").empty());
        claims.elsewhere["g1"] = "node-c";
    };
    auto peer = std::make_shared<FakePeer>(1);
    registry.route(stray_move(peer, "m1", "g1"));
    settle();
    EXPECT_EQ(claims.claims, 2);
    EXPECT_EQ(registry.find("g1"), nullptr);
    EXPECT_EQ(claims.forwarded,
              (std::vector<std::pair<std::string, std::string>>{{"m1", "node-c"}}));
}

// A room whose write was fenced leaves memory alone (GameRoom: disown_room): its members are
// closed with 1012, and the next request claims the game again and goes to its owner.
TEST_F(RoomRegistryTest, EvictingOneRoomClosesItsMembersAndTheNextRequestClaimsAgain) {
    FakeClaims claims(repository);
    registry.set_claims(&claims);
    ASSERT_TRUE(registry.adopt(timed_game("g2", 60'000)));
    const auto watcher = watched_adoption("g1");
    const auto room = registry.find("g1");
    ASSERT_NE(room, nullptr);
    EXPECT_FALSE(registry.evict("g1", nullptr, "not this room"));
    EXPECT_TRUE(registry.evict("g1", room.get(), "this node no longer owns the game"));
    EXPECT_FALSE(registry.evict("g1", room.get(), "twice")) << "it left already";
    EXPECT_EQ(registry.find("g1"), nullptr);
    EXPECT_NE(registry.find("g2"), nullptr) << "only that room";
    settle();
    EXPECT_EQ(watcher->closed(), net::CloseCode::service_restart);
    expect_next_request_forwarded(*this, claims, "g1", "node-c");
}

// A graceful stop hands the games over, so their writes fail fenced until the network closes
// every connection with 1001: the rooms stay for that close, rather than send 1012 first.
TEST_F(RoomRegistryTest, DuringAGracefulStopAFencedRoomStaysForTheGoingAwayClose) {
    const auto watcher = watched_adoption("g1");
    const auto room = registry.find("g1");
    ASSERT_NE(room, nullptr);
    registry.keep_rooms_until_stop();
    EXPECT_FALSE(registry.evict("g1", room.get(), "this node no longer owns the game"));
    settle();
    EXPECT_EQ(registry.find("g1"), room);
    EXPECT_FALSE(watcher->closed().has_value());
}

}  // namespace
}  // namespace arbiter::server::app
