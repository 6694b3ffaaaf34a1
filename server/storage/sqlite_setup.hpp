#pragma once
/// \file
/// How every connection of a SqliteRepository is opened, and the small helpers its parts share.
/// Internal to arbiter_storage.

#include <cstdint>
#include <string>
#include <string_view>

#include "common/core/expected.hpp"
#include "server/storage/sqlite.hpp"
#include "server/storage/sqlite_options.hpp"

namespace arbiter::server::storage::detail {

/// Opens one connection with the settings every connection needs: WAL, `options.synchronous`,
/// foreign keys, statement journals in memory. Only the first one (the writer) may `create` the
/// file; the others open what it created and migrated.
Expected<sqlite::Connection, StorageError> open_connection(const std::string& path,
                                                           const SqliteOptions& options,
                                                           bool create);

/// Caps the database file of `connection` at `max_bytes` (0: no cap).
Expected<void, StorageError> limit_size(sqlite::Connection& connection, std::uint64_t max_bytes);

/// `error` with what was being done before it: "<doing>: <message>".
StorageError prefixed(std::string_view doing, const StorageError& error);

}  // namespace arbiter::server::storage::detail
