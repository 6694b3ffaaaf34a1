#pragma once
/// \file
/// Where accounts live (issue 40): registered players and their signed-in sessions. Like games,
/// every write is one intent that says what happened, queued to the same single writer as the
/// games' writes (SQLite keeps one writer); reads are synchronous and meant for a worker thread,
/// never a network thread. Only hashes are stored: Argon2id strings for passwords, SHA-256 hex
/// for session tokens.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/core/expected.hpp"
#include "server/storage/stored_game.hpp"

namespace arbiter::server::storage {

/// A registered player.
struct UserRow {
    std::int64_t id = 0;
    std::string username;      ///< as typed at sign-up, shown
    std::string username_key;  ///< lower case, unique (app::username_key)
    std::string password_hash;
    std::int64_t created_ms = 0;
    std::optional<std::int64_t> deleted_ms;
    friend bool operator==(const UserRow&, const UserRow&) = default;
};

/// A signed-in session: the SHA-256 hex of its token, and whose it is.
struct SessionRow {
    std::string token_hash;
    std::int64_t user_id = 0;
    std::int64_t created_ms = 0;
    std::int64_t last_seen_ms = 0;
    friend bool operator==(const SessionRow&, const SessionRow&) = default;
};

/// A player signs up. Fails with StorageError::taken, changing nothing, when a user (deleted
/// or not) already has the same username_key.
struct CreateUser {
    std::string username;
    std::string username_key;
    std::string password_hash;
    std::int64_t created_ms = 0;
};

/// A player signed in: the new session. Fails when the user does not exist.
struct CreateSession {
    SessionRow session;
};

/// A session ends (sign-out). Ending one that does not exist is not an error: a sign-out sent
/// twice ends the same session.
struct DeleteSession {
    std::string token_hash;
};

/// Every session of `user_id` ends but the one whose hash is `keep_token_hash` (none when it is
/// empty).
struct DeleteOtherSessions {
    std::int64_t user_id = 0;
    std::string keep_token_hash;
};

/// A user's password hash is replaced (a password change, or a rehash at a new cost). With
/// `keep_token_hash`, every session of the user but that one ends in the same change, as a
/// password change must. Fails when the user does not exist.
struct SetPasswordHash {
    std::int64_t user_id = 0;
    std::string password_hash;
    std::optional<std::string> keep_token_hash;
};

/// An account is deleted (by its owner, or by the operator): deleted_ms is set and every
/// session of it ends, in one change. The row stays, so that its games keep their player and its
/// name stays taken. Fails when there is no such user or it is deleted already.
struct DeleteUser {
    std::int64_t user_id = 0;
    std::int64_t deleted_ms = 0;
};

/// One atomic change to accounts.
using AccountIntent = std::variant<CreateUser, CreateSession, DeleteSession, DeleteOtherSessions,
                                   SetPasswordHash, DeleteUser>;

/// What the server keeps in memory of accounts (app::AccountDirectory): every user's name and
/// whether it is deleted, and every session. No hashes of passwords.
struct AccountSnapshot {
    struct User {
        std::int64_t id = 0;
        std::string username;
        std::string username_key;
        bool deleted = false;
        friend bool operator==(const User&, const User&) = default;
    };
    struct Session {
        std::string token_hash;
        std::int64_t user_id = 0;
        friend bool operator==(const Session&, const Session&) = default;
    };
    std::vector<User> users;
    std::vector<Session> sessions;
};

/// Accounts' storage. Thread-safe: any thread may call any member.
class AccountStore {
  public:
    /// Called once the write's transaction committed (ok) or failed; from the writer's thread.
    using Done = std::function<void(Expected<void, StorageError>)>;

    virtual ~AccountStore() = default;

    /// Queues one intent; writes commit in the order submitted, with the games' writes, and each
    /// call's `done` (which may be empty) runs once.
    virtual void write_account(AccountIntent intent, Done done) = 0;

    /// The user whose username_key is `key` (deleted or not), or nullopt.
    virtual Expected<std::optional<UserRow>, StorageError> find_user(const std::string& key) = 0;
    /// The user with this id, or nullopt.
    virtual Expected<std::optional<UserRow>, StorageError> find_user_by_id(std::int64_t id) = 0;
    /// The session whose token hashes to `token_hash`, or nullopt.
    virtual Expected<std::optional<SessionRow>, StorageError> find_session(
        const std::string& token_hash) = 0;
    /// Every user and session, read in one snapshot (at start).
    virtual Expected<AccountSnapshot, StorageError> load_accounts() = 0;
};

}  // namespace arbiter::server::storage
