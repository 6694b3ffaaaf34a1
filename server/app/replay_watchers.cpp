#include "server/app/replay_watchers.hpp"

#include <algorithm>

namespace arbiter::server::app {

void ReplayWatchers::watch(const std::shared_ptr<net::Peer>& peer, const std::string& game) {
    std::lock_guard lock(mutex_);
    // A connection that closed while its replay was being read was forgotten before it was
    // added: whoever is gone is dropped here.
    for (auto it = followers_.begin(); it != followers_.end();) {
        if (it->first != peer->id() && it->second.peer.expired()) {
            for (const std::string& gone : it->second.games) {
                drop(it->first, gone);
            }
            it = followers_.erase(it);
        } else {
            ++it;
        }
    }
    Follower& follower = followers_[peer->id()];
    follower.peer = peer;
    if (std::find(follower.games.begin(), follower.games.end(), game) != follower.games.end()) {
        return;
    }
    if (follower.games.size() >= kMaxReplaysPerConnection) {
        drop(peer->id(), follower.games.front());
        follower.games.pop_front();
    }
    follower.games.push_back(game);
    by_game_[game].push_back(peer->id());
}

void ReplayWatchers::forget(std::uint64_t peer_id) {
    std::lock_guard lock(mutex_);
    const auto it = followers_.find(peer_id);
    if (it == followers_.end()) {
        return;
    }
    for (const std::string& game : it->second.games) {
        drop(peer_id, game);
    }
    followers_.erase(it);
}

void ReplayWatchers::drop(std::uint64_t peer_id, const std::string& game) {
    const auto it = by_game_.find(game);
    if (it == by_game_.end()) {
        return;
    }
    std::erase(it->second, peer_id);
    if (it->second.empty()) {
        by_game_.erase(it);
    }
}

std::size_t ReplayWatchers::send(const std::string& game,
                                 const std::shared_ptr<const std::string>& text) {
    std::vector<std::shared_ptr<net::Peer>> peers;
    {
        std::lock_guard lock(mutex_);
        const auto it = by_game_.find(game);
        if (it == by_game_.end()) {
            return 0;
        }
        for (const std::uint64_t peer_id : it->second) {
            if (auto peer = followers_[peer_id].peer.lock()) {
                peers.push_back(std::move(peer));
            }
        }
    }
    // Sent outside the lock: a send that closes a slow connection must not wait on it.
    for (const auto& peer : peers) {
        peer->send(text);
    }
    return peers.size();
}

std::size_t ReplayWatchers::watchers_of(const std::string& game) const {
    std::lock_guard lock(mutex_);
    const auto it = by_game_.find(game);
    return it == by_game_.end() ? 0 : it->second.size();
}

}  // namespace arbiter::server::app
