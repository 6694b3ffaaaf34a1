#include <gtest/gtest.h>

#include <filesystem>

#include "storage_test_support.hpp"

namespace arbiter::server::storage {
namespace {

using testing::TempDatabase;

sqlite::Connection open_with_table(const std::string& path) {
    auto connection = sqlite::Connection::open(path, true);
    EXPECT_TRUE(connection.has_value());
    EXPECT_EQ(connection->query_text("PRAGMA journal_mode = WAL").value_or(""), "wal");
    EXPECT_TRUE(
        connection->exec("PRAGMA foreign_keys = ON"
                         "; CREATE TABLE parent (id INTEGER PRIMARY KEY)"
                         "; CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER"
                         "  REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)"));
    return std::move(*connection);
}

std::int64_t count(sqlite::Connection& connection, std::string_view table) {
    return connection.query_int64("SELECT count(*) FROM " + std::string(table)).value_or(-1);
}

// BEGIN and COMMIT are statements each connection compiles once and runs again: each
// transaction after the first must begin, commit and roll back as the first did.
TEST(SqliteTransaction, EachOfManyTransactionsOnOneConnectionCommitsOrRollsBack) {
    TempDatabase database;
    auto connection = open_with_table(database.path());
    for (int i = 0; i < 5; ++i) {
        auto immediate = sqlite::Transaction::begin(connection, sqlite::TransactionKind::immediate);
        ASSERT_TRUE(immediate.has_value()) << immediate.error().message;
        ASSERT_TRUE(connection.exec("INSERT INTO parent DEFAULT VALUES"));
        ASSERT_TRUE(immediate->commit());
        EXPECT_FALSE(connection.in_transaction());

        auto deferred = sqlite::Transaction::begin(connection, sqlite::TransactionKind::deferred);
        ASSERT_TRUE(deferred.has_value()) << deferred.error().message;
        EXPECT_TRUE(connection.in_transaction());
        ASSERT_TRUE(connection.exec("INSERT INTO parent DEFAULT VALUES"));
        // Not committed: rolled back when it goes out of scope.
    }
    EXPECT_FALSE(connection.in_transaction());
    EXPECT_EQ(count(connection, "parent"), 5);
}

// A COMMIT that fails leaves the transaction open (SQLite's rule): the caller's Transaction
// rolls it back, and the connection's next transaction commits as if nothing had happened.
TEST(SqliteTransaction, AFailedCommitLeavesItOpenAndTheNextTransactionCommits) {
    TempDatabase database;
    auto connection = open_with_table(database.path());
    {
        auto transaction =
            sqlite::Transaction::begin(connection, sqlite::TransactionKind::immediate);
        ASSERT_TRUE(transaction.has_value());
        ASSERT_TRUE(connection.exec("INSERT INTO child (parent) VALUES (42)"));
        auto committed = transaction->commit();
        ASSERT_FALSE(committed.has_value());
        EXPECT_NE(committed.error().message.find("FOREIGN KEY"), std::string::npos)
            << committed.error().message;
        EXPECT_NE(committed.error().message.find("COMMIT"), std::string::npos)
            << committed.error().message;
        EXPECT_TRUE(connection.in_transaction());
    }
    EXPECT_FALSE(connection.in_transaction());
    EXPECT_EQ(count(connection, "child"), 0);

    auto transaction = sqlite::Transaction::begin(connection, sqlite::TransactionKind::immediate);
    ASSERT_TRUE(transaction.has_value()) << transaction.error().message;
    ASSERT_TRUE(connection.exec("INSERT INTO parent (id) VALUES (42)"));
    ASSERT_TRUE(connection.exec("INSERT INTO child (parent) VALUES (42)"));
    auto committed = transaction->commit();
    ASSERT_TRUE(committed.has_value()) << committed.error().message;
    EXPECT_EQ(count(connection, "child"), 1);
}

// The last connection to a WAL database checkpoints and deletes the WAL when it closes, so a
// WAL file left behind means a close that failed (sqlite3_close refuses while any statement of
// the connection is still compiled, as the kept BEGIN and COMMIT are until it ends them).
TEST(SqliteConnection, ClosesAfterItsTransactionsWhetherDestroyedOrAssignedOver) {
    TempDatabase database;
    const std::filesystem::path wal = database.path() + "-wal";
    {
        auto connection = open_with_table(database.path());
        auto transaction =
            sqlite::Transaction::begin(connection, sqlite::TransactionKind::immediate);
        ASSERT_TRUE(transaction.has_value());
        ASSERT_TRUE(transaction->commit());
        ASSERT_TRUE(std::filesystem::exists(wal));
    }
    EXPECT_FALSE(std::filesystem::exists(wal));

    TempDatabase other;
    auto connection = sqlite::Connection::open(database.path(), false);
    ASSERT_TRUE(connection.has_value());
    auto transaction = sqlite::Transaction::begin(*connection, sqlite::TransactionKind::deferred);
    ASSERT_TRUE(transaction.has_value());
    EXPECT_EQ(count(*connection, "parent"), 0);
    ASSERT_TRUE(transaction->commit());
    ASSERT_TRUE(std::filesystem::exists(wal));
    auto replacement = sqlite::Connection::open(other.path(), true);
    ASSERT_TRUE(replacement.has_value());
    *connection = std::move(*replacement);
    EXPECT_FALSE(std::filesystem::exists(wal));
}

// An empty view binds the empty text, whether or not it points anywhere: "" is how a row says
// "none" (a result, a reason), and std::string_view() is how such a term's name often comes.
// sqlite3_bind_text itself binds NULL for a null pointer.
TEST(SqliteStatement, AnEmptyViewBindsTheEmptyTextNotNull) {
    TempDatabase database;
    auto connection = open_with_table(database.path());
    ASSERT_TRUE(connection.exec("CREATE TABLE named (name TEXT NOT NULL)"));
    for (const bool copied : {true, false}) {
        auto insert = connection.prepare("INSERT INTO named (name) VALUES (?1)");
        ASSERT_TRUE(insert.has_value());
        if (copied) {
            insert->bind(1, std::string_view());
        } else {
            insert->bind_unowned(1, std::string_view());
        }
        auto inserted = insert->run();
        ASSERT_TRUE(inserted.has_value()) << inserted.error().message;
    }
    EXPECT_EQ(connection.query_int64("SELECT count(*) FROM named WHERE name = ''").value_or(-1), 2);
}

}  // namespace
}  // namespace arbiter::server::storage
