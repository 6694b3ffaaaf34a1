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
        snapshot_.emplace(list_from(newest_first_.begin(), size_));
    }
    return *snapshot_;
}

std::optional<protocol::LobbyList> Lobby::page(std::size_t limit,
                                               const std::optional<std::string>& after) const {
    std::lock_guard lock(mutex_);
    if (!after) {
        return list_from(newest_first_.begin(), limit);
    }
    const auto listed = open_games_.find(*after);
    if (listed == open_games_.end()) {
        return std::nullopt;
    }
    // Keyset paging: the page starts past `after`'s place, found in O(log n).
    return list_from(newest_first_.upper_bound({listed->second.created_ms, *after}), limit);
}

template <typename Iterator>
protocol::LobbyList Lobby::list_from(Iterator from, std::size_t limit) const {
    protocol::LobbyList list;
    for (auto it = from; it != newest_first_.end(); ++it) {
        if (list.games.size() == limit) {
            if (!list.games.empty()) {
                list.next = list.games.back().game;  // more follow
            }
            break;
        }
        const auto summary = open_games_.find(it->second);
        ARBITER_ASSERT(summary != open_games_.end());  // the two are changed together
        list.games.push_back(summary->second);
    }
    return list;
}

}  // namespace arbiter::server::app
