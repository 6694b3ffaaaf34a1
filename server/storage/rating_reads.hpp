#pragma once
/// \file
/// The stored Glicko-2 ratings (migration 0010's `ratings` table), read whole at start-up: the
/// server keeps them in memory (server/app/rating_book.hpp says why), and every later change is
/// written with the end of the rated game that made it.

#include <cstdint>
#include <string>
#include <vector>

#include "common/core/expected.hpp"
#include "common/rules/game.hpp"
#include "server/storage/stored_game.hpp"

namespace arbiter::server::storage {

/// One `ratings` row: a player's rating in one pool (variant and speed).
struct StoredRating {
    std::int64_t user_id = 0;
    rules::Variant variant = rules::Variant::chess;
    std::string speed;  ///< "bullet", "blitz", "rapid", "classical"
    double rating = 1500.0;
    double deviation = 350.0;
    double volatility = 0.06;
    std::int64_t games = 0;
    std::int64_t updated_ms = 0;  ///< the end of the last rated game there (Unix ms)
    friend bool operator==(const StoredRating&, const StoredRating&) = default;
};

}  // namespace arbiter::server::storage

namespace arbiter::server::storage::sqlite {
class Connection;
}

namespace arbiter::server::storage::detail {

/// Every `ratings` row. A row of an unknown variant (a hand edit) is skipped.
Expected<std::vector<StoredRating>, StorageError> read_ratings(sqlite::Connection& connection);

}  // namespace arbiter::server::storage::detail
