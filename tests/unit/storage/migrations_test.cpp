#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/storage/game_reads.hpp"
#include "server/storage/migrations.hpp"
#include "storage_test_support.hpp"

namespace arbiter::server::storage {
namespace {

using testing::TempDatabase;

std::int64_t user_version(const std::string& path) {
    auto connection = sqlite::Connection::open(path, false);
    EXPECT_TRUE(connection.has_value());
    auto version = connection->query_int64("PRAGMA user_version");
    EXPECT_TRUE(version.has_value());
    return version.value_or(-1);
}

std::int64_t count_tables(sqlite::Connection& connection, const std::string& name) {
    auto statement =
        connection.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1");
    EXPECT_TRUE(statement.has_value());
    statement->bind(1, std::string_view(name));
    EXPECT_TRUE(statement->step().value_or(false));
    return statement->column_int64(0);
}

TEST(StorageMigrations, EmbeddedMigrationsAreNumberedFromOneWithoutGaps) {
    const auto migrations = embedded_migrations();
    ASSERT_FALSE(migrations.empty());
    for (std::size_t i = 0; i < migrations.size(); ++i) {
        EXPECT_EQ(migrations[i].version, static_cast<int>(i) + 1);
        EXPECT_FALSE(migrations[i].sql.empty());
    }
    EXPECT_EQ(migrations[0].name, "0001_initial.sql");
}

TEST(StorageMigrations, EmptyFileIsMigratedToTheLatestVersion) {
    TempDatabase database;
    {
        auto repository = testing::open_or_die(database.path());
        ASSERT_NE(repository, nullptr);
    }
    EXPECT_EQ(user_version(database.path()),
              static_cast<std::int64_t>(embedded_migrations().size()));
    auto connection = sqlite::Connection::open(database.path(), false);
    ASSERT_TRUE(connection);
    EXPECT_EQ(count_tables(*connection, "games"), 1);
    EXPECT_EQ(count_tables(*connection, "moves"), 1);
    EXPECT_EQ(connection->query_text("PRAGMA journal_mode").value_or(""), "wal");
}

TEST(StorageMigrations, ReopeningKeepsDataAndVersion) {
    TempDatabase database;
    {
        auto repository = testing::open_or_die(database.path());
        ASSERT_NE(repository, nullptr);
        ASSERT_TRUE(testing::write_and_wait(
            *repository, testing::created(testing::make_playing_game("g1", 10))));
        ASSERT_TRUE(testing::write_and_wait(
            *repository, testing::appended("g1", testing::make_move(1, "e2e4"))));
    }
    const auto version = user_version(database.path());
    auto repository = testing::open_or_die(database.path());
    ASSERT_NE(repository, nullptr);
    EXPECT_EQ(user_version(database.path()), version);
    auto loaded = repository->load("g1");
    ASSERT_TRUE(loaded);
    ASSERT_TRUE(loaded->has_value());
    ASSERT_EQ((*loaded)->moves.size(), 1U);
    EXPECT_EQ((*loaded)->moves[0].move, "e2e4");
}

TEST(StorageMigrations, NewerDatabaseIsRefusedAndLeftUntouched) {
    TempDatabase database;
    { ASSERT_NE(testing::open_or_die(database.path()), nullptr); }
    {
        auto connection = sqlite::Connection::open(database.path(), false);
        ASSERT_TRUE(connection);
        ASSERT_TRUE(connection->exec("PRAGMA user_version = 99"));
    }
    auto refused = SqliteRepository::open(database.path());
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("newer"), std::string::npos) << refused.error().message;
    EXPECT_NE(refused.error().message.find("99"), std::string::npos);
    EXPECT_EQ(user_version(database.path()), 99);
}

// A file at the current version whose schema was changed by hand: open() reports what is
// missing. It used to crash instead: the failed open's destructor filed the journal with
// statements that had never been prepared.
TEST(StorageMigrations, DatabaseMissingATableIsRefusedWithAnError) {
    TempDatabase database;
    { ASSERT_NE(testing::open_or_die(database.path()), nullptr); }
    {
        auto connection = sqlite::Connection::open(database.path(), false);
        ASSERT_TRUE(connection);
        ASSERT_TRUE(connection->exec("DROP TABLE move_journal"));
    }
    auto refused = SqliteRepository::open(database.path());
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("move_journal"), std::string::npos)
        << refused.error().message;
}

// Opens a file written at an older version (which migrates it to the latest) and reads back its
// game "old"; nullopt, with the failure reported, when either step goes wrong.
std::optional<StoredGame> upgraded_old_game(const TempDatabase& database) {
    auto repository = testing::open_or_die(database.path());
    if (repository == nullptr) {
        ADD_FAILURE() << "the old file does not open";
        return std::nullopt;
    }
    EXPECT_EQ(user_version(database.path()),
              static_cast<std::int64_t>(embedded_migrations().size()));
    auto loaded = repository->load("old");
    if (!loaded || !loaded->has_value()) {
        ADD_FAILURE() << "the old game does not load";
        return std::nullopt;
    }
    return std::move(**loaded);
}

// A file written before version 5 (moves and journal rows without a check flag) opens at the
// latest version with its moves whole, each read back without a flag: not as "no check".
TEST(StorageMigrations, MovesWrittenBeforeTheCheckColumnReadBackWithoutAFlag) {
    TempDatabase database;
    {
        auto connection = sqlite::Connection::open(database.path(), true);
        ASSERT_TRUE(connection);
        ASSERT_EQ(migrate(*connection, embedded_migrations().first(4)).value_or(-1), 4);
        ASSERT_TRUE(connection->exec(
            "INSERT INTO games (id, variant, initial_position, status, seq, ply, created_ms, "
            "updated_ms) VALUES ('old', 'chess', 'startpos', 'playing', 2, 2, 1, 1);"
            "INSERT INTO moves (game_id, ply, move, notation, position, seq, played_ms) "
            "VALUES ('old', 1, 'e2e4', 'e4', 'p1', 1, 1);"
            "INSERT INTO move_journal (game_id, ply, move, notation, position, seq, played_ms, "
            "first_clock_ms, second_clock_ms, game_seq, game_ply, updated_ms) "
            "VALUES ('old', 2, 'e7e5', 'e5', 'p2', 2, 2, 0, 0, 2, 2, 2);"));
    }
    const auto old = upgraded_old_game(database);
    ASSERT_TRUE(old);
    ASSERT_EQ(old->moves.size(), 2U);
    EXPECT_EQ(old->moves[0].move, "e2e4");
    EXPECT_EQ(old->moves[1].move, "e7e5");
    EXPECT_FALSE(old->moves[0].check.has_value());
    EXPECT_FALSE(old->moves[1].check.has_value());
}

// A file written before version 7 (moves and journal rows without a lag credit) opens at the
// latest version with its moves whole, each read back without a credit: not as "0 credited".
TEST(StorageMigrations, MovesWrittenBeforeTheLagColumnReadBackWithoutACredit) {
    TempDatabase database;
    {
        auto connection = sqlite::Connection::open(database.path(), true);
        ASSERT_TRUE(connection);
        ASSERT_EQ(migrate(*connection, embedded_migrations().first(5)).value_or(-1), 5);
        ASSERT_TRUE(connection->exec(
            "INSERT INTO games (id, variant, initial_position, status, seq, ply, created_ms, "
            "updated_ms) VALUES ('old', 'chess', 'startpos', 'playing', 2, 2, 1, 1);"
            "INSERT INTO moves (game_id, ply, move, notation, position, clock_ms, think_ms, seq, "
            "played_ms, in_check) VALUES ('old', 1, 'e2e4', 'e4', 'p1', 60000, 900, 1, 1, 0);"
            "INSERT INTO move_journal (game_id, ply, move, notation, position, clock_ms, "
            "think_ms, seq, played_ms, in_check, first_clock_ms, second_clock_ms, game_seq, "
            "game_ply, updated_ms) VALUES ('old', 2, 'e7e5', 'e5', 'p2', 60000, 800, 2, 2, 0, "
            "60000, 60000, 2, 2, 2);"));
    }
    const auto old = upgraded_old_game(database);
    ASSERT_TRUE(old);
    ASSERT_EQ(old->moves.size(), 2U);
    EXPECT_EQ(old->moves[0].think_ms, 900);
    EXPECT_EQ(old->moves[1].think_ms, 800);
    EXPECT_FALSE(old->moves[0].lag_ms.has_value());
    EXPECT_FALSE(old->moves[1].lag_ms.has_value());
}

TEST(StorageMigrations, AppliesOnlyThePendingMigrationsInOrder) {
    TempDatabase database;
    auto connection = sqlite::Connection::open(database.path(), true);
    ASSERT_TRUE(connection);
    const Migration steps[] = {
        {1, "0001_a.sql", "CREATE TABLE a (x INTEGER);"},
        {2, "0002_b.sql", "CREATE TABLE b (y INTEGER); INSERT INTO a VALUES (2);"},
    };
    EXPECT_EQ(migrate(*connection, std::span(steps, 1)).value_or(-1), 1);
    EXPECT_EQ(count_tables(*connection, "b"), 0);
    EXPECT_EQ(migrate(*connection, steps).value_or(-1), 2);
    EXPECT_EQ(count_tables(*connection, "b"), 1);
    EXPECT_EQ(connection->query_int64("SELECT count(*) FROM a").value_or(-1), 1);
    // Already current: nothing runs again.
    EXPECT_EQ(migrate(*connection, steps).value_or(-1), 2);
    EXPECT_EQ(connection->query_int64("SELECT count(*) FROM a").value_or(-1), 1);
}

TEST(StorageMigrations, FailingMigrationLeavesTheDatabaseAsItWas) {
    TempDatabase database;
    auto connection = sqlite::Connection::open(database.path(), true);
    ASSERT_TRUE(connection);
    const Migration steps[] = {
        {1, "0001_a.sql", "CREATE TABLE a (x INTEGER);"},
        {2, "0002_broken.sql", "CREATE TABLE broken ("},
    };
    auto migrated = migrate(*connection, steps);
    ASSERT_FALSE(migrated);
    EXPECT_NE(migrated.error().message.find("0002_broken.sql"), std::string::npos);
    EXPECT_EQ(connection->query_int64("PRAGMA user_version").value_or(-1), 0);
    EXPECT_EQ(count_tables(*connection, "a"), 0);
}

TEST(StorageMigrations, InMemoryAndUriPathsAreRefused) {
    EXPECT_FALSE(SqliteRepository::open(":memory:"));
    EXPECT_FALSE(SqliteRepository::open(""));
    EXPECT_FALSE(SqliteRepository::open("file:x.db?mode=memory"));
}

TEST(StorageMigrations, MissingFolderIsAnErrorNotAnException) {
    auto opened = SqliteRepository::open("/nonexistent-arbiter-folder/arbiter.db");
    ASSERT_FALSE(opened);
    EXPECT_NE(opened.error().message.find("/nonexistent-arbiter-folder"), std::string::npos);
}

// Every filtered list of stored games (`games`, GET /api/games) searches an index that gives
// its order: no walk over every game, and no sort.
TEST(StorageQueryPlans, FilteredListsSearchAnIndexInListOrder) {
    TempDatabase database;
    {
        auto repository = testing::open_or_die(database.path());
        ASSERT_NE(repository, nullptr);
    }
    auto connection = sqlite::Connection::open(database.path(), false);
    ASSERT_TRUE(connection);
    std::vector<GameQuery> queries(6);
    queries[0].status = protocol::GameStatus::ended;
    queries[1].variant = rules::Variant::xiangqi;
    queries[2].status = protocol::GameStatus::waiting;
    queries[2].variant = rules::Variant::draughts;
    queries[3] = queries[1];
    queries[3].before = "g1";
    queries[4] = queries[2];
    queries[4].include_private = true;
    queries[5] = queries[0];
    queries[5].before = "g1";
    for (const auto& query : queries) {
        const std::string sql = detail::list_games_sql(query);
        auto plan = connection->prepare("EXPLAIN QUERY PLAN " + sql);
        ASSERT_TRUE(plan) << sql;
        std::string details;
        while (plan->step().value_or(false)) {
            details += plan->column_text(3) + "\n";
        }
        EXPECT_EQ(details.find("SCAN"), std::string::npos) << sql << "\n" << details;
        EXPECT_NE(details.find("SEARCH games USING INDEX games_by_"), std::string::npos)
            << sql << "\n"
            << details;
        EXPECT_EQ(details.find("TEMP B-TREE"), std::string::npos) << sql << "\n" << details;
    }
}

}  // namespace
}  // namespace arbiter::server::storage
