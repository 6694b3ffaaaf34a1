#pragma once
/// \file
/// The reads of players (player_store.hpp) on SQLite, inside a read transaction the caller holds.
/// Internal to arbiter_storage.

#include <cstdint>
#include <string>
#include <vector>

#include "common/core/expected.hpp"
#include "server/storage/player_store.hpp"
#include "server/storage/sqlite.hpp"

namespace arbiter::server::storage::detail {

/// The statement user_games() runs for `query`: ?1 the user, ?2 the variant, ?3 `before`, ?4 the
/// limit, each fragment present only when the query has it (the storage tests read its
/// EXPLAIN QUERY PLAN).
std::string user_games_sql(const UserGamesQuery& query);
/// The statement game_counts() runs (?1 the user).
extern const std::string_view kGameCountsSql;

/// The `ratings` rows of `user_id`, or of every player when nullopt (the rating book's start,
/// server/app/rating_book.hpp).
Expected<std::vector<RatingRow>, StorageError> ratings_of(sqlite::Connection& connection,
                                                          std::optional<std::int64_t> user_id);
Expected<GameCounts, StorageError> game_counts(sqlite::Connection& connection,
                                               std::int64_t user_id);
Expected<std::vector<GameRow>, StorageError> user_games(sqlite::Connection& connection,
                                                        const UserGamesQuery& query);
Expected<std::vector<RatingPoint>, StorageError> rating_history(sqlite::Connection& connection,
                                                                std::int64_t user_id);
Expected<void, StorageError> leaderboard(sqlite::Connection& connection,
                                         const LeaderboardQuery& query,
                                         const PlayerStore::EachLeader& each);

}  // namespace arbiter::server::storage::detail
