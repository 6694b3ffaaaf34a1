// Hub: what /metrics reads at scrape time (connections by role, rooms by status and variant).
#include <set>

#include "common/rules/game.hpp"
#include "server/app/hub.hpp"

namespace arbiter::server::app {

std::size_t Hub::room_count() const {
    std::lock_guard lock(rooms_mutex_);
    return rooms_.size();
}

std::size_t Hub::connection_count() const {
    std::lock_guard lock(peers_mutex_);
    return peers_.size();
}

ConnectionRoles Hub::connection_roles() const {
    std::set<std::uint64_t> lobby;
    {
        std::lock_guard lock(lobby_mutex_);
        for (const auto& [peer_id, subscriber] : lobby_subscribers_) {
            lobby.insert(peer_id);
        }
    }
    ConnectionRoles roles;
    std::lock_guard lock(peers_mutex_);
    for (const auto& [peer_id, state] : peers_) {
        if (!state.seated_in.empty()) {
            ++roles.players;
        } else if (!state.rooms.empty()) {
            ++roles.spectators;
        } else if (lobby.contains(peer_id)) {
            ++roles.lobby;
        } else {
            ++roles.other;
        }
    }
    return roles;
}

std::map<std::pair<std::string, std::string>, std::size_t> Hub::games_in_memory() const {
    std::map<std::pair<std::string, std::string>, std::size_t> games;
    std::lock_guard lock(rooms_mutex_);
    for (const auto& [game, room] : rooms_) {
        ++games[{std::string(room->listed_status()),
                 std::string(rules::to_string(room->variant()))}];
    }
    return games;
}

}  // namespace arbiter::server::app
