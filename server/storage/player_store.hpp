#pragma once
/// \file
/// What is read about players (issue 40): their ratings, their results, their games, their rating
/// history and the leaderboards, over the tables of migration 0010. Read-only: the rated games
/// write these rows when they end. Like AccountStore, the reads are synchronous and meant for a
/// worker thread; another engine (PostgreSQL) implements the same interface.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/core/expected.hpp"
#include "common/rules/game.hpp"
#include "server/storage/stored_game.hpp"

namespace arbiter::server::storage {

/// One `ratings` row: a player's Glicko-2 rating in one pool (variant and speed) as last stored.
/// `speed` is the pool's name as server/app/perf.hpp writes it ("blitz").
struct RatingRow {
    rules::Variant variant = rules::Variant::chess;
    std::string speed;
    double rating = 0;
    double deviation = 0;
    double volatility = 0;
    std::int64_t games = 0;
    std::int64_t updated_ms = 0;  ///< the end of the last rated game in the pool
    std::int64_t user_id = 0;     ///< whose rating
    friend bool operator==(const RatingRow&, const RatingRow&) = default;
};

/// A player's results over the games they sat in that ended (aborted games are not results).
struct GameCounts {
    std::int64_t games = 0;
    std::int64_t won = 0;
    std::int64_t drawn = 0;
    std::int64_t lost = 0;
    friend bool operator==(const GameCounts&, const GameCounts&) = default;
};

/// A page of the games one player sat in, newest first (created_ms, then id).
struct UserGamesQuery {
    std::int64_t user_id = 0;
    std::optional<rules::Variant> variant;
    /// Keyset paging: the games listed after this game id; an unknown id gives an empty page.
    std::optional<std::string> before;
    std::size_t limit = 20;
    /// Only games that ended (not aborted, not unfinished): what an export holds.
    bool ended_only = false;
    /// Private games (listed nowhere, watched by their link) are left out unless asked for.
    bool include_private = false;
};

/// One point of a player's rating history: their rating after a rated game.
struct RatingPoint {
    rules::Variant variant = rules::Variant::chess;
    std::string speed;
    std::int64_t at_ms = 0;
    std::string game_id;
    double rating = 0;
    double deviation = 0;
    friend bool operator==(const RatingPoint&, const RatingPoint&) = default;
};

/// The candidates of one pool's leaderboard: ratings updated since `active_since_ms`, whose
/// stored deviation is at most `max_deviation`, of players not deleted.
struct LeaderboardQuery {
    rules::Variant variant = rules::Variant::chess;
    std::string speed;
    std::int64_t active_since_ms = 0;
    double max_deviation = 0;
};

/// A leaderboard candidate: whose rating it is, and the rating as stored.
struct LeaderRow {
    std::string username;
    RatingRow rating;
};

/// Thread-safe: any thread may call any member.
class PlayerStore {
  public:
    /// Called with each candidate in leaderboard order; answers whether to go on.
    using EachLeader = std::function<bool(const LeaderRow&)>;

    virtual ~PlayerStore() = default;

    /// Every `ratings` row of the user (variant, then speed, in the table's order).
    virtual Expected<std::vector<RatingRow>, StorageError> ratings_of(std::int64_t user_id) = 0;
    /// The user's won/drawn/lost counts over the ended games they sat in.
    virtual Expected<GameCounts, StorageError> game_counts(std::int64_t user_id) = 0;
    /// At most `query.limit` (capped at kMaxListLimit) headers, newest first.
    virtual Expected<std::vector<GameRow>, StorageError> user_games(
        const UserGamesQuery& query) = 0;
    /// The user's rating history: by pool (variant, speed), each pool's points oldest first.
    virtual Expected<std::vector<RatingPoint>, StorageError> rating_history(
        std::int64_t user_id) = 0;
    /// Calls `each` with the candidates of `query`, best first (rating, then the lower deviation,
    /// then the username ignoring case), until it answers false or none are left.
    virtual Expected<void, StorageError> leaderboard(const LeaderboardQuery& query,
                                                     const EachLeader& each) = 0;
};

}  // namespace arbiter::server::storage
