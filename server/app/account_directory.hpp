#pragma once
/// \file
/// Who is signed in, known without a database read (issue 40): the hub resolves a connection's
/// session token (its upgrade's cookie, or `hello.token`) and checks a guest's name on the
/// network thread that handles the message, where a read of the store would stall every
/// connection behind it. The directory holds, in memory: each live session's token hash and its
/// account, every registered username key (deleted accounts' too: their names stay taken), and
/// which accounts are deleted. It is loaded from the store at start (AccountStore::load_accounts)
/// and updated by Accounts once each change has committed, so it never knows of a session the
/// store does not hold.
///
/// One node only: with several server nodes sharing accounts (issue 43), another node's sign-in
/// would be missing here, and a miss will need a read-through to the store (off the network
/// thread) rather than the answer "unknown".

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "server/app/connections.hpp"
#include "server/storage/account_store.hpp"

namespace arbiter::server::app {

/// Sessions and registered names, in memory. Thread-safe; one lock, never held while calling out.
class AccountDirectory {
  public:
    /// Replaces everything with what the store holds.
    void load(const storage::AccountSnapshot& snapshot);

    /// The account whose live session hashes to `token_hash`; nullopt for an unknown or ended
    /// session, or a deleted account's.
    std::optional<AccountUser> session_user(const std::string& token_hash) const;
    /// Whether `name` equals a registered username, ignoring case (deleted accounts included).
    bool registered(std::string_view name) const;
    /// Whether the account `user_id` has been deleted.
    bool deleted(std::int64_t user_id) const;

    // After a committed change (Accounts):
    /// A player signed up as `username`.
    void signed_up(std::string_view username);
    /// `user` signed in: a session whose token hashes to `token_hash`.
    void signed_in(const std::string& token_hash, AccountUser user);
    /// The session hashing to `token_hash` ended (sign-out).
    void signed_out(const std::string& token_hash);
    /// Every session of `user_id` ended but the one hashing to `keep_token_hash` (a password
    /// change; empty: none kept).
    void other_sessions_ended(std::int64_t user_id, const std::string& keep_token_hash);
    /// The account `user_id` was deleted: its sessions end, its name stays taken.
    void account_deleted(std::int64_t user_id);

    /// Live sessions held (for tests and gauges).
    std::size_t session_count() const;

  private:
    void end_sessions_locked(std::int64_t user_id, const std::string& keep_token_hash);

    mutable std::mutex mutex_;
    std::unordered_map<std::string, AccountUser> sessions_;  ///< token hash -> account
    std::unordered_set<std::string> username_keys_;          ///< app::username_key of each
    std::unordered_set<std::int64_t> deleted_;               ///< users.id of deleted accounts
};

}  // namespace arbiter::server::app
