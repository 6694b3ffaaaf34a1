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
/// On a cluster (issue 43) each node has its own directory: every change Accounts makes here is
/// told to the listener, which broadcasts it, and another node's changes come in through
/// apply(); the whole is loaded again from PostgreSQL when the bus may have lost some
/// (cluster_fanout.hpp). So a session signed in on one node is known on the others a bus hop
/// later, and at worst after the next reload.

#include <cstdint>
#include <functional>
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

/// One change of the directory: as Accounts makes it after a commit, or as another node's
/// broadcast brings it. Fields a kind does not use are 0 or "".
struct DirectoryChange {
    enum class Kind : std::uint8_t {
        signed_up,             ///< `username` registered
        signed_in,             ///< a session of `user_id` (`username`) hashing to `token_hash`
        signed_out,            ///< the session hashing to `token_hash` ended
        other_sessions_ended,  ///< every session of `user_id` ended but `token_hash`'s
        account_deleted,       ///< `user_id` deleted: its sessions end, its name stays taken
    };
    Kind kind = Kind::signed_up;
    std::int64_t user_id = 0;
    std::string username;
    std::string token_hash;
    friend bool operator==(const DirectoryChange&, const DirectoryChange&) = default;
};

/// Sessions and registered names, in memory. Thread-safe; one lock, never held while calling out.
class AccountDirectory {
  public:
    /// Replaces everything with what the store holds.
    void load(const storage::AccountSnapshot& snapshot);
    /// A reload while the directory serves (cluster_fanout.hpp): call begin_reload() before the
    /// store is read and finish_reload() with what it read. The changes made in between are
    /// applied again over the snapshot, in their order (each is idempotent), so that a sign-in
    /// committed while the snapshot was read is not lost with the older snapshot.
    void begin_reload();
    void finish_reload(const storage::AccountSnapshot& snapshot);
    /// The store could not be read: the directory stays as it is.
    void cancel_reload();

    /// The account whose live session hashes to `token_hash`; nullopt for an unknown or ended
    /// session, or a deleted account's.
    std::optional<AccountUser> session_user(const std::string& token_hash) const;
    /// Whether `name` equals a registered username, ignoring case (deleted accounts included).
    bool registered(std::string_view name) const;
    /// Whether the account `user_id` has been deleted.
    bool deleted(std::int64_t user_id) const;

    /// Who is told of each change made by the five calls below (this node's own), after it is
    /// made and outside the lock; not of apply(). Set once, before the directory is shared.
    void on_local_change(std::function<void(const DirectoryChange&)> listener);
    /// Another node's change.
    void apply(const DirectoryChange& change);

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
    void apply_locked(const DirectoryChange& change);
    /// Changes kept for finish_reload() at most: past it the reload gives up keeping them (and
    /// the next reload mends what that missed).
    static constexpr std::size_t kMaxChangesDuringReload = 1U << 16;
    bool reloading_ = false;
    bool reload_overflowed_ = false;
    std::vector<DirectoryChange> during_reload_;
    /// Applies `change`, then tells the listener.
    void local(const DirectoryChange& change);

    std::function<void(const DirectoryChange&)> listener_;

    mutable std::mutex mutex_;
    std::unordered_map<std::string, AccountUser> sessions_;  ///< token hash -> account
    std::unordered_set<std::string> username_keys_;          ///< app::username_key of each
    std::unordered_set<std::int64_t> deleted_;               ///< users.id of deleted accounts
};

}  // namespace arbiter::server::app
