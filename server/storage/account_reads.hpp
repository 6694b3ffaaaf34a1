#pragma once
/// \file
/// The reads of accounts on SQLite, each one statement (so one snapshot without a transaction).
/// Internal to arbiter_storage.

#include <cstdint>
#include <optional>
#include <string>

#include "common/core/expected.hpp"
#include "server/storage/account_store.hpp"
#include "server/storage/sqlite.hpp"

namespace arbiter::server::storage::detail {

/// The user whose username_key is `key`, or nullopt.
Expected<std::optional<UserRow>, StorageError> find_user_by_key(sqlite::Connection& connection,
                                                                const std::string& key);
/// The user with this id, or nullopt.
Expected<std::optional<UserRow>, StorageError> find_user_by_id(sqlite::Connection& connection,
                                                               std::int64_t id);
/// Every user and session.
Expected<AccountSnapshot, StorageError> load_accounts(sqlite::Connection& connection);
/// The session with this token hash, or nullopt.
Expected<std::optional<SessionRow>, StorageError> find_session(sqlite::Connection& connection,
                                                               const std::string& token_hash);

}  // namespace arbiter::server::storage::detail
