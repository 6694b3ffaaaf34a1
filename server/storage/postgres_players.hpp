#pragma once
/// \file
/// The reads of players (player_store.hpp) on PostgreSQL, inside a read transaction the caller
/// holds: the same answers as SQLite's player_reads.hpp. Text is ordered byte by byte (COLLATE
/// "C"), as SQLite orders it, whatever the database's locale. Internal to arbiter_storage.

#include <cstdint>
#include <optional>
#include <vector>

#include "common/core/expected.hpp"
#include "server/storage/pg.hpp"
#include "server/storage/player_store.hpp"

namespace arbiter::server::storage::detail {

/// The `ratings` rows of `user_id` (by variant, then speed), or of every player when nullopt.
Expected<std::vector<RatingRow>, StorageError> postgres_ratings_of(
    pg::Connection& connection, std::optional<std::int64_t> user_id);
Expected<GameCounts, StorageError> postgres_game_counts(pg::Connection& connection,
                                                        std::int64_t user_id);
Expected<std::vector<GameRow>, StorageError> postgres_user_games(pg::Connection& connection,
                                                                 const UserGamesQuery& query);
Expected<std::vector<RatingPoint>, StorageError> postgres_rating_history(pg::Connection& connection,
                                                                         std::int64_t user_id);
/// Reads the candidates through a cursor, a page at a time, so that a leaderboard that stops
/// early reads little more than it shows.
Expected<void, StorageError> postgres_leaderboard(pg::Connection& connection,
                                                  const LeaderboardQuery& query,
                                                  const PlayerStore::EachLeader& each);

}  // namespace arbiter::server::storage::detail
