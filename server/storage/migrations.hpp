#pragma once
/// \file
/// Versioned schema migrations. The SQL lives in schema/migrations/NNNN_name.sql and is embedded
/// into the binary at build time (embed_migrations.cmake), so a server needs no schema folder at
/// run time. The database's version is `PRAGMA user_version`: 0 for an empty file, N once the
/// migration numbered N has been applied.

#include <span>
#include <string_view>

#include "common/core/expected.hpp"
#include "server/storage/migration.hpp"
#include "server/storage/sqlite.hpp"
#include "server/storage/stored_game.hpp"

namespace arbiter::server::storage {

/// The migrations compiled into this binary, versions 1, 2, … in order.
std::span<const Migration> embedded_migrations() noexcept;

/// Brings the database up to the last of `migrations` (which must be numbered 1, 2, … in order),
/// applying every pending one inside ONE immediate transaction together with the new
/// user_version, so a failure leaves the database exactly as it was. Refuses a database whose
/// version is newer than the last migration known. Returns the resulting version.
Expected<int, StorageError> migrate(sqlite::Connection& connection,
                                    std::span<const Migration> migrations);

}  // namespace arbiter::server::storage
