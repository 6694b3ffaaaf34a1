#pragma once
/// \file
/// The JSON bodies of the players' HTTP API (issue 40; schema/protocol.md, "Players"): a
/// player's profile, their games, their rating history and the leaderboards. Read-only answers;
/// errors are encode_api_error() (account_api.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/protocol/messages.hpp"
#include "common/rules/game.hpp"

namespace arbiter::protocol {

/// A player's rating in one pool (variant and speed), as it stands now.
struct PoolRating {
    rules::Variant variant = rules::Variant::chess;
    std::string speed;  ///< "bullet", "blitz", "rapid" or "classical"
    int rating = 0;     ///< rounded, as shown
    double deviation = 0;
    double volatility = 0;
    std::int64_t games = 0;
    bool provisional = true;
};

/// Games played, won, drawn and lost.
struct PlayerCounts {
    std::int64_t games = 0;
    std::int64_t won = 0;
    std::int64_t drawn = 0;
    std::int64_t lost = 0;
};

/// What anyone may see of a player.
struct PlayerProfile {
    std::string username;
    std::int64_t created_ms = 0;
    bool deleted = false;
    std::vector<PoolRating> ratings;     ///< none for a deleted player
    std::optional<PlayerCounts> counts;  ///< none for a deleted player
};

/// One point of a rating chart: the rating after a rated game.
struct HistoryPoint {
    std::int64_t at_ms = 0;
    int rating = 0;  ///< rounded
    std::string game;
};

/// A player's rating over time in one pool, oldest first.
struct PoolHistory {
    rules::Variant variant = rules::Variant::chess;
    std::string speed;
    std::vector<HistoryPoint> points;
};

/// One leaderboard line.
struct Leader {
    std::string username;
    int rating = 0;  ///< rounded
    double deviation = 0;
    std::int64_t games = 0;
};

/// `{"username", "created_ms", "deleted", "ratings": {"<variant>": {"<speed>": {"rating",
/// "deviation", "volatility", "games", "provisional"}}}, "counts": {"games", "won", "drawn",
/// "lost"} | null}`.
std::string encode_player_profile(const PlayerProfile& profile);
/// `{"games": [<the entries of GET /api/games>], "next": "<game id>" | null}`.
std::string encode_player_games(const std::vector<GameSummary>& games,
                                const std::optional<std::string>& next);
/// `{"history": [{"variant", "speed", "points": [{"at_ms", "rating", "game"}]}]}`.
std::string encode_rating_history(const std::vector<PoolHistory>& history);
/// `{"variant", "speed", "players": [{"username", "rating", "deviation", "games"}]}`.
std::string encode_leaderboard(rules::Variant variant, std::string_view speed,
                               const std::vector<Leader>& players);

}  // namespace arbiter::protocol
