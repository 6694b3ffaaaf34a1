#include "server/app/lobby.hpp"

#include <algorithm>

#include "common/core/assert.hpp"
#include "common/protocol/codec.hpp"

namespace arbiter::server::app {

void Lobby::subscribe(const std::shared_ptr<net::Peer>& peer,
                      const std::optional<std::string>& id) {
    // The first list is the direct reply (it echoes the id); updates follow without. Sent under
    // the lock, like the updates: a later list never arrives before it.
    std::lock_guard lock(mutex_);
    subscribers_[peer->id()] = peer;
    peer->send(snapshot().for_request(id));
}

void Lobby::unsubscribe(std::uint64_t peer_id) {
    std::lock_guard lock(mutex_);
    subscribers_.erase(peer_id);
}

void Lobby::changed(const protocol::GameSummary& summary, bool is_private) {
    // Rooms change on several threads. Each list is sent under the lock that made it: sent after
    // the lock, two rooms' lists could reach a follower in reverse order and leave it holding the
    // older one. send() only queues, so the lock is held for an append per follower.
    std::lock_guard lock(mutex_);
    const bool listed = open_games_.contains(summary.game);
    const bool open = !is_private && summary.status == protocol::GameStatus::waiting;
    if (!open && !listed) {
        return;
    }
    if (open) {
        unlist(summary.game);
        newest_first_.emplace(summary.created_ms, summary.game);
        open_games_[summary.game] = summary;
    } else {
        unlist(summary.game);
    }
    publish();
}

void Lobby::removed(const std::string& game) {
    std::lock_guard lock(mutex_);
    if (unlist(game)) {
        publish();
    }
}

bool Lobby::unlist(const std::string& game) {
    const auto listed = open_games_.find(game);
    if (listed == open_games_.end()) {
        return false;
    }
    newest_first_.erase({listed->second.created_ms, game});
    open_games_.erase(listed);
    return true;
}

void Lobby::publish() {
    snapshot_.reset();
    if (subscribers_.empty()) {
        return;  // built when someone asks
    }
    const auto& text = snapshot().text();
    for (auto it = subscribers_.begin(); it != subscribers_.end();) {
        if (auto peer = it->second.lock()) {
            peer->send(text);
            ++it;
        } else {
            it = subscribers_.erase(it);
        }
    }
}

std::set<std::uint64_t> Lobby::subscribers() const {
    std::set<std::uint64_t> ids;
    std::lock_guard lock(mutex_);
    for (const auto& [peer_id, subscriber] : subscribers_) {
        ids.insert(peer_id);
    }
    return ids;
}

void Lobby::clear() {
    std::lock_guard lock(mutex_);
    subscribers_.clear();
    open_games_.clear();
    newest_first_.clear();
    snapshot_.reset();
}

const protocol::SharedMessage& Lobby::snapshot() {
    if (!snapshot_) {
        snapshot_.emplace(list());
    }
    return *snapshot_;
}

protocol::LobbyList Lobby::list() const {
    protocol::LobbyList list;
    list.games.reserve(std::min(size_, newest_first_.size()));
    for (const auto& [created_ms, game] : newest_first_) {
        if (list.games.size() == size_) {
            break;
        }
        const auto summary = open_games_.find(game);
        ARBITER_ASSERT(summary != open_games_.end());  // the two are changed together
        list.games.push_back(summary->second);
    }
    return list;
}

}  // namespace arbiter::server::app
