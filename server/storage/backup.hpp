#pragma once
/// \file
/// A consistent copy of a live SQLite database (the repository's backup(), and
/// `arbiter-server --backup` beside a running server). Internal to arbiter_storage.

#include <string>

#include "common/core/expected.hpp"
#include "server/storage/sqlite_options.hpp"
#include "server/storage/stored_game.hpp"

namespace arbiter::server::storage::detail {

/// Copies one consistent snapshot of the database file `database` into `path` while writes go
/// on (SQLite's online backup, on a connection of its own). Writes `path` + ".partial" first and
/// renames it into place, then syncs the folder, so `path` is either the complete copy or
/// untouched. Refuses to copy a database onto itself.
Expected<void, StorageError> backup_database(const std::string& database, const std::string& path,
                                             const SqliteOptions& options);

}  // namespace arbiter::server::storage::detail
