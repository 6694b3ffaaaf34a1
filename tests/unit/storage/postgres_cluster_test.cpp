// Cluster nodes on one PostgreSQL schema (issue 43): leases by the database's clock, games owned
// by a node at an epoch, fencing, adoption and handover (server/storage/postgres_lease.hpp has
// the design). Two repositories opened as two nodes stand for two servers; a lease is made to
// expire through SQL, by the database's clock, or by letting a short one run out.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "intent_cases.hpp"
#include "server/storage/pg.hpp"
#include "server/storage/postgres_lease.hpp"
#include "server/storage/postgres_repository.hpp"
#include "storage_test_support.hpp"
#include "tests/support/postgres_fixture.hpp"

namespace arbiter::server::storage {
namespace {

using namespace std::chrono_literals;
using testing::appended;
using testing::created;
using testing::expect_same_game;
using testing::make_move;
using testing::make_playing_game;
using testing::write_and_wait;

/// One node: its lease (joined) and its repository, writing as it.
struct Node {
    std::unique_ptr<PostgresLease> lease;
    std::unique_ptr<PostgresRepository> repository;
};

/// A move of node `by` at `ply` ("a7": node a's seventh), so that whose move is stored shows.
MoveRow move_of(const std::string& by, std::uint32_t ply) {
    return make_move(ply, by + std::to_string(ply));
}

void expect_fenced(const Expected<void, StorageError>& written) {
    ASSERT_FALSE(written) << "a write of a game the node does not own went through";
    EXPECT_TRUE(written.error().fenced) << written.error().message;
}

class PostgresCluster : public ::testing::Test {
  protected:
    void SetUp() override {
        arbiter::testing::PostgresServer* server = arbiter::testing::PostgresEnvironment::server();
        ASSERT_NE(server, nullptr) << "the tests' PostgreSQL server did not start";
        uri_ = server->fresh_schema_uri();
    }

    /// Long enough for a loaded machine: a test ends a lease through SQL (expire()), or makes a
    /// short one of its own.
    static constexpr LeaseTiming kLongLease{60s, 1s, 250ms};

    std::unique_ptr<PostgresLease> open_lease(const std::string& node,
                                              const LeaseTiming& timing = kLongLease) {
        auto opened = PostgresLease::open(uri_, LeaseOptions{node, timing});
        EXPECT_TRUE(opened) << (opened ? "" : opened.error().message);
        return opened ? std::move(opened).value() : nullptr;
    }

    std::unique_ptr<PostgresRepository> open_repository(const std::string& node,
                                                        std::uint64_t incarnation) {
        PostgresOptions options;
        options.synchronous = Synchronous::normal;
        options.node = NodeIdentity{node, incarnation};
        auto opened = PostgresRepository::open(uri_, options);
        EXPECT_TRUE(opened) << (opened ? "" : opened.error().message);
        return opened ? std::move(opened).value() : nullptr;
    }

    /// A node that joined and opened its repository; empty pointers (and a failure) if not.
    Node start_node(const std::string& node, const LeaseTiming& timing = kLongLease) {
        Node started{open_lease(node, timing), nullptr};
        if (started.lease == nullptr) {
            return started;
        }
        auto joined = started.lease->join();
        EXPECT_TRUE(joined) << (joined ? "" : joined.error().message);
        if (joined) {
            started.repository = open_repository(node, joined->incarnation);
        }
        return started;
    }

    pg::Connection connect() {
        auto connection = pg::Connection::open(uri_);
        EXPECT_TRUE(connection) << (connection ? "" : connection.error().message);
        return std::move(connection).value();
    }

    /// The node's lease ends now, by the database's clock (it froze, or was cut off).
    void expire(const std::string& node) {
        pg::Connection admin = connect();
        auto expired = admin.query(
            "UPDATE nodes SET lease_expires_at = clock_timestamp() - interval '1 millisecond' "
            "WHERE node_id = $1",
            pg::Params().text(node));
        ASSERT_TRUE(expired) << expired.error().message;
        ASSERT_EQ(expired->changed(), 1U);
    }

    /// owner_node ("" for none) and owner_epoch of a stored game.
    std::pair<std::string, std::int64_t> owner_of(const std::string& game) {
        pg::Connection admin = connect();
        auto owner = admin.query(
            "SELECT coalesce(owner_node, ''), owner_epoch FROM games "
            "WHERE id = $1",
            pg::Params().text(game));
        EXPECT_TRUE(owner && owner->rows() == 1) << game;
        return owner && owner->rows() == 1 ? std::pair(owner->text(0, 0), owner->integer(0, 1))
                                           : std::pair(std::string("?"), std::int64_t{-1});
    }

    std::int64_t count(const std::string& sql) {
        pg::Connection admin = connect();
        auto counted = admin.query(sql);
        EXPECT_TRUE(counted) << sql << ": " << (counted ? "" : counted.error().message);
        return counted ? counted->integer(0, 0) : -1;
    }

    /// The moves of `game` as stored, in ply order.
    std::vector<std::string> moves_of(PostgresRepository& repository, const std::string& game) {
        auto stored = repository.load(game);
        EXPECT_TRUE(stored && stored->has_value()) << game;
        std::vector<std::string> moves;
        if (stored && stored->has_value()) {
            for (const MoveRow& move : (*stored)->moves) {
                moves.push_back(move.move);
            }
        }
        return moves;
    }

    std::string uri_;
};

// --- the lease -------------------------------------------------------------------------------

TEST_F(PostgresCluster, AJoinRegistersTheNodeAndASecondTakesItOverWithTheNextIncarnation) {
    auto first = open_lease("a");
    ASSERT_NE(first, nullptr);
    auto joined = first->join();
    ASSERT_TRUE(joined) << joined.error().message;
    EXPECT_EQ(joined->incarnation, 1U);
    EXPECT_TRUE(first->may_write(LeaseClock::now()));
    // The row's times are the database's: the lease ends one ttl after the heartbeat.
    EXPECT_EQ(count("SELECT (extract(epoch FROM lease_expires_at - heartbeat_at) * 1000)::bigint "
                    "FROM nodes WHERE node_id = 'a'"),
              60000);
    EXPECT_EQ(count("SELECT (extract(epoch FROM lease_expires_at) * 1000)::bigint FROM nodes"),
              joined->expires_at_ms);
    EXPECT_EQ(count("SELECT count(*) FROM nodes WHERE started_at = heartbeat_at AND left_at IS "
                    "NULL"),
              1);

    // A restart under the same id, while the first process may still run.
    auto second = open_lease("a");
    ASSERT_NE(second, nullptr);
    auto rejoined = second->join();
    ASSERT_TRUE(rejoined) << rejoined.error().message;
    EXPECT_EQ(rejoined->incarnation, 2U);
    auto stale = first->heartbeat();
    ASSERT_FALSE(stale);
    EXPECT_EQ(stale.error().failure, LeaseFailure::taken) << stale.error().message;
    EXPECT_EQ(first->action_after(stale.error(), LeaseClock::now()), LeaseAction::stop_for_good);
    EXPECT_FALSE(first->may_write(LeaseClock::now()));
    EXPECT_TRUE(second->heartbeat());
    EXPECT_EQ(count("SELECT count(*) FROM nodes"), 1);
}

TEST_F(PostgresCluster, AHeartbeatMovesTheEndByTheDatabasesClock) {
    auto lease = open_lease("a");
    ASSERT_NE(lease, nullptr);
    auto joined = lease->join();
    ASSERT_TRUE(joined);
    std::this_thread::sleep_for(20ms);
    auto renewed = lease->heartbeat();
    ASSERT_TRUE(renewed) << renewed.error().message;
    EXPECT_EQ(renewed->incarnation, 1U);
    EXPECT_GE(renewed->expires_at_ms, joined->expires_at_ms + 20);
    EXPECT_GT(renewed->sent_at, joined->sent_at);
    EXPECT_EQ(count("SELECT (extract(epoch FROM lease_expires_at) * 1000)::bigint FROM nodes"),
              renewed->expires_at_ms);
    EXPECT_EQ(count("SELECT count(*) FROM nodes WHERE heartbeat_at > started_at AND "
                    "lease_expires_at = heartbeat_at + interval '60 seconds'"),
              1);
}

// The database's word goes, not the node's clock: locally the lease still holds, but the row
// says it ended, and the heartbeat fails. The node then rejoins.
TEST_F(PostgresCluster, AHeartbeatAfterTheLeaseEndedFailsExpiredWhateverTheLocalClockSays) {
    auto lease = open_lease("a");
    ASSERT_NE(lease, nullptr);
    ASSERT_TRUE(lease->join());
    expire("a");
    EXPECT_TRUE(lease->may_write(LeaseClock::now()));
    auto late = lease->heartbeat();
    ASSERT_FALSE(late);
    EXPECT_EQ(late.error().failure, LeaseFailure::expired) << late.error().message;
    EXPECT_FALSE(lease->may_write(LeaseClock::now()));
    EXPECT_EQ(lease->action_after(late.error(), LeaseClock::now()), LeaseAction::drop_and_rejoin);
    // Nothing revives it but a join, under the next incarnation.
    EXPECT_FALSE(lease->heartbeat());
    auto rejoined = lease->join();
    ASSERT_TRUE(rejoined);
    EXPECT_EQ(rejoined->incarnation, 2U);
    EXPECT_TRUE(lease->heartbeat());
}

TEST_F(PostgresCluster, AShortLeaseRunsOutByItselfAndItsGamesAreAdopted) {
    Node b = start_node("b");
    ASSERT_NE(b.repository, nullptr);
    // Everything slow is ready before the lease starts: a new node's first join is incarnation 1.
    auto repository = open_repository("a", 1);
    auto lease = open_lease("a", LeaseTiming{1000ms, 300ms, 100ms});
    ASSERT_NE(repository, nullptr);
    ASSERT_NE(lease, nullptr);
    auto joined = lease->join();
    ASSERT_TRUE(joined);
    ASSERT_EQ(joined->incarnation, 1U);
    ASSERT_TRUE(write_and_wait(*repository, created(make_playing_game("g", 1))));
    auto early = b.repository->adopt_expired(10);
    ASSERT_TRUE(early) << early.error().message;
    if (LeaseClock::now() < joined->sent_at + 900ms) {  // surely live all along
        EXPECT_TRUE(early->empty()) << "a live lease's game was adopted";
    }
    std::this_thread::sleep_until(joined->sent_at + 1100ms);
    EXPECT_FALSE(lease->may_write(LeaseClock::now()));
    auto adopted = b.repository->adopt_expired(10);
    ASSERT_TRUE(adopted) << adopted.error().message;
    ASSERT_EQ(adopted->size(), 1U);
    EXPECT_EQ(adopted->front().epoch, 2U);
    auto late = lease->heartbeat();
    ASSERT_FALSE(late);
    EXPECT_EQ(late.error().failure, LeaseFailure::expired);
    expect_fenced(write_and_wait(*repository, appended("g", move_of("a", 1))));
}

TEST_F(PostgresCluster, ALeaveEndsTheLeaseAtOnce) {
    auto lease = open_lease("a");
    ASSERT_NE(lease, nullptr);
    ASSERT_TRUE(lease->join());
    ASSERT_TRUE(lease->leave());
    EXPECT_FALSE(lease->may_write(LeaseClock::now()));
    EXPECT_EQ(count("SELECT count(*) FROM nodes WHERE lease_expires_at <= clock_timestamp() "
                    "AND left_at = lease_expires_at"),
              1);
    auto after = lease->heartbeat();
    ASSERT_FALSE(after);
    EXPECT_EQ(after.error().failure, LeaseFailure::expired);
    EXPECT_FALSE(lease->leave());
}

// A dropped connection is not a lost lease: the next heartbeat connects again and holds.
TEST_F(PostgresCluster, AHeartbeatConnectsAgainAfterTheConnectionDropped) {
    auto lease = open_lease("a");
    ASSERT_NE(lease, nullptr);
    ASSERT_TRUE(lease->join());
    ASSERT_TRUE(lease->heartbeat());
    // The lease's connection is the one whose last statement was a heartbeat.
    pg::Connection admin = connect();
    auto found = admin.query(
        "SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = "
        "current_database() AND query LIKE 'UPDATE nodes SET heartbeat_at%'");
    ASSERT_TRUE(found) << found.error().message;
    ASSERT_EQ(found->rows(), 1);
    const std::int64_t pid = found->integer(0, 0);
    ASSERT_TRUE(admin.query("SELECT pg_terminate_backend($1)", pg::Params().integer(pid)));
    for (int wait = 0; wait < 500; ++wait) {
        auto alive = admin.query("SELECT count(*) FROM pg_stat_activity WHERE pid = $1",
                                 pg::Params().integer(pid));
        ASSERT_TRUE(alive);
        if (alive->integer(0, 0) == 0) {
            break;
        }
        std::this_thread::sleep_for(10ms);
    }
    // libpq learns that the connection is gone from the first statement that fails on it.
    auto first = lease->heartbeat();
    ASSERT_FALSE(first);
    EXPECT_EQ(first.error().failure, LeaseFailure::unreachable) << first.error().message;
    EXPECT_EQ(lease->action_after(first.error(), LeaseClock::now()), LeaseAction::keep_writing);
    EXPECT_TRUE(lease->may_write(LeaseClock::now()));
    auto second = lease->heartbeat();
    EXPECT_TRUE(second) << second.error().message;
}

TEST_F(PostgresCluster, BadLeaseOptionsAreRefusedBeforeAnythingIsWritten) {
    auto spaced = PostgresLease::open(uri_, LeaseOptions{"node a", {}});
    ASSERT_FALSE(spaced);
    EXPECT_NE(spaced.error().message.find("only letters"), std::string::npos)
        << spaced.error().message;
    auto hasty = PostgresLease::open(uri_, LeaseOptions{"a", LeaseTiming{1000ms, 1000ms, 0ms}});
    ASSERT_FALSE(hasty);
    EXPECT_NE(hasty.error().message.find("two heartbeat intervals"), std::string::npos)
        << hasty.error().message;
    PostgresOptions options;
    options.node = NodeIdentity{"a", 0};
    auto unjoined = PostgresRepository::open(uri_, options);
    ASSERT_FALSE(unjoined);
    EXPECT_NE(unjoined.error().message.find("incarnation"), std::string::npos)
        << unjoined.error().message;
    // Not even the schema was made.
    EXPECT_EQ(count("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"), 0);
}

// --- ownership and fencing -------------------------------------------------------------------

TEST_F(PostgresCluster, ANodeOwnsTheGamesItCreatesAtEpochOne) {
    Node a = start_node("a");
    ASSERT_NE(a.repository, nullptr);
    ASSERT_TRUE(write_and_wait(*a.repository, created(make_playing_game("g", 1))));
    EXPECT_EQ(owner_of("g"), std::pair(std::string("a"), std::int64_t{1}));
    EXPECT_EQ(a.repository->epoch_of("g"), 1U);
    ASSERT_TRUE(write_and_wait(*a.repository, appended("g", move_of("a", 1))));
    EXPECT_EQ(moves_of(*a.repository, "g"), std::vector<std::string>{"a1"});
    // The same move again is still a resend, not an error.
    EXPECT_TRUE(write_and_wait(*a.repository, appended("g", move_of("a", 1))));
}

// Every intent that changes a game writes as on a single node when the node owns the game.
TEST_F(PostgresCluster, AnOwnerWritesEveryIntentAsASingleNodeDoes) {
    for (const testing::IntentCase& intent_case : testing::intent_cases()) {
        SCOPED_TRACE(intent_case.name);
        SetUp();  // a fresh schema per case
        Node a = start_node("a");
        ASSERT_NE(a.repository, nullptr);
        const GameRow before = testing::play_two_moves(*a.repository, false);
        auto written = write_and_wait(*a.repository, intent_case.intent);
        ASSERT_TRUE(written) << written.error().message;
        auto stored = a.repository->load(before.id);
        ASSERT_TRUE(stored && stored->has_value());
        expect_same_game((*stored)->header, testing::after(before, intent_case.intent));
    }
}

TEST_F(PostgresCluster, ACreateWithoutALiveLeaseIsFencedAndStoresNothing) {
    Node a = start_node("a");
    ASSERT_NE(a.repository, nullptr);
    expire("a");
    expect_fenced(write_and_wait(*a.repository, created(make_playing_game("g", 1))));
    EXPECT_EQ(count("SELECT count(*) FROM games"), 0);
}

TEST_F(PostgresCluster, AWriteOfAGameTheNodeNeverOwnedIsFencedBeforeTheDatabase) {
    Node a = start_node("a");
    Node b = start_node("b");
    ASSERT_NE(a.repository, nullptr);
    ASSERT_NE(b.repository, nullptr);
    ASSERT_TRUE(write_and_wait(*a.repository, created(make_playing_game("g", 1))));
    auto refused = write_and_wait(*b.repository, appended("g", move_of("b", 1)));
    expect_fenced(refused);
    if (!refused) {
        EXPECT_NE(refused.error().message.find("does not own game g"), std::string::npos)
            << refused.error().message;
    }
    EXPECT_TRUE(moves_of(*a.repository, "g").empty());
    // Housekeeping belongs to no game, and is no node's to fence.
    EXPECT_TRUE(write_and_wait(*b.repository, PruneAborted{0}));
}

// The failover: A creates games and plays; its lease ends; B adopts them at epoch 2 with their
// moves; A's next move is refused fenced and stores nothing; B's goes through.
TEST_F(PostgresCluster, AfterAdoptionTheOldOwnerIsFencedAndTheNewOneWrites) {
    Node a = start_node("a");
    Node b = start_node("b");
    ASSERT_NE(a.repository, nullptr);
    ASSERT_NE(b.repository, nullptr);
    for (const char* game : {"g1", "g2", "g3"}) {
        ASSERT_TRUE(write_and_wait(*a.repository, created(make_playing_game(game, 1))));
        ASSERT_TRUE(write_and_wait(*a.repository, appended(game, move_of("a", 1))));
        ASSERT_TRUE(write_and_wait(*a.repository, appended(game, move_of("a", 2))));
    }
    expire("a");
    auto adopted = b.repository->adopt_expired(10);
    ASSERT_TRUE(adopted) << adopted.error().message;
    ASSERT_EQ(adopted->size(), 3U);
    for (const AdoptedGame& game : *adopted) {
        EXPECT_EQ(game.epoch, 2U);
        EXPECT_EQ(game.game.moves.size(), 2U);
        EXPECT_EQ(game.game.header.ply, 2U);
        EXPECT_EQ(b.repository->epoch_of(game.game.header.id), 2U);
        EXPECT_EQ(owner_of(game.game.header.id), std::pair(std::string("b"), std::int64_t{2}));
    }
    EXPECT_EQ(adopted->front().game.header.id, "g1");  // oldest first

    // A still believes it holds g1 at epoch 1: the database refuses it.
    EXPECT_EQ(a.repository->epoch_of("g1"), 1U);
    auto refused = write_and_wait(*a.repository, appended("g1", move_of("a", 3)));
    expect_fenced(refused);
    if (!refused) {
        EXPECT_NE(refused.error().message.find("belongs to node b at epoch 2"), std::string::npos)
            << refused.error().message;
    }
    // A resend of a move A stored before is refused too: A holds the game no more.
    expect_fenced(write_and_wait(*a.repository, appended("g1", move_of("a", 2))));
    EXPECT_EQ(moves_of(*b.repository, "g1"), (std::vector<std::string>{"a1", "a2"}));
    ASSERT_TRUE(write_and_wait(*b.repository, appended("g1", move_of("b", 3))));
    EXPECT_EQ(moves_of(*b.repository, "g1"), (std::vector<std::string>{"a1", "a2", "b3"}));
    EXPECT_EQ(count("SELECT count(*) - count(DISTINCT (game_id, ply)) FROM moves"), 0);
    // Nothing left to adopt: B's lease is live.
    auto again = b.repository->adopt_expired(10);
    ASSERT_TRUE(again);
    EXPECT_TRUE(again->empty());
}

// Each intent of a game another node adopted is refused, and changes nothing of it.
TEST_F(PostgresCluster, EveryIntentOfAnAdoptedGameIsFencedAndChangesNothing) {
    for (const testing::IntentCase& intent_case : testing::intent_cases()) {
        SCOPED_TRACE(intent_case.name);
        SetUp();
        Node a = start_node("a");
        Node b = start_node("b");
        ASSERT_NE(a.repository, nullptr);
        ASSERT_NE(b.repository, nullptr);
        const GameRow before = testing::play_two_moves(*a.repository, false);
        expire("a");
        auto adopted = b.repository->adopt_expired(10);
        ASSERT_TRUE(adopted && adopted->size() == 1U);
        expect_fenced(write_and_wait(*a.repository, intent_case.intent));
        auto stored = b.repository->load(before.id);
        ASSERT_TRUE(stored && stored->has_value());
        expect_same_game((*stored)->header, before);
        EXPECT_EQ((*stored)->moves.size(), 2U);
        EXPECT_TRUE((*stored)->chat.empty());
        EXPECT_EQ(owner_of(before.id), std::pair(std::string("b"), std::int64_t{2}));
    }
}

// No acknowledged move is lost across a failover, and none is written twice: A plays one move
// after another while B adopts the game midway. Every move A was told is stored is in what B
// adopted, A's first move after the adoption is refused, and B plays on from there.
TEST_F(PostgresCluster, AFailoverMidGameLosesNoAcknowledgedMoveAndWritesNoPlyTwice) {
    Node a = start_node("a");
    Node b = start_node("b");
    ASSERT_NE(a.repository, nullptr);
    ASSERT_NE(b.repository, nullptr);
    ASSERT_TRUE(write_and_wait(*a.repository, created(make_playing_game("g", 1))));
    std::atomic<std::uint32_t> acknowledged{0};
    std::promise<std::uint32_t> fenced_at;
    std::thread owner([&] {
        for (std::uint32_t ply = 1; ply < 100'000; ++ply) {
            auto written = write_and_wait(*a.repository, appended("g", move_of("a", ply)));
            if (!written) {
                EXPECT_TRUE(written.error().fenced) << written.error().message;
                fenced_at.set_value(ply);
                return;
            }
            acknowledged = ply;
        }
        fenced_at.set_value(0);
    });
    while (acknowledged < 20) {
        std::this_thread::sleep_for(1ms);
    }
    expire("a");
    std::vector<AdoptedGame> adopted;
    // A's write in flight holds the row: adoption passes it by until it commits.
    for (int attempt = 0; attempt < 1000 && adopted.empty(); ++attempt) {
        auto taken = b.repository->adopt_expired(10);
        EXPECT_TRUE(taken) << taken.error().message;
        if (!taken) {
            break;
        }
        adopted = std::move(taken).value();
    }
    if (adopted.empty()) {
        // Not adopted: stop the owner the way the test expects it to stop, by fencing it.
        pg::Connection admin = connect();
        EXPECT_TRUE(admin.exec("UPDATE games SET owner_node = NULL"));
    }
    const std::uint32_t refused = fenced_at.get_future().get();
    owner.join();
    ASSERT_EQ(adopted.size(), 1U);
    const std::uint32_t stored_plies = adopted.front().game.header.ply;
    EXPECT_EQ(stored_plies, acknowledged.load()) << "an acknowledged move is not in the adoption";
    EXPECT_EQ(refused, stored_plies + 1);
    ASSERT_EQ(adopted.front().game.moves.size(), stored_plies);
    for (std::uint32_t ply = 1; ply <= stored_plies; ++ply) {
        EXPECT_EQ(adopted.front().game.moves[ply - 1].move, "a" + std::to_string(ply));
    }
    for (std::uint32_t ply = stored_plies + 1; ply <= stored_plies + 5; ++ply) {
        ASSERT_TRUE(write_and_wait(*b.repository, appended("g", move_of("b", ply))));
    }
    const auto moves = moves_of(*b.repository, "g");
    ASSERT_EQ(moves.size(), stored_plies + 5);
    EXPECT_EQ(moves[stored_plies], "b" + std::to_string(stored_plies + 1));
    EXPECT_EQ(count("SELECT count(*) - count(DISTINCT (game_id, ply)) FROM moves"), 0);
    EXPECT_EQ(count("SELECT count(*) FROM moves WHERE move LIKE 'a%'"), stored_plies);
}

// Nodes sweeping at once never both win a game: each game is adopted once, at epoch 2.
TEST_F(PostgresCluster, AdoptersSweepingAtOnceNeverBothWinAGame) {
    Node a = start_node("a");
    ASSERT_NE(a.repository, nullptr);
    constexpr int kGames = 120;
    for (int i = 0; i < kGames; ++i) {
        a.repository->write(created(make_playing_game("g" + std::to_string(i), i)), nullptr);
    }
    a.repository->flush();
    ASSERT_EQ(count("SELECT count(*) FROM games WHERE owner_node = 'a'"), kGames);
    expire("a");
    std::vector<Node> adopters;
    for (const char* node : {"b", "c", "d"}) {
        adopters.push_back(start_node(node));
        ASSERT_NE(adopters.back().repository, nullptr);
    }
    std::vector<std::vector<std::string>> won(adopters.size());
    std::vector<std::thread> sweepers;
    for (std::size_t n = 0; n < adopters.size(); ++n) {
        sweepers.emplace_back([&, n] {
            for (;;) {
                auto adopted = adopters[n].repository->adopt_expired(7);
                ASSERT_TRUE(adopted) << adopted.error().message;
                if (adopted->empty() && count("SELECT count(*) FROM games WHERE owner_node = "
                                              "'a'") == 0) {
                    return;
                }
                for (const AdoptedGame& game : *adopted) {
                    EXPECT_EQ(game.epoch, 2U);
                    won[n].push_back(game.game.header.id);
                }
            }
        });
    }
    for (auto& sweeper : sweepers) {
        sweeper.join();
    }
    std::set<std::string> all;
    std::size_t total = 0;
    for (std::size_t n = 0; n < adopters.size(); ++n) {
        total += won[n].size();
        all.insert(won[n].begin(), won[n].end());
        for (const std::string& game : won[n]) {
            EXPECT_EQ(adopters[n].repository->epoch_of(game), 2U);
        }
    }
    EXPECT_EQ(total, static_cast<std::size_t>(kGames)) << "a game was adopted twice";
    EXPECT_EQ(all.size(), static_cast<std::size_t>(kGames));
    EXPECT_EQ(count("SELECT count(*) FROM games WHERE owner_epoch = 2 AND owner_node IN ('b', "
                    "'c', 'd')"),
              kGames);
}

// A row another transaction holds (an owner's write in flight, another adopter) is passed by at
// once, not waited for, and adopted at a later sweep.
TEST_F(PostgresCluster, AdoptionPassesALockedGameByAndTakesItLater) {
    Node a = start_node("a");
    Node b = start_node("b");
    ASSERT_NE(a.repository, nullptr);
    ASSERT_NE(b.repository, nullptr);
    ASSERT_TRUE(write_and_wait(*a.repository, created(make_playing_game("held", 1))));
    ASSERT_TRUE(write_and_wait(*a.repository, created(make_playing_game("free", 2))));
    expire("a");
    pg::Connection holder = connect();
    ASSERT_TRUE(holder.exec("BEGIN"));
    ASSERT_TRUE(holder.exec("SELECT 1 FROM games WHERE id = 'held' FOR NO KEY UPDATE"));
    auto first = b.repository->adopt_expired(10);
    ASSERT_TRUE(first) << first.error().message;
    ASSERT_EQ(first->size(), 1U);
    EXPECT_EQ(first->front().game.header.id, "free");
    ASSERT_TRUE(holder.exec("ROLLBACK"));
    auto second = b.repository->adopt_expired(10);
    ASSERT_TRUE(second) << second.error().message;
    ASSERT_EQ(second->size(), 1U);
    EXPECT_EQ(second->front().game.header.id, "held");
}

TEST_F(PostgresCluster, ANodeWithoutALiveLeaseAdoptsNothing) {
    Node a = start_node("a");
    Node b = start_node("b");
    ASSERT_NE(a.repository, nullptr);
    ASSERT_NE(b.repository, nullptr);
    ASSERT_TRUE(write_and_wait(*a.repository, created(make_playing_game("g", 1))));
    expire("a");
    expire("b");
    auto refused = b.repository->adopt_expired(10);
    ASSERT_FALSE(refused);
    EXPECT_TRUE(refused.error().fenced) << refused.error().message;
    EXPECT_EQ(owner_of("g"), std::pair(std::string("a"), std::int64_t{1}));
}

// A node whose row is gone (deleted by an operator) holds no lease: its games may be adopted,
// and its heartbeat fails.
TEST_F(PostgresCluster, TheGamesOfANodeWithoutARowAreAdopted) {
    Node a = start_node("a");
    Node b = start_node("b");
    ASSERT_NE(a.repository, nullptr);
    ASSERT_NE(b.repository, nullptr);
    ASSERT_TRUE(write_and_wait(*a.repository, created(make_playing_game("g", 1))));
    pg::Connection admin = connect();
    ASSERT_TRUE(admin.exec("DELETE FROM nodes WHERE node_id = 'a'"));
    auto adopted = b.repository->adopt_expired(10);
    ASSERT_TRUE(adopted && adopted->size() == 1U);
    EXPECT_EQ(adopted->front().epoch, 2U);
    auto lost = a.lease->heartbeat();
    ASSERT_FALSE(lost);
    EXPECT_EQ(lost.error().failure, LeaseFailure::expired) << lost.error().message;
    expect_fenced(write_and_wait(*a.repository, appended("g", move_of("a", 1))));
}

// Epochs only go up along a game, hand to hand, and the schema refuses one that goes down.
TEST_F(PostgresCluster, EpochsNeverDecrease) {
    std::vector<Node> nodes;
    for (const char* node : {"a", "b", "c", "d", "e"}) {
        nodes.push_back(start_node(node));
        ASSERT_NE(nodes.back().repository, nullptr);
    }
    ASSERT_TRUE(write_and_wait(*nodes[0].repository, created(make_playing_game("g", 1))));
    std::vector<std::int64_t> epochs{owner_of("g").second};
    for (std::size_t next = 1; next < nodes.size(); ++next) {
        auto released = nodes[next - 1].repository->release_games();
        ASSERT_TRUE(released) << released.error().message;
        EXPECT_EQ(*released, 1U);
        auto adopted = nodes[next].repository->adopt_expired(10);
        ASSERT_TRUE(adopted && adopted->size() == 1U);
        epochs.push_back(owner_of("g").second);
        EXPECT_EQ(static_cast<std::int64_t>(adopted->front().epoch), epochs.back());
    }
    EXPECT_EQ(epochs, (std::vector<std::int64_t>{1, 2, 3, 4, 5}));
    // The first node, back after a rejoin, adopts it at the next epoch, not at one it held.
    ASSERT_TRUE(nodes.back().repository->release_games());
    auto rejoined = nodes[0].lease->join();
    ASSERT_TRUE(rejoined);
    nodes[0].repository->rejoin(rejoined->incarnation);
    auto back = nodes[0].repository->adopt_expired(10);
    ASSERT_TRUE(back && back->size() == 1U);
    EXPECT_EQ(back->front().epoch, 6U);
    pg::Connection admin = connect();
    auto lowered = admin.exec("UPDATE games SET owner_epoch = owner_epoch - 1");
    ASSERT_FALSE(lowered);
    EXPECT_NE(lowered.error().message.find("may not go down"), std::string::npos)
        << lowered.error().message;
    EXPECT_EQ(owner_of("g").second, 6);
}

// A graceful stop hands the games over: what was queued before commits, what comes after is
// refused, and another node adopts them at once although the first node's lease still holds.
TEST_F(PostgresCluster, AHandoverLetsAnotherNodeAdoptAtOnce) {
    Node a = start_node("a");
    Node b = start_node("b");
    ASSERT_NE(a.repository, nullptr);
    ASSERT_NE(b.repository, nullptr);
    ASSERT_TRUE(write_and_wait(*a.repository, created(make_playing_game("g", 1))));
    std::promise<Expected<void, StorageError>> queued;
    a.repository->write(appended("g", move_of("a", 1)),
                        [&](Expected<void, StorageError> done) { queued.set_value(done); });
    auto released = a.repository->release_games();
    ASSERT_TRUE(released) << released.error().message;
    EXPECT_EQ(*released, 1U);
    EXPECT_TRUE(queued.get_future().get());
    EXPECT_EQ(owner_of("g"), std::pair(std::string(""), std::int64_t{1}));
    EXPECT_EQ(a.repository->epoch_of("g"), std::nullopt);
    expect_fenced(write_and_wait(*a.repository, appended("g", move_of("a", 2))));
    // A node handing over acquires nothing more.
    expect_fenced(write_and_wait(*a.repository, created(make_playing_game("h", 2))));
    auto taken_back = a.repository->adopt_expired(10);
    ASSERT_FALSE(taken_back);
    EXPECT_TRUE(taken_back.error().fenced) << taken_back.error().message;
    auto adopted = b.repository->adopt_expired(10);
    ASSERT_TRUE(adopted && adopted->size() == 1U);
    EXPECT_EQ(adopted->front().epoch, 2U);
    EXPECT_EQ(adopted->front().game.moves.size(), 1U);
    ASSERT_TRUE(a.lease->leave());
}

// What a node asks before it forwards a request or adopts a game: who owns it, and is that
// owner's lease live, by the database's clock.
TEST_F(PostgresCluster, OwnerOfNamesTheOwnerAndWhetherItsLeaseIsLive) {
    Node a = start_node("a");
    Node b = start_node("b");
    ASSERT_NE(a.repository, nullptr);
    ASSERT_NE(b.repository, nullptr);
    ASSERT_TRUE(write_and_wait(*a.repository, created(make_playing_game("g", 1))));
    auto owner = b.repository->owner_of("g");
    ASSERT_TRUE(owner && owner->has_value()) << (owner ? "not stored" : owner.error().message);
    EXPECT_EQ((*owner)->node, "a");
    EXPECT_EQ((*owner)->epoch, 1U);
    EXPECT_TRUE((*owner)->live);
    auto unknown = b.repository->owner_of("nosuchgame");
    ASSERT_TRUE(unknown);
    EXPECT_FALSE(unknown->has_value());

    auto live = b.repository->live_nodes();
    ASSERT_TRUE(live) << live.error().message;
    EXPECT_EQ(*live, (std::vector<LiveNode>{{"a", a.lease->incarnation()},
                                            {"b", b.lease->incarnation()}}));

    expire("a");
    owner = b.repository->owner_of("g");
    ASSERT_TRUE(owner && owner->has_value());
    EXPECT_EQ((*owner)->node, "a");
    EXPECT_FALSE((*owner)->live);
    live = b.repository->live_nodes();
    ASSERT_TRUE(live);
    EXPECT_EQ(*live, (std::vector<LiveNode>{{"b", b.lease->incarnation()}}));

    // Handed over: no owner at all.
    ASSERT_TRUE(b.repository->adopt("g"));
    ASSERT_TRUE(b.repository->release_games());
    owner = a.repository->owner_of("g");
    ASSERT_TRUE(owner && owner->has_value());
    EXPECT_EQ((*owner)->node, "");
    EXPECT_FALSE((*owner)->live);
}

// A restart under the same id (the old process may still run): the join releases the older
// incarnation's games in its transaction, the old process can neither write them nor create
// or adopt any, and the new one adopts them back.
TEST_F(PostgresCluster, AJoinUnderTheSameIdFencesTheOlderProcess) {
    Node old_process = start_node("a");
    ASSERT_NE(old_process.repository, nullptr);
    ASSERT_TRUE(write_and_wait(*old_process.repository, created(make_playing_game("g", 1))));
    Node new_process = start_node("a");
    ASSERT_NE(new_process.repository, nullptr);
    EXPECT_EQ(new_process.lease->incarnation(), 2U);
    EXPECT_EQ(owner_of("g"), std::pair(std::string(""), std::int64_t{1}));
    expect_fenced(write_and_wait(*old_process.repository, appended("g", move_of("a", 1))));
    expect_fenced(write_and_wait(*old_process.repository, created(make_playing_game("h", 2))));
    auto stolen = old_process.repository->adopt_expired(10);
    ASSERT_FALSE(stolen);
    EXPECT_TRUE(stolen.error().fenced) << stolen.error().message;
    auto adopted = new_process.repository->adopt_expired(10);
    ASSERT_TRUE(adopted && adopted->size() == 1U);
    EXPECT_EQ(adopted->front().epoch, 2U);
    ASSERT_TRUE(write_and_wait(*new_process.repository, appended("g", move_of("a", 1))));
    EXPECT_EQ(count("SELECT count(*) FROM games"), 1);
}

// A node that lost its lease drops its games and rejoins: it owns nothing under the new
// incarnation until it adopts, and then writes at the new epoch.
TEST_F(PostgresCluster, ARejoinedNodeOwnsNothingUntilItAdopts) {
    Node a = start_node("a");
    ASSERT_NE(a.repository, nullptr);
    ASSERT_TRUE(write_and_wait(*a.repository, created(make_playing_game("g", 1))));
    expire("a");
    auto lost = a.lease->heartbeat();
    ASSERT_FALSE(lost);
    ASSERT_EQ(a.lease->action_after(lost.error(), LeaseClock::now()), LeaseAction::drop_and_rejoin);
    auto rejoined = a.lease->join();
    ASSERT_TRUE(rejoined);
    a.repository->rejoin(rejoined->incarnation);
    EXPECT_EQ(a.repository->epoch_of("g"), std::nullopt);
    expect_fenced(write_and_wait(*a.repository, appended("g", move_of("a", 1))));
    auto adopted = a.repository->adopt_expired(10);
    ASSERT_TRUE(adopted && adopted->size() == 1U);
    EXPECT_EQ(adopted->front().epoch, 2U);
    EXPECT_TRUE(write_and_wait(*a.repository, appended("g", move_of("a", 1))));
    EXPECT_TRUE(write_and_wait(*a.repository, created(make_playing_game("h", 2))));
    EXPECT_EQ(owner_of("h"), std::pair(std::string("a"), std::int64_t{1}));
}

// The sweep takes unfinished games only; a finished one (its chat, a rematch) is adopted on its
// own when it is brought back.
TEST_F(PostgresCluster, AFinishedGameIsAdoptedOnItsOwn) {
    Node a = start_node("a");
    Node b = start_node("b");
    ASSERT_NE(a.repository, nullptr);
    ASSERT_NE(b.repository, nullptr);
    ASSERT_TRUE(write_and_wait(*a.repository, created(make_playing_game("g", 1))));
    const GameEnding resigned{protocol::GameStatus::ended, rules::Outcome::first_wins,
                              protocol::EndReason::resign};
    ASSERT_TRUE(write_and_wait(*a.repository, EndGame{"g", resigned, {0, 0}, 3, 5}));
    expire("a");
    auto swept = b.repository->adopt_expired(10);
    ASSERT_TRUE(swept);
    EXPECT_TRUE(swept->empty());
    auto missing = b.repository->adopt("nope");
    ASSERT_TRUE(missing);
    EXPECT_FALSE(missing->has_value());
    auto adopted = b.repository->adopt("g");
    ASSERT_TRUE(adopted && adopted->has_value()) << (adopted ? "" : adopted.error().message);
    EXPECT_EQ((*adopted)->epoch, 2U);
    EXPECT_EQ((*adopted)->game.header.status, protocol::GameStatus::ended);
    const ChatRow line{4, protocol::ChatRoom::players, "bob", rules::Side::second, "gg", 6};
    EXPECT_TRUE(write_and_wait(*b.repository, PostChat{"g", line, {0, 0}, 4}));
    // B's lease is live: nobody else may take it.
    Node c = start_node("c");
    ASSERT_NE(c.repository, nullptr);
    auto refused = c.repository->adopt("g");
    ASSERT_TRUE(refused);
    EXPECT_FALSE(refused->has_value());
}

TEST_F(PostgresCluster, ASingleNodeRepositoryOwnsNothingAndAdoptsNothing) {
    auto single = PostgresRepository::open(uri_);
    ASSERT_TRUE(single) << single.error().message;
    ASSERT_TRUE(write_and_wait(**single, created(make_playing_game("g", 1))));
    EXPECT_EQ(owner_of("g"), std::pair(std::string(""), std::int64_t{0}));
    EXPECT_EQ((*single)->epoch_of("g"), std::nullopt);
    EXPECT_FALSE((*single)->adopt_expired(10));
    EXPECT_FALSE((*single)->release_games());
    ASSERT_TRUE(write_and_wait(**single, appended("g", move_of("s", 1))));
}

}  // namespace
}  // namespace arbiter::server::storage
