#include "server/app/client_limits.hpp"

#include <algorithm>
#include <vector>

namespace arbiter::server::app {

void ClientLimits::connected(const ClientKey& client, TimePoint now) {
    std::lock_guard lock(mutex_);
    auto [it, inserted] = clients_.try_emplace(client);
    if (inserted) {
        it->second.tokens = config_.message_burst;
        it->second.refilled = now;
    }
    it->second.connections += 1;
}

void ClientLimits::disconnected(const ClientKey& client) {
    std::lock_guard lock(mutex_);
    auto it = clients_.find(client);
    if (it != clients_.end() && --it->second.connections == 0) {
        clients_.erase(it);
    }
}

Admission ClientLimits::admit(const ClientKey& client, TimePoint now) {
    std::lock_guard lock(mutex_);
    auto it = clients_.find(client);
    if (it == clients_.end()) {
        return Admission::unknown;
    }
    auto& state = it->second;
    const double seconds = std::chrono::duration<double>(now - state.refilled).count();
    state.tokens =
        std::min(config_.message_burst, state.tokens + seconds * config_.messages_per_second);
    state.refilled = now;
    if (state.tokens >= 1) {
        state.tokens -= 1;
        state.refused_in_row = 0;
        return Admission::admitted;
    }
    state.refused_in_row += 1;
    if (state.refused_in_row > config_.max_refused_in_row) {
        return Admission::close;
    }
    return state.refused_in_row == 1 ? Admission::first_refused : Admission::refused;
}

std::optional<std::string> ClientLimits::open_game_refusal(const ClientKey& client,
                                                           const StillOpen& still_open) {
    return check_open_games(client, still_open, std::nullopt);
}

std::optional<std::string> ClientLimits::reserve_open_game(const ClientKey& client,
                                                           const std::string& game,
                                                           bool against_engine,
                                                           const StillOpen& still_open) {
    return check_open_games(client, still_open, std::pair{game, against_engine});
}

void ClientLimits::count_open_game(const ClientKey& client, const std::string& game,
                                   bool against_engine) {
    std::lock_guard lock(mutex_);
    if (auto it = clients_.find(client); it != clients_.end()) {
        it->second.open_games[game] = OpenGame{against_engine, false};
    }
}

void ClientLimits::release_open_game(const ClientKey& client, const std::string& game) {
    std::lock_guard lock(mutex_);
    if (auto it = clients_.find(client); it != clients_.end()) {
        it->second.open_games.erase(game);
    }
}

std::optional<std::string> ClientLimits::check_open_games(
    const ClientKey& client, const StillOpen& still_open,
    const std::optional<std::pair<std::string, bool>>& reserve) {
    std::vector<std::pair<std::string, bool>> counted;
    {
        std::lock_guard lock(mutex_);
        auto it = clients_.find(client);
        if (it == clients_.end()) {
            return refusal();  // its connection closed meanwhile
        }
        for (const auto& [game, open] : it->second.open_games) {
            if (!open.reserved) {
                counted.emplace_back(game, open.against_engine);
            }
        }
    }
    // Asked with the lock let go: still_open reads the rooms, which have locks of their own.
    std::vector<std::string> closed;
    for (const auto& [game, against_engine] : counted) {
        if (!still_open(game, against_engine)) {
            closed.push_back(game);
        }
    }
    std::lock_guard lock(mutex_);
    auto it = clients_.find(client);
    if (it == clients_.end()) {
        return refusal();
    }
    auto& open_games = it->second.open_games;
    for (const auto& game : closed) {
        open_games.erase(game);
    }
    if (open_games.size() >= config_.max_open_games) {
        return refusal();
    }
    if (reserve) {
        open_games[reserve->first] = OpenGame{reserve->second, true};
    }
    return std::nullopt;
}

std::string ClientLimits::refusal() const {
    return "this connection already has " + std::to_string(config_.max_open_games) +
           " open games (waiting for an opponent, or against an engine): finish or abort one "
           "first";
}

}  // namespace arbiter::server::app
