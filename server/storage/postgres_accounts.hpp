#pragma once
/// \file
/// Accounts on PostgreSQL (account_store.hpp): what each AccountIntent writes, inside the
/// writer's transaction, and the reads of users and sessions, on the reads' connection. The same
/// meaning as SQLite's account_writer.hpp and account_reads.hpp, through the same statements where
/// the dialects agree (intent_sql.hpp). Internal to arbiter_storage.

#include <cstdint>
#include <optional>
#include <string>

#include "common/core/expected.hpp"
#include "server/storage/account_store.hpp"
#include "server/storage/pg.hpp"

namespace arbiter::server::storage::detail {

/// Writes account intents through statements prepared once on its connection. A write that does
/// not apply (a username taken, a session for no user) fails, and the caller rolls back to before
/// it.
class PostgresAccountWriter {
  public:
    /// Prepares the statements on `connection` (again after every reconnection).
    static Expected<void, StorageError> prepare(pg::Connection& connection);

    explicit PostgresAccountWriter(pg::Connection& connection) noexcept
        : connection_(&connection) {}

    /// Writes one intent inside the caller's open transaction.
    Expected<void, StorageError> apply(const AccountIntent& intent);

  private:
    Expected<void, StorageError> write(const CreateUser& create);
    Expected<void, StorageError> write(const CreateSession& create);
    Expected<void, StorageError> write(const DeleteSession& end);
    Expected<void, StorageError> write(const DeleteOtherSessions& end);
    Expected<void, StorageError> write(const DeleteUser& deletion);
    Expected<void, StorageError> write(const SetPasswordHash& change);

    /// Runs the prepared statement `name`; the count of rows it changed.
    Expected<std::uint64_t, StorageError> changed(const std::string& name,
                                                  const pg::Params& params);

    pg::Connection* connection_;
};

/// The user whose username_key is `key` (deleted or not), or nullopt.
Expected<std::optional<UserRow>, StorageError> find_postgres_user_by_key(pg::Connection& connection,
                                                                         const std::string& key);
/// The user with this id, or nullopt.
Expected<std::optional<UserRow>, StorageError> find_postgres_user_by_id(pg::Connection& connection,
                                                                        std::int64_t id);
/// The session with this token hash, or nullopt.
Expected<std::optional<SessionRow>, StorageError> find_postgres_session(
    pg::Connection& connection, const std::string& token_hash);
/// Every user (by id) and session, inside the caller's read transaction (one snapshot).
Expected<AccountSnapshot, StorageError> load_postgres_accounts(pg::Connection& connection);

}  // namespace arbiter::server::storage::detail
