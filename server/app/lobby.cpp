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

void Lobby::on_local_change(LocalChange listener) {
    listener_ = std::move(listener);
}

void Lobby::changed(const protocol::GameSummary& summary, bool is_private) {
    const bool open = !is_private && summary.status == protocol::GameStatus::waiting;
    {
        // Rooms change on several threads. Each list is sent under the lock that made it: sent
        // after the lock, two rooms' lists could reach a follower in reverse order and leave it
        // holding the older one. send() only queues, so the lock is held for an append per
        // follower.
        std::lock_guard lock(mutex_);
        const bool listed = open_games_.contains(summary.game);
        if (!open && !listed) {
            return;
        }
        // A game this node plays is its own listing, whichever node listed it before (adopted).
        unlist(summary.game);
        if (open) {
            newest_first_.emplace(summary.created_ms, summary.game);
            open_games_[summary.game] = summary;
        }
        publish();
    }
    if (listener_) {
        listener_(summary.game, open ? std::optional(summary) : std::nullopt);
    }
}

void Lobby::removed(const std::string& game) {
    {
        std::lock_guard lock(mutex_);
        if (!unlist(game)) {
            return;
        }
        publish();
    }
    if (listener_) {
        listener_(game, std::nullopt);
    }
}

bool Lobby::unlist(const std::string& game) {
    const auto listed = open_games_.find(game);
    if (listed == open_games_.end()) {
        return false;
    }
    const std::pair<std::int64_t, std::string> place{listed->second.created_ms, game};
    if (const auto remote = remote_node_of_.find(game); remote != remote_node_of_.end()) {
        const auto games = remote_games_.find(remote->second);
        ARBITER_ASSERT(games != remote_games_.end());  // the two are changed together
        games->second.erase(place);
        if (games->second.empty()) {
            remote_games_.erase(games);
        }
        remote_node_of_.erase(remote);
    }
    newest_first_.erase(place);
    open_games_.erase(listed);
    return true;
}

// ---- other nodes' listings ------------------------------------------------------------------

namespace {

bool open_listing_of(const protocol::GameSummary& summary, const std::string& game) {
    return summary.game == game && summary.status == protocol::GameStatus::waiting;
}

}  // namespace

bool Lobby::node_fits(const std::string& node) const {
    return remote_games_.contains(node) || remote_games_.size() < kMaxRemoteNodes;
}

void Lobby::list_remote(const std::string& node, const protocol::GameSummary& summary) {
    unlist(summary.game);
    auto& games = remote_games_[node];
    if (games.size() >= kMaxListingsPerNode) {
        const auto oldest = games.begin()->second;  // a copy: unlist erases it
        unlist(oldest);
    }
    remote_games_[node].emplace(summary.created_ms, summary.game);
    remote_node_of_[summary.game] = node;
    newest_first_.emplace(summary.created_ms, summary.game);
    open_games_[summary.game] = summary;
}

bool Lobby::remote_changed(const std::string& node, const std::string& game,
                           const std::optional<protocol::GameSummary>& summary) {
    std::lock_guard lock(mutex_);
    if (summary && !open_listing_of(*summary, game)) {
        return false;
    }
    const auto holder = remote_node_of_.find(game);
    const bool listed_here = open_games_.contains(game) && holder == remote_node_of_.end();
    if (listed_here) {
        return true;  // this node plays it: its own listing stands
    }
    if (!summary) {
        if (holder != remote_node_of_.end() && holder->second == node) {
            unlist(game);
            publish();
        }
        return true;
    }
    if (!node_fits(node)) {
        return false;
    }
    list_remote(node, *summary);
    publish();
    return true;
}

bool Lobby::remote_replaced(const std::string& node,
                            const std::vector<protocol::GameSummary>& games) {
    std::lock_guard lock(mutex_);
    for (const auto& summary : games) {
        if (!open_listing_of(summary, summary.game)) {
            return false;
        }
    }
    bool changed = false;
    if (const auto held = remote_games_.find(node); held != remote_games_.end()) {
        const auto places = held->second;  // a copy: unlist changes it
        for (const auto& [created_ms, game] : places) {
            unlist(game);
        }
        changed = true;
    }
    if (!games.empty() && !node_fits(node)) {
        if (changed) {
            publish();
        }
        return false;
    }
    // The newest last: past the bound, the oldest are the ones dropped.
    std::vector<const protocol::GameSummary*> order;
    order.reserve(games.size());
    for (const auto& summary : games) {
        order.push_back(&summary);
    }
    std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
        return a->created_ms != b->created_ms ? a->created_ms < b->created_ms : a->game > b->game;
    });
    for (const auto* summary : order) {
        const bool listed_here =
            open_games_.contains(summary->game) && !remote_node_of_.contains(summary->game);
        if (!listed_here) {
            list_remote(node, *summary);
            changed = true;
        }
    }
    if (changed) {
        publish();
    }
    return true;
}

void Lobby::keep_nodes(const std::vector<std::string>& live) {
    std::lock_guard lock(mutex_);
    std::vector<std::string> gone;
    for (const auto& [node, games] : remote_games_) {
        if (std::find(live.begin(), live.end(), node) == live.end()) {
            for (const auto& [created_ms, game] : games) {
                gone.push_back(game);
            }
        }
    }
    for (const auto& game : gone) {
        unlist(game);
    }
    if (!gone.empty()) {
        publish();
    }
}

std::vector<protocol::GameSummary> Lobby::local_listings(std::size_t limit) const {
    std::lock_guard lock(mutex_);
    std::vector<protocol::GameSummary> games;
    for (auto it = newest_first_.begin(); it != newest_first_.end() && games.size() < limit; ++it) {
        if (!remote_node_of_.contains(it->second)) {
            games.push_back(open_games_.at(it->second));
        }
    }
    return games;
}

std::size_t Lobby::remote_count() const {
    std::lock_guard lock(mutex_);
    return remote_node_of_.size();
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
    remote_node_of_.clear();
    remote_games_.clear();
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
