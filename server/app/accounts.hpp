#pragma once
/// \file
/// Accounts (issue 40): sign-up, sign-in, sign-out, a password change and a player's public
/// profile, over storage::AccountStore. Nothing here runs long on the caller's thread: password
/// hashing (Argon2id, tens of milliseconds and 64 MiB at the interactive cost) runs on the
/// hashing worker, and the store's reads on the reads queue, both bounded; when one is full the
/// answer is AccountProblem::busy. Sign-ins are slowed by SignInThrottle. Every operation
/// answers once through its callback, on whichever thread finished it. Passwords and tokens are
/// never logged, and never part of an error.

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "common/core/expected.hpp"
#include "server/app/account_directory.hpp"
#include "server/app/password_hash.hpp"
#include "server/app/read_worker.hpp"
#include "server/app/sign_in_throttle.hpp"
#include "server/storage/account_store.hpp"

namespace arbiter::server::app {

/// Why an account operation did not go ahead.
enum class AccountProblem {
    invalid,            ///< a rule is broken: `reason` says which (HTTP 400)
    taken,              ///< the username is registered already (409)
    wrong_credentials,  ///< no such user, or not its password: never says which (401)
    not_signed_in,      ///< no session for the token (401)
    not_found,          ///< no such user (404)
    slowed,             ///< too many failed sign-ins lately: try after `retry_after` (429)
    busy,               ///< the hashing worker or the reads queue is full (503)
    storage,            ///< the store failed (500)
};

struct AccountError {
    AccountProblem problem = AccountProblem::storage;
    std::string reason;  ///< for the client; never holds a password or a token
    std::chrono::milliseconds retry_after{0};
};

/// A new session: the name as registered, and the token (shown to its owner once, stored hashed).
struct SignedIn {
    std::string username;
    std::string token;
};

/// Who a session token belongs to.
struct SessionUser {
    std::int64_t user_id = 0;
    std::string username;
};

/// What anyone may see of a player.
struct Profile {
    std::string username;
    std::int64_t created_ms = 0;
};

/// The clocks an Accounts reads: wall time for the rows, steady time for the throttle.
struct AccountClocks {
    std::function<std::int64_t()> wall_ms;
    std::function<std::chrono::steady_clock::time_point()> steady;
};
/// The system's clocks.
AccountClocks system_account_clocks();

/// The operator deletes the account `username` (any case), `arbiter-server --delete-account`:
/// waits for the write to commit, and answers what it did, or why nothing was done (no such
/// account, a storage failure). An account deleted already is left as it is.
Expected<std::string, std::string> delete_account_now(storage::AccountStore& store,
                                                      const std::string& username,
                                                      std::int64_t now_ms);

/// Thread-safe.
class Accounts {
  public:
    template <class T>
    using Reply = std::function<void(Expected<T, AccountError>)>;

    /// `directory`: told of each committed change, so that the hub knows sessions and names
    /// without a read. `hashing`: one thread for password hashes (its queue bounds the hashes
    /// waiting); `reads`: where the store is read. `cost`: the Argon2id cost of new hashes.
    Accounts(storage::AccountStore& store, AccountDirectory& directory, ReadQueue& hashing,
             ReadQueue& reads, PasswordCost cost, AccountClocks clocks = system_account_clocks());

    /// Registers `username` with `password`; answers the username as registered.
    void sign_up(const std::string& username, std::string password, Reply<std::string> reply);
    /// A new session for `username` when `password` is its password. `address` is the client's
    /// (for the throttle).
    void sign_in(const std::string& username, std::string password, std::string address,
                 Reply<SignedIn> reply);
    /// Ends the session of `token` (ending an ended one is no error).
    void sign_out(const std::string& token, Reply<void> reply);
    /// Replaces the password of `token`'s user when `password` is the current one, and ends
    /// every other session of that user.
    void change_password(std::string token, std::string password, std::string new_password,
                         std::string address, Reply<void> reply);
    /// Deletes the account of `token` when `password` is its password: every session of it
    /// ends, its games stay, its name stays taken (a deleted account cannot sign in again).
    void delete_account(std::string token, std::string password, std::string address,
                        Reply<void> reply);
    /// Whose session `token` is.
    void user_of(std::string token, Reply<SessionUser> reply);
    /// The public profile of `username` (any case).
    void profile(const std::string& username, Reply<Profile> reply);

  private:
    /// Runs `work` on `queue`, or answers busy through `reply` when the queue is full.
    template <class T>
    void post(ReadQueue& queue, Reply<T> reply, std::function<void(const Reply<T>&)> work);
    /// On the hashing worker: whether `password` is `user`'s, taking the same time when there is
    /// no such user (a hash of nothing is verified instead), so that the time does not tell
    /// whether a name is registered.
    bool verify_on_worker(const std::optional<storage::UserRow>& user, const std::string& password);
    /// On the hashing worker: the live user whose session hashes to `session_hash`, when
    /// `password` is its password (throttled as a sign-in is).
    Expected<storage::UserRow, AccountError> verify_session_password(
        const std::string& session_hash, const std::string& password, const std::string& address,
        std::string_view doing);
    std::optional<std::chrono::milliseconds> sign_in_wait(const std::string& address,
                                                          const std::string& key);
    void note_sign_in(const std::string& address, const std::string& key, bool succeeded);

    storage::AccountStore& store_;
    AccountDirectory& directory_;
    ReadQueue& hashing_;
    ReadQueue& reads_;
    const PasswordCost cost_;
    const AccountClocks clocks_;
    std::mutex throttle_mutex_;
    SignInThrottle throttle_;
    /// A hash of a random password, made on the worker the first time it is needed.
    std::string decoy_hash_;
};

}  // namespace arbiter::server::app
