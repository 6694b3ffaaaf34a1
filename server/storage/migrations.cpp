#include "server/storage/migrations.hpp"

#include <string>

namespace arbiter::server::storage {

Expected<int, StorageError> migrate(sqlite::Connection& connection,
                                    std::span<const Migration> migrations) {
    for (std::size_t i = 0; i < migrations.size(); ++i) {
        ARBITER_ASSERT(migrations[i].version == static_cast<int>(i) + 1);
    }
    const int latest = static_cast<int>(migrations.size());

    // The write lock is taken before the version is read, so two processes opening the same
    // new file cannot both apply migration 1.
    auto transaction = sqlite::Transaction::begin(connection, sqlite::TransactionKind::immediate);
    if (!transaction) {
        return unexpected(
            StorageError{"starting the schema migration: " + transaction.error().message});
    }
    auto current = connection.query_int64("PRAGMA user_version");
    if (!current) {
        return unexpected(std::move(current).error());
    }
    if (*current > latest) {
        return unexpected(StorageError{
            "the database schema is version " + std::to_string(*current) +
            " but this server knows only up to version " + std::to_string(latest) +
            "; it was written by a newer Arbiter: upgrade the server or use another --db"});
    }
    if (*current < 0) {
        return unexpected(StorageError{"the database has a negative user_version (" +
                                       std::to_string(*current) + "); it is not an Arbiter db"});
    }
    for (auto index = static_cast<std::size_t>(*current); index < migrations.size(); ++index) {
        const Migration& migration = migrations[index];
        auto applied = connection.exec(migration.sql);
        if (!applied) {
            return unexpected(StorageError{"migration " + std::string(migration.name) +
                                           " failed: " + applied.error().message});
        }
    }
    if (*current == latest) {
        return latest;  // nothing to do; the transaction rolls back, having changed nothing
    }
    // PRAGMA takes no bound parameters; the value is our own integer, not outside input.
    auto versioned = connection.exec("PRAGMA user_version = " + std::to_string(latest));
    if (!versioned) {
        return unexpected(versioned.error());
    }
    auto committed = transaction->commit();
    if (!committed) {
        return unexpected(committed.error());
    }
    return latest;
}

}  // namespace arbiter::server::storage
