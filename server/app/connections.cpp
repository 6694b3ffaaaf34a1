#include "server/app/connections.hpp"

#include <algorithm>

namespace arbiter::server::app {

void Connections::opened(std::uint64_t peer_id) {
    std::lock_guard lock(mutex_);
    connections_[peer_id] = Connection{};
}

std::vector<std::string> Connections::closed(std::uint64_t peer_id) {
    std::vector<std::string> games;
    std::lock_guard lock(mutex_);
    auto it = connections_.find(peer_id);
    if (it == connections_.end()) {
        return games;
    }
    for (const auto& [game, seated] : it->second.games) {
        games.push_back(game);
    }
    connections_.erase(it);
    return games;
}

void Connections::set_name(std::uint64_t peer_id, std::string name) {
    std::lock_guard lock(mutex_);
    if (auto it = connections_.find(peer_id); it != connections_.end()) {
        it->second.name = std::move(name);
    }
}

std::string Connections::name_of(std::uint64_t peer_id) const {
    std::lock_guard lock(mutex_);
    auto it = connections_.find(peer_id);
    return it == connections_.end() ? "Anonymous" : it->second.name;
}

void Connections::set_user(std::uint64_t peer_id, std::optional<AccountUser> user) {
    std::lock_guard lock(mutex_);
    if (auto it = connections_.find(peer_id); it != connections_.end()) {
        if (user) {
            it->second.name = user->username;
        }
        it->second.user = std::move(user);
    }
}

std::optional<AccountUser> Connections::user_of(std::uint64_t peer_id) const {
    std::lock_guard lock(mutex_);
    auto it = connections_.find(peer_id);
    return it == connections_.end() ? std::nullopt : it->second.user;
}

std::optional<std::vector<std::string>> Connections::joined(std::uint64_t peer_id,
                                                            const std::string& game, bool seated) {
    // A room asks before it adds the member, and on_close takes the games under this lock: a game
    // added before the close is left at the close, and after it the room is told no.
    std::lock_guard lock(mutex_);
    auto it = connections_.find(peer_id);
    if (it == connections_.end()) {
        return std::nullopt;
    }
    std::vector<std::string> before;
    for (const auto& [other, seated_there] : it->second.games) {
        if (other != game) {
            before.push_back(other);
        }
    }
    auto& held = it->second.games[game];
    held = held || seated;
    return before;
}

void Connections::left(std::uint64_t peer_id, const std::string& game, bool still_seated,
                       bool still_member) {
    std::lock_guard lock(mutex_);
    auto it = connections_.find(peer_id);
    if (it == connections_.end()) {
        return;
    }
    auto entry = it->second.games.find(game);
    if (entry == it->second.games.end()) {
        return;
    }
    if (!still_member) {
        it->second.games.erase(entry);
    } else {
        entry->second = still_seated;
    }
}

void Connections::mark_player(net::Peer& peer) const {
    std::lock_guard lock(mutex_);
    auto it = connections_.find(peer.id());
    if (it == connections_.end()) {
        return;  // closed: nothing more is sent to it
    }
    const auto& games = it->second.games;
    peer.set_player(
        std::any_of(games.begin(), games.end(), [](const auto& game) { return game.second; }));
}

ConnectionRoles Connections::roles(const std::set<std::uint64_t>& lobby) const {
    ConnectionRoles roles;
    std::lock_guard lock(mutex_);
    for (const auto& [peer_id, connection] : connections_) {
        const auto& games = connection.games;
        if (std::any_of(games.begin(), games.end(), [](const auto& game) { return game.second; })) {
            ++roles.players;
        } else if (!games.empty()) {
            ++roles.spectators;
        } else if (lobby.contains(peer_id)) {
            ++roles.lobby;
        } else {
            ++roles.other;
        }
    }
    return roles;
}

std::size_t Connections::size() const {
    std::lock_guard lock(mutex_);
    return connections_.size();
}

}  // namespace arbiter::server::app
