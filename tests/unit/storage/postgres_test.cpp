// What only the PostgreSQL engine has (issue 43): its migrations' record, group commit with a
// savepoint per intent, acknowledgement after COMMIT, its connection strings, and backup left to
// pg_dump. The behaviour it shares with SQLite is held by the shared suites.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "server/storage/pg.hpp"
#include "server/storage/postgres_migrations.hpp"
#include "server/storage/postgres_repository.hpp"
#include "storage_test_support.hpp"
#include "tests/support/postgres_fixture.hpp"

namespace arbiter::server::storage {
namespace {

using testing::appended;
using testing::created;
using testing::make_move;
using testing::make_playing_game;
using testing::write_and_wait;

class PostgresStorage : public ::testing::Test {
  protected:
    void SetUp() override {
        arbiter::testing::PostgresServer* server = arbiter::testing::PostgresEnvironment::server();
        ASSERT_NE(server, nullptr) << "the tests' PostgreSQL server did not start";
        uri_ = server->fresh_schema_uri();
    }

    std::unique_ptr<PostgresRepository> open_or_fail() {
        auto opened = PostgresRepository::open(uri_);
        EXPECT_TRUE(opened) << (opened ? "" : opened.error().message);
        return opened ? std::move(opened).value() : nullptr;
    }

    pg::Connection connect() {
        auto connection = pg::Connection::open(uri_);
        EXPECT_TRUE(connection) << (connection ? "" : connection.error().message);
        return std::move(connection).value();
    }

    std::string uri_;
};

// The statements both engines share are written with SQLite's ?N (intent_sql.hpp).
TEST(PostgresParameters, SqliteNumberedParametersBecomePostgresOnes) {
    EXPECT_EQ(pg::numbered_parameters("UPDATE t SET a = ?2, b = ?10 WHERE id = ?1"),
              "UPDATE t SET a = $2, b = $10 WHERE id = $1");
    EXPECT_EQ(pg::numbered_parameters("SELECT '?' || x, ?"), "SELECT '?' || x, ?");
    EXPECT_EQ(pg::numbered_parameters("?"), "?");
}

// What the logs show of --db: never the password, nor any other option.
TEST(PostgresConnectionStrings, AreShownWithoutThePassword) {
    EXPECT_EQ(PostgresRepository::describe(
                  "postgresql://arbiter:secret@127.0.0.1:5432/games?sslmode=require&password=x"),
              "postgresql://arbiter@127.0.0.1:5432/games");
    EXPECT_EQ(PostgresRepository::describe("postgres://db.example/games"),
              "postgresql://db.example/games");
    EXPECT_EQ(PostgresRepository::describe("host=h port=6543 dbname=d user=u password=secret"),
              "postgresql://u@h:6543/d");
    EXPECT_EQ(PostgresRepository::describe("postgresql://[::1"), "postgresql://(unreadable)");
}

TEST_F(PostgresStorage, MigrationsRecordTheirVersionsOnceAndMakeEveryTable) {
    ASSERT_NE(open_or_fail(), nullptr);
    ASSERT_NE(open_or_fail(), nullptr);  // a restart applies nothing again
    pg::Connection connection = connect();
    auto versions = connection.query("SELECT version, name FROM schema_migrations ORDER BY 1");
    ASSERT_TRUE(versions);
    ASSERT_EQ(versions->rows(), static_cast<int>(postgres_migrations().size()));
    EXPECT_EQ(versions->text(0, 1), "0001_initial.sql");
    // Every table of SQLite's schema but its move journal, for the stores that come next.
    for (const char* table : {"games", "moves", "users", "sessions", "ratings", "rating_history",
                              "chat_messages", "analyses"}) {
        auto found =
            connection.query("SELECT to_regclass($1) IS NOT NULL", pg::Params().text(table));
        ASSERT_TRUE(found);
        EXPECT_TRUE(found->boolean(0, 0)) << table;
    }
    // Room for the cluster's fencing: a new game has no owner, at epoch 0.
    auto repository = open_or_fail();
    ASSERT_TRUE(write_and_wait(*repository, created(make_playing_game("g", 1))));
    auto owner = connection.query("SELECT owner_node IS NULL, owner_epoch FROM games");
    ASSERT_TRUE(owner);
    EXPECT_TRUE(owner->boolean(0, 0));
    EXPECT_EQ(owner->integer(0, 1), 0);
}

TEST_F(PostgresStorage, ASchemaNewerThanTheServerIsRefused) {
    ASSERT_NE(open_or_fail(), nullptr);
    pg::Connection connection = connect();
    ASSERT_TRUE(connection.exec("INSERT INTO schema_migrations (version, name) VALUES (99, 'x')"));
    auto refused = PostgresRepository::open(uri_);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("newer Arbiter"), std::string::npos)
        << refused.error().message;
}

// Intents queued together commit in one transaction; one that does not apply is undone alone
// (its savepoint), and the others of its batch commit. The chat message at a taken seq fails in
// its second statement, after its first changed the game's row: that change must go too.
TEST_F(PostgresStorage, AFailedIntentDoesNotTakeItsBatchDown) {
    auto repository = open_or_fail();
    ASSERT_NE(repository, nullptr);
    ASSERT_TRUE(write_and_wait(*repository, created(make_playing_game("g", 1))));
    const ChatRow line{10, protocol::ChatRoom::players, "bob", rules::Side::second, "hi", 1};
    ASSERT_TRUE(write_and_wait(*repository, PostChat{"g", line, {0, 0}, 10}));
    // The first write's callback holds the writer, so that the next four queue into one batch.
    std::promise<void> release;
    repository->write(created(make_playing_game("h", 2)),
                      [future = release.get_future().share()](const auto&) { future.wait(); });
    std::vector<std::promise<Expected<void, StorageError>>> results(5);
    const GameIntent batch[] = {appended("g", make_move(1, "e2e4")),
                                appended("g", make_move(1, "d2d4")),  // another move at ply 1
                                PostChat{"g", line, {77, 88}, 10},    // a taken seq
                                appended("g", make_move(2, "e7e5")),
                                appended("h", make_move(1, "c2c4"))};
    for (std::size_t i = 0; i < results.size(); ++i) {
        repository->write(batch[i], [&results, i](Expected<void, StorageError> result) {
            results[i].set_value(std::move(result));
        });
    }
    release.set_value();
    EXPECT_TRUE(results[0].get_future().get());
    auto conflicting = results[1].get_future().get();
    ASSERT_FALSE(conflicting);
    EXPECT_NE(conflicting.error().message.find("already has move 'e2e4'"), std::string::npos)
        << conflicting.error().message;
    EXPECT_FALSE(results[2].get_future().get());
    EXPECT_TRUE(results[3].get_future().get());
    EXPECT_TRUE(results[4].get_future().get());
    auto g = repository->load("g");
    ASSERT_TRUE(g && g->has_value());
    EXPECT_EQ((*g)->header.clock_ms, (std::array<std::int64_t, 2>{0, 0}));
    EXPECT_EQ((*g)->chat.size(), 1U);
    ASSERT_EQ((*g)->moves.size(), 2U);
    EXPECT_EQ((*g)->moves[1].move, "e7e5");
    EXPECT_EQ((*g)->header.ply, 2U);
    auto h = repository->load("h");
    ASSERT_TRUE(h && h->has_value());
    EXPECT_EQ((*h)->moves.size(), 1U);
}

// A pipeline runs its statements in order, one result each; after a failure the server skips the
// rest of it, each of them failing too, and the connection goes on once the transaction ends.
TEST_F(PostgresStorage, APipelineAnswersEachStatementInOrder) {
    pg::Connection connection = connect();
    ASSERT_TRUE(connection.prepare("add", "SELECT $1::int + $2::int"));
    auto answers =
        connection.pipeline({pg::Statement{{}, {}, "BEGIN"},
                             pg::Statement{"add", pg::Params().integer(2).integer(3), {}},
                             pg::Statement{{}, {}, "SELECT 1 / 0"},
                             pg::Statement{"add", pg::Params().integer(1).integer(1), {}}});
    ASSERT_TRUE(answers) << answers.error().message;
    ASSERT_EQ(answers->size(), 4U);
    EXPECT_TRUE((*answers)[0]);
    ASSERT_TRUE((*answers)[1]);
    EXPECT_EQ((*answers)[1]->integer(0, 0), 5);
    ASSERT_FALSE((*answers)[2]);
    EXPECT_NE((*answers)[2].error().message.find("division by zero"), std::string::npos)
        << (*answers)[2].error().message;
    ASSERT_FALSE((*answers)[3]);
    EXPECT_NE((*answers)[3].error().message.find("not run"), std::string::npos);
    EXPECT_TRUE(connection.connected());
    EXPECT_TRUE(connection.exec("ROLLBACK"));
    auto after = connection.run("add", pg::Params().integer(20).integer(22));
    ASSERT_TRUE(after) << after.error().message;
    EXPECT_EQ(after->integer(0, 0), 42);
}

// A batch of moves that all apply is sent at once and commits as one transaction; a batch with
// one that does not apply is rolled back whole and written one intent at a time, so that each
// gets its own answer (AFailedIntentDoesNotTakeItsBatchDown has those answers).
TEST_F(PostgresStorage, ABatchThatAppliesIsPipelinedAndOneThatDoesNotGoesIntentByIntent) {
    auto repository = open_or_fail();
    ASSERT_NE(repository, nullptr);
    ASSERT_TRUE(write_and_wait(*repository, created(make_playing_game("g", 1))));
    ASSERT_TRUE(write_and_wait(*repository, created(make_playing_game("h", 2))));
    const auto batch_of = [&](const std::vector<GameIntent>& intents) {
        // A write of its own holds the writer in its callback, so that the rest queue into one
        // batch.
        std::promise<void> entered;
        std::promise<void> release;
        repository->write(RecordEvent{"g", {5, 5}, 1},
                          [&entered, future = release.get_future().share()](const auto&) {
                              entered.set_value();
                              future.wait();
                          });
        entered.get_future().wait();
        std::vector<std::promise<Expected<void, StorageError>>> results(intents.size());
        for (std::size_t i = 0; i < intents.size(); ++i) {
            repository->write(intents[i], [&results, i](Expected<void, StorageError> result) {
                results[i].set_value(std::move(result));
            });
        }
        release.set_value();
        std::vector<bool> ok;
        for (auto& result : results) {
            ok.push_back(result.get_future().get().has_value());
        }
        return ok;
    };
    const std::uint64_t before = repository->pipelined_batches();
    EXPECT_EQ(batch_of({appended("g", make_move(1, "e2e4")), appended("h", make_move(1, "d2d4")),
                        appended("g", make_move(2, "e7e5")), SetOffers{"h", {}, {7, 8}, 3}}),
              (std::vector<bool>{true, true, true, true}));
    EXPECT_EQ(repository->pipelined_batches(), before + 2);  // the holding write's batch too
    EXPECT_EQ(batch_of({appended("g", make_move(3, "g1f3")), appended("h", make_move(3, "c2c4")),
                        appended("g", make_move(2, "e7e5"))}),  // a gap, then a resend
              (std::vector<bool>{true, false, true}));
    EXPECT_EQ(repository->pipelined_batches(), before + 3);
    auto g = repository->load("g");
    ASSERT_TRUE(g && g->has_value());
    ASSERT_EQ((*g)->moves.size(), 3U);
    EXPECT_EQ((*g)->moves[2].move, "g1f3");
    auto h = repository->load("h");
    ASSERT_TRUE(h && h->has_value());
    ASSERT_EQ((*h)->moves.size(), 1U);
    EXPECT_EQ((*h)->header.clock_ms, (std::array<std::int64_t, 2>{7, 8}));
}

// A write is acknowledged only once committed: another connection sees it from its callback on.
TEST_F(PostgresStorage, AWriteIsAcknowledgedOnlyAfterItsCommit) {
    auto repository = open_or_fail();
    ASSERT_NE(repository, nullptr);
    pg::Connection other = connect();
    std::promise<int> seen;
    repository->write(created(make_playing_game("g", 1)), [&](Expected<void, StorageError> done) {
        EXPECT_TRUE(done);
        auto rows = other.query("SELECT count(*) FROM games WHERE id = 'g'");
        seen.set_value(rows ? static_cast<int>(rows->integer(0, 0)) : -1);
    });
    EXPECT_EQ(seen.get_future().get(), 1);
}

TEST_F(PostgresStorage, BackupIsPgDumpsJob) {
    auto repository = open_or_fail();
    ASSERT_NE(repository, nullptr);
    auto backup = repository->backup("/tmp/never-written");
    ASSERT_FALSE(backup);
    EXPECT_NE(backup.error().message.find("pg_dump"), std::string::npos) << backup.error().message;
    EXPECT_GT(repository->size_bytes(), 0U);
    EXPECT_TRUE(repository->writable());
}

// The leaderboard reads its candidates through a cursor, a page at a time: all of them in order
// past a page, and no more than asked for when the caller stops.
TEST_F(PostgresStorage, ALeaderboardReadsItsCandidatesPageByPage) {
    auto repository = open_or_fail();
    ASSERT_NE(repository, nullptr);
    pg::Connection connection = connect();
    auto inserted = connection.exec(
        "INSERT INTO users (username, username_key, password_hash, created_ms) "
        "SELECT 'player' || n, 'player' || n, 'h', 1 FROM generate_series(1, 300) AS n; "
        "INSERT INTO ratings (user_id, variant, speed, rating, deviation, volatility, games, "
        "updated_ms) SELECT id, 'chess', 'blitz', 1000 + id, 60, 0.06, 5, 10 FROM users");
    ASSERT_TRUE(inserted) << inserted.error().message;
    const LeaderboardQuery query{rules::Variant::chess, "blitz", 0, 110};
    std::vector<double> ratings;
    ASSERT_TRUE(repository->leaderboard(query, [&](const LeaderRow& row) {
        ratings.push_back(row.rating.rating);
        return true;
    }));
    ASSERT_EQ(ratings.size(), 300U);
    EXPECT_TRUE(std::is_sorted(ratings.rbegin(), ratings.rend()));
    int calls = 0;
    ASSERT_TRUE(repository->leaderboard(query, [&](const LeaderRow&) { return ++calls < 5; }));
    EXPECT_EQ(calls, 5);
    // The cursor went with its snapshot: the next read on the connection works.
    EXPECT_TRUE(repository->load_ratings());
}

TEST_F(PostgresStorage, AConnectionStringThatDoesNotWorkIsAClearError) {
    auto unparsable = PostgresRepository::open("postgresql://[::1");
    ASSERT_FALSE(unparsable);
    EXPECT_NE(unparsable.error().message.find("not a PostgreSQL connection string"),
              std::string::npos)
        << unparsable.error().message;
    // Port 1 of 127.0.0.1: nobody listens there.
    auto refused = PostgresRepository::open("postgresql://arbiter@127.0.0.1:1/postgres");
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("connecting to PostgreSQL"), std::string::npos)
        << refused.error().message;
}

// A server without a node id restores and writes every unfinished game: a second one on the
// same database would write the same games. It is refused while the first runs, and opens once
// the first stopped.
TEST_F(PostgresStorage, ASecondServerWithoutANodeIdIsRefusedWhileTheFirstRuns) {
    auto first = open_or_fail();
    ASSERT_NE(first, nullptr);
    auto second = PostgresRepository::open(uri_);
    ASSERT_FALSE(second);
    EXPECT_NE(second.error().message.find("another arbiter-server writes to this database"),
              std::string::npos)
        << second.error().message;
    first.reset();
    EXPECT_NE(open_or_fail(), nullptr);
}

// Cluster nodes share a database with each other, never with a server without a node id.
TEST_F(PostgresStorage, ClusterNodesShareTheDatabaseWithEachOtherButNotWithASingleNode) {
    const auto open_node = [this](const std::string& node) {
        PostgresOptions options;
        options.node = NodeIdentity{node, 1};
        return PostgresRepository::open(uri_, options);
    };
    {
        auto single = open_or_fail();
        ASSERT_NE(single, nullptr);
        auto node = open_node("a");
        ASSERT_FALSE(node);
        EXPECT_NE(node.error().message.find("cluster nodes cannot share it"), std::string::npos)
            << node.error().message;
    }
    auto a = open_node("a");
    ASSERT_TRUE(a) << a.error().message;
    auto b = open_node("b");
    ASSERT_TRUE(b) << b.error().message;
    auto single = PostgresRepository::open(uri_);
    ASSERT_FALSE(single);
    EXPECT_NE(single.error().message.find("another arbiter-server writes to this database"),
              std::string::npos)
        << single.error().message;
}

}  // namespace
}  // namespace arbiter::server::storage
