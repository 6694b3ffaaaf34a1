#pragma once
/// \file
/// What each AccountIntent writes in SQLite, inside a write transaction the caller holds: the
/// accounts' sibling of IntentWriter, run by the same group-commit writer. Internal to
/// arbiter_storage.

#include "common/core/expected.hpp"
#include "server/storage/account_store.hpp"
#include "server/storage/sqlite.hpp"

namespace arbiter::server::storage::detail {

/// The prepared statements of the account writes, compiled once. A write that does not apply
/// (a username taken, a session for no user) fails, and the caller rolls the transaction back.
class AccountWriter {
  public:
    static Expected<AccountWriter, StorageError> prepare(sqlite::Connection& connection);

    /// Writes one intent inside the caller's open transaction.
    Expected<void, StorageError> apply(const AccountIntent& intent);

  private:
    Expected<void, StorageError> write(const CreateUser& create);
    Expected<void, StorageError> write(const CreateSession& create);
    Expected<void, StorageError> write(const DeleteSession& end);
    Expected<void, StorageError> write(const DeleteOtherSessions& end);
    Expected<void, StorageError> write(const DeleteUser& deletion);
    Expected<void, StorageError> write(const SetPasswordHash& change);

    sqlite::Connection* connection_ = nullptr;
    sqlite::Statement insert_user_;
    sqlite::Statement insert_session_;
    sqlite::Statement delete_session_;
    sqlite::Statement delete_other_sessions_;
    sqlite::Statement mark_user_deleted_;
    sqlite::Statement delete_user_sessions_;
    sqlite::Statement set_password_hash_;
};

}  // namespace arbiter::server::storage::detail
