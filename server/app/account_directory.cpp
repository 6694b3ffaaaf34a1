#include "server/app/account_directory.hpp"

#include <iterator>
#include <utility>

#include "server/app/account_rules.hpp"

namespace arbiter::server::app {

void AccountDirectory::load(const storage::AccountSnapshot& snapshot) {
    std::unordered_map<std::string, AccountUser> sessions;
    std::unordered_set<std::string> keys;
    std::unordered_set<std::int64_t> deleted;
    std::unordered_map<std::int64_t, std::string> live;
    for (const auto& user : snapshot.users) {
        keys.insert(user.username_key);
        if (user.deleted) {
            deleted.insert(user.id);
        } else {
            live.emplace(user.id, user.username);
        }
    }
    for (const auto& session : snapshot.sessions) {
        // A deleted account's sessions are deleted with it; one left over signs nobody in.
        if (const auto user = live.find(session.user_id); user != live.end()) {
            sessions.emplace(session.token_hash, AccountUser{user->first, user->second});
        }
    }
    std::lock_guard lock(mutex_);
    sessions_ = std::move(sessions);
    username_keys_ = std::move(keys);
    deleted_ = std::move(deleted);
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

void AccountDirectory::signed_up(std::string_view username) {
    std::string key = username_key(username);
    std::lock_guard lock(mutex_);
    username_keys_.insert(std::move(key));
}

void AccountDirectory::signed_in(const std::string& token_hash, AccountUser user) {
    std::lock_guard lock(mutex_);
    username_keys_.insert(username_key(user.username));
    sessions_.insert_or_assign(token_hash, std::move(user));
}

void AccountDirectory::signed_out(const std::string& token_hash) {
    std::lock_guard lock(mutex_);
    sessions_.erase(token_hash);
}

void AccountDirectory::other_sessions_ended(std::int64_t user_id,
                                            const std::string& keep_token_hash) {
    std::lock_guard lock(mutex_);
    end_sessions_locked(user_id, keep_token_hash);
}

void AccountDirectory::account_deleted(std::int64_t user_id) {
    std::lock_guard lock(mutex_);
    deleted_.insert(user_id);
    end_sessions_locked(user_id, {});
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
