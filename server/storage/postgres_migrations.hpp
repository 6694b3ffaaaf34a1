#pragma once
/// \file
/// The PostgreSQL schema's migrations: schema/postgres/NNNN_name.sql, embedded at build time like
/// SQLite's (embed_migrations.cmake), with their own numbering. The database records each applied
/// version as a row of `schema_migrations` (PostgreSQL has no user_version).

#include <span>

#include "common/core/expected.hpp"
#include "server/storage/migration.hpp"
#include "server/storage/pg.hpp"
#include "server/storage/stored_game.hpp"

namespace arbiter::server::storage {

/// The PostgreSQL migrations compiled into this binary, versions 1, 2, … in order.
std::span<const Migration> postgres_migrations() noexcept;

/// Brings the database (the first schema of the connection's search_path) up to the last of
/// `migrations`, numbered 1, 2, … in order: every pending one and its schema_migrations row in ONE
/// transaction, so a failure leaves the database as it was. A transaction-scoped advisory lock
/// lets one node of a cluster migrate while the others wait. Refuses a database whose version is
/// newer than the last migration known. Returns the resulting version.
Expected<int, StorageError> migrate_postgres(pg::Connection& connection,
                                             std::span<const Migration> migrations);

}  // namespace arbiter::server::storage
