#include "server/storage/rating_reads.hpp"

#include <utility>

#include "server/storage/sqlite.hpp"

namespace arbiter::server::storage::detail {

Expected<std::vector<StoredRating>, StorageError> read_ratings(sqlite::Connection& connection) {
    auto statement = connection.prepare(
        "SELECT user_id, variant, speed, rating, deviation, volatility, games, updated_ms "
        "FROM ratings");
    if (!statement) {
        return unexpected(std::move(statement).error());
    }
    std::vector<StoredRating> ratings;
    auto read = statement->each_row([&] {
        const auto variant = rules::parse_variant(statement->column_text(1));
        if (!variant) {
            return;
        }
        ratings.push_back(StoredRating{statement->column_int64(0), *variant,
                                       statement->column_text(2), statement->column_double(3),
                                       statement->column_double(4), statement->column_double(5),
                                       statement->column_int64(6), statement->column_int64(7)});
    });
    if (!read) {
        return unexpected(std::move(read).error());
    }
    return ratings;
}

}  // namespace arbiter::server::storage::detail
