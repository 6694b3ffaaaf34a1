#include "server/app/client_limits.hpp"

#include <algorithm>
#include <vector>

namespace arbiter::server::app {

void ClientLimits::connected(const ClientKey& client, TimePoint now) {
    std::lock_guard lock(mutex_);
    auto it = clients_.find(client);
    if (it == clients_.end()) {
        it = clients_
                 .emplace(client, Client{0,
                                         net::TokenBucket(config_.messages_per_second,
                                                          config_.message_burst, now),
                                         net::TokenBucket(config_.max_creates_per_minute / 60.0,
                                                          config_.max_creates_per_minute, now),
                                         0,
                                         {}})
                 .first;
    }
    it->second.connections += 1;
}

void ClientLimits::disconnected(const ClientKey& client, TimePoint now) {
    std::lock_guard lock(mutex_);
    auto it = clients_.find(client);
    if (it == clients_.end() || --it->second.connections > 0) {
        return;
    }
    // A client keyed by address stays while its counts differ from a newcomer's: forgotten
    // at once, its next connection would start with full buckets and no open games (connect,
    // create 8, close, repeat made 14,000 games in 100 s).
    const auto& state = it->second;
    if (client.per_connection() || (state.open_games.empty() && quiet_at(state, now))) {
        clients_.erase(it);
    }
}

bool ClientLimits::quiet_at(const Client& client, TimePoint now) noexcept {
    return client.messages.full_at(now) && client.creates.full_at(now);
}

void ClientLimits::forget_idle(TimePoint now, const StillOpen& still_open) {
    std::vector<std::pair<ClientKey, std::vector<std::pair<std::string, bool>>>> asked;
    {
        std::lock_guard lock(mutex_);
        if (forgot_at_ && now - *forgot_at_ < kForgetInterval) {
            return;
        }
        forgot_at_ = now;
        for (auto it = clients_.begin(); it != clients_.end();) {
            const auto& state = it->second;
            if (state.connections > 0 || !quiet_at(state, now)) {
                ++it;
                continue;
            }
            if (state.open_games.empty()) {
                it = clients_.erase(it);
                continue;
            }
            std::vector<std::pair<std::string, bool>> games;
            bool reserved = false;  // a create under way: asked about once it is counted
            for (const auto& [game, open] : state.open_games) {
                reserved = reserved || open.reserved;
                games.emplace_back(game, open.against_engine);
            }
            if (!reserved) {
                asked.emplace_back(it->first, std::move(games));
            }
            ++it;
        }
    }
    // Asked with the lock let go, as in check_open_games().
    std::vector<std::pair<ClientKey, std::vector<std::string>>> closed;
    for (auto& [client, games] : asked) {
        std::vector<std::string> gone;
        for (const auto& [game, against_engine] : games) {
            if (!still_open(game, against_engine)) {
                gone.push_back(game);
            }
        }
        closed.emplace_back(client, std::move(gone));
    }
    std::lock_guard lock(mutex_);
    for (const auto& [client, gone] : closed) {
        auto it = clients_.find(client);
        if (it == clients_.end() || it->second.connections > 0) {
            continue;  // it came back meanwhile: its own checks forget its closed games
        }
        for (const auto& game : gone) {
            it->second.open_games.erase(game);
        }
        if (it->second.open_games.empty() && quiet_at(it->second, now)) {
            clients_.erase(it);
        }
    }
}

std::size_t ClientLimits::client_count() const {
    std::lock_guard lock(mutex_);
    return clients_.size();
}

Admission ClientLimits::admit(const ClientKey& client, TimePoint now) {
    std::lock_guard lock(mutex_);
    auto it = clients_.find(client);
    if (it == clients_.end() || it->second.connections == 0) {
        return Admission::unknown;
    }
    auto& state = it->second;
    if (state.messages.take(now)) {
        state.refused_in_row = 0;
        return Admission::admitted;
    }
    state.refused_in_row += 1;
    if (state.refused_in_row > config_.max_refused_in_row) {
        return Admission::close;
    }
    return state.refused_in_row == 1 ? Admission::first_refused : Admission::refused;
}

std::optional<std::string> ClientLimits::take_create(const ClientKey& client, TimePoint now) {
    std::lock_guard lock(mutex_);
    auto it = clients_.find(client);
    if (it == clients_.end()) {
        return refusal(client);  // its connection closed meanwhile
    }
    if (it->second.creates.take(now)) {
        return std::nullopt;
    }
    const auto wait = std::chrono::ceil<std::chrono::seconds>(it->second.creates.wait_at(now));
    return std::string(client.per_connection() ? "this connection" : "your address") + " created " +
           std::to_string(config_.max_creates_per_minute) +
           " games in the last minute: try again in " + std::to_string(wait.count()) + " s";
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
            return refusal(client);  // its connection closed meanwhile
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
        return refusal(client);
    }
    auto& open_games = it->second.open_games;
    for (const auto& game : closed) {
        open_games.erase(game);
    }
    if (open_games.size() >= config_.max_open_games) {
        return refusal(client);
    }
    if (reserve) {
        open_games[reserve->first] = OpenGame{reserve->second, true};
    }
    return std::nullopt;
}

std::string ClientLimits::refusal(const ClientKey& client) const {
    return std::string(client.per_connection() ? "this connection" : "your address") +
           " already has " + std::to_string(config_.max_open_games) +
           " open games (waiting for an opponent, or against an engine): finish or abort one "
           "first";
}

}  // namespace arbiter::server::app
