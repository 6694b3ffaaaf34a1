#include "server/app/account_directory.hpp"

#include <iterator>
#include <utility>

#include "server/app/account_rules.hpp"

namespace arbiter::server::app {

namespace {

struct Loaded {
    std::unordered_map<std::string, AccountUser> sessions;
    std::unordered_set<std::string> keys;
    std::unordered_set<std::int64_t> deleted;
};

Loaded read_snapshot(const storage::AccountSnapshot& snapshot) {
    Loaded loaded;
    std::unordered_map<std::int64_t, std::string> live;
    for (const auto& user : snapshot.users) {
        loaded.keys.insert(user.username_key);
        if (user.deleted) {
            loaded.deleted.insert(user.id);
        } else {
            live.emplace(user.id, user.username);
        }
    }
    for (const auto& session : snapshot.sessions) {
        // A deleted account's sessions are deleted with it; one left over signs nobody in.
        if (const auto user = live.find(session.user_id); user != live.end()) {
            loaded.sessions.emplace(session.token_hash, AccountUser{user->first, user->second});
        }
    }
    return loaded;
}

}  // namespace

void AccountDirectory::begin_reload() {
    std::lock_guard lock(mutex_);
    reloading_ = true;
    reload_overflowed_ = false;
    during_reload_.clear();
}

void AccountDirectory::finish_reload(const storage::AccountSnapshot& snapshot) {
    auto loaded = read_snapshot(snapshot);
    std::lock_guard lock(mutex_);
    const bool complete = reloading_ && !reload_overflowed_;
    reloading_ = false;
    if (!complete) {
        during_reload_.clear();
        return;  // keeps what it has: a snapshot without the changes since would lose some
    }
    sessions_ = std::move(loaded.sessions);
    username_keys_ = std::move(loaded.keys);
    deleted_ = std::move(loaded.deleted);
    for (const auto& change : during_reload_) {
        apply_locked(change);
    }
    during_reload_.clear();
}

void AccountDirectory::cancel_reload() {
    std::lock_guard lock(mutex_);
    reloading_ = false;
    during_reload_.clear();
}

void AccountDirectory::load(const storage::AccountSnapshot& snapshot) {
    auto loaded = read_snapshot(snapshot);
    std::lock_guard lock(mutex_);
    sessions_ = std::move(loaded.sessions);
    username_keys_ = std::move(loaded.keys);
    deleted_ = std::move(loaded.deleted);
}

std::optional<AccountUser> AccountDirectory::session_user(const std::string& token_hash) const {
    std::lock_guard lock(mutex_);
    const auto found = sessions_.find(token_hash);
    if (found == sessions_.end() || deleted_.contains(found->second.id)) {
        return std::nullopt;
    }
    return found->second;
}

bool AccountDirectory::registered(std::string_view name) const {
    // Usernames are ASCII (account_rules), so a key folds ASCII case only: a guest name with
    // other letters can never equal one, whatever its case.
    const std::string key = username_key(name);
    std::lock_guard lock(mutex_);
    return username_keys_.contains(key);
}

bool AccountDirectory::deleted(std::int64_t user_id) const {
    std::lock_guard lock(mutex_);
    return deleted_.contains(user_id);
}

void AccountDirectory::on_local_change(std::function<void(const DirectoryChange&)> listener) {
    listener_ = std::move(listener);
}

void AccountDirectory::apply(const DirectoryChange& change) {
    std::lock_guard lock(mutex_);
    if (reloading_) {
        if (during_reload_.size() < kMaxChangesDuringReload) {
            during_reload_.push_back(change);
        } else {
            reload_overflowed_ = true;
        }
    }
    apply_locked(change);
}

void AccountDirectory::apply_locked(const DirectoryChange& change) {
    using Kind = DirectoryChange::Kind;
    switch (change.kind) {
        case Kind::signed_up:
            username_keys_.insert(username_key(change.username));
            break;
        case Kind::signed_in:
            username_keys_.insert(username_key(change.username));
            sessions_.insert_or_assign(change.token_hash,
                                       AccountUser{change.user_id, change.username});
            break;
        case Kind::signed_out:
            sessions_.erase(change.token_hash);
            break;
        case Kind::other_sessions_ended:
            end_sessions_locked(change.user_id, change.token_hash);
            break;
        case Kind::account_deleted:
            deleted_.insert(change.user_id);
            end_sessions_locked(change.user_id, {});
            break;
    }
}

void AccountDirectory::local(const DirectoryChange& change) {
    apply(change);
    if (listener_) {
        listener_(change);
    }
}

void AccountDirectory::signed_up(std::string_view username) {
    local({DirectoryChange::Kind::signed_up, 0, std::string(username), {}});
}

void AccountDirectory::signed_in(const std::string& token_hash, AccountUser user) {
    local({DirectoryChange::Kind::signed_in, user.id, std::move(user.username), token_hash});
}

void AccountDirectory::signed_out(const std::string& token_hash) {
    local({DirectoryChange::Kind::signed_out, 0, {}, token_hash});
}

void AccountDirectory::other_sessions_ended(std::int64_t user_id,
                                            const std::string& keep_token_hash) {
    local({DirectoryChange::Kind::other_sessions_ended, user_id, {}, keep_token_hash});
}

void AccountDirectory::account_deleted(std::int64_t user_id) {
    local({DirectoryChange::Kind::account_deleted, user_id, {}, {}});
}

std::size_t AccountDirectory::session_count() const {
    std::lock_guard lock(mutex_);
    return sessions_.size();
}

void AccountDirectory::end_sessions_locked(std::int64_t user_id,
                                           const std::string& keep_token_hash) {
    std::erase_if(sessions_, [&](const auto& entry) {
        return entry.second.id == user_id && entry.first != keep_token_hash;
    });
}

}  // namespace arbiter::server::app
