#include "server/storage/postgres_migrations.hpp"

#include <string>

namespace arbiter::server::storage {

Expected<int, StorageError> migrate_postgres(pg::Connection& connection,
                                             std::span<const Migration> migrations) {
    for (std::size_t i = 0; i < migrations.size(); ++i) {
        ARBITER_ASSERT(migrations[i].version == static_cast<int>(i) + 1);
    }
    const int latest = static_cast<int>(migrations.size());
    const auto failed = [](const std::string& what, const StorageError& error) {
        return unexpected(StorageError{what + ": " + error.message});
    };

    auto transaction = pg::Transaction::begin(connection);
    if (!transaction) {
        return failed("starting the schema migration", transaction.error());
    }
    // Held to the end of the transaction: two nodes starting on a new database cannot both
    // apply migration 1. The key is the text's hash, the same on every node.
    if (auto locked = connection.exec("SELECT pg_advisory_xact_lock(hashtext('arbiter_schema'))");
        !locked) {
        return failed("locking the schema migration", locked.error());
    }
    if (auto created = connection.exec(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name "
            "text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
        !created) {
        return failed("creating schema_migrations", created.error());
    }
    auto current = connection.query("SELECT coalesce(max(version), 0) FROM schema_migrations");
    if (!current) {
        return failed("reading the schema version", current.error());
    }
    const std::int64_t version = current->integer(0, 0);
    if (version > latest) {
        return unexpected(StorageError{
            "the database schema is version " + std::to_string(version) +
            " but this server knows only up to version " + std::to_string(latest) +
            "; it was written by a newer Arbiter: upgrade the server or use another --db"});
    }
    for (auto index = static_cast<std::size_t>(version); index < migrations.size(); ++index) {
        const Migration& migration = migrations[index];
        if (auto applied = connection.exec(migration.sql); !applied) {
            return failed("migration " + std::string(migration.name) + " failed", applied.error());
        }
        auto recorded =
            connection.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                             pg::Params().integer(migration.version).text(migration.name));
        if (!recorded) {
            return failed("recording migration " + std::string(migration.name), recorded.error());
        }
    }
    if (auto committed = transaction->commit(); !committed) {
        return failed("committing the schema migration", committed.error());
    }
    return latest;
}

}  // namespace arbiter::server::storage
