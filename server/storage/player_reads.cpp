#include "server/storage/player_reads.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

#include "server/storage/game_reads.hpp"
#include "server/storage/game_rows.hpp"

namespace arbiter::server::storage::detail {

namespace {

// A variant column of the rating tables; their CHECK constraints allow only known names.
Expected<rules::Variant, StorageError> variant_column(const sqlite::Statement& row, int index) {
    const std::string text = row.column_text(index);
    if (const auto variant = rules::parse_variant(text)) {
        return *variant;
    }
    return unexpected(StorageError{"unknown variant in a rating row: " + text});
}

// One seat's side of the user's games: `seat` is "first" or "second", a constant.
std::string user_seat_sql(std::string_view seat, const UserGamesQuery& query) {
    // Each side reads its own index (games_by_first_user or games_by_second_user) newest first
    // and stops at the limit; the union then merges two short lists. A game the user sat in on
    // both seats is listed once (UNION, not UNION ALL).
    std::string sql = "SELECT " + std::string(kGameColumns) + " FROM games WHERE " +
                      std::string(seat) + "_user_id = ?1";
    if (query.ended_only) {
        sql += " AND status = 'ended'";
    }
    return sql + list_tail_sql(query.variant.has_value(), query.include_private,
                               query.before.has_value());
}

}  // namespace

std::string user_games_sql(const UserGamesQuery& query) {
    return "SELECT * FROM (" + user_seat_sql("first", query) + ") UNION SELECT * FROM (" +
           user_seat_sql("second", query) + ") ORDER BY created_ms DESC, id DESC LIMIT ?4";
}

// Each side through its own index, like the list; a game the user sat in on both seats is
// counted once, from its first seat.
const std::string_view kGameCountsSql =
    "SELECT count(*), coalesce(sum(won), 0), coalesce(sum(drawn), 0), coalesce(sum(lost), 0) "
    "FROM (SELECT result = '1-0' AS won, result = '1/2-1/2' AS drawn, result = '0-1' AS lost "
    "FROM games WHERE first_user_id = ?1 AND status = 'ended' "
    "UNION ALL SELECT result = '0-1', result = '1/2-1/2', result = '1-0' "
    "FROM games WHERE second_user_id = ?1 AND status = 'ended' AND first_user_id IS NOT ?1)";

Expected<std::vector<RatingRow>, StorageError> ratings_of(sqlite::Connection& connection,
                                                          std::optional<std::int64_t> user_id) {
    auto select = connection.prepare(
        std::string("SELECT variant, speed, rating, deviation, volatility, games, updated_ms, "
                    "user_id FROM ratings") +
        (user_id ? " WHERE user_id = ?1 ORDER BY variant, speed" : ""));
    if (!select) {
        return unexpected(std::move(select).error());
    }
    if (user_id) {
        select->bind(1, *user_id);
    }
    std::vector<RatingRow> rows;
    auto read = select->each_row([&]() -> Expected<void, StorageError> {
        auto variant = variant_column(*select, 0);
        if (!variant) {
            return unexpected(std::move(variant).error());
        }
        rows.push_back(RatingRow{*variant, select->column_text(1), select->column_double(2),
                                 select->column_double(3), select->column_double(4),
                                 select->column_int64(5), select->column_int64(6),
                                 select->column_int64(7)});
        return {};
    });
    if (!read) {
        return unexpected(std::move(read).error());
    }
    return rows;
}

Expected<GameCounts, StorageError> game_counts(sqlite::Connection& connection,
                                               std::int64_t user_id) {
    auto select = connection.prepare(kGameCountsSql);
    if (!select) {
        return unexpected(std::move(select).error());
    }
    select->bind(1, user_id);
    GameCounts counts;
    auto read = select->each_row([&] {
        counts = GameCounts{select->column_int64(0), select->column_int64(1),
                            select->column_int64(2), select->column_int64(3)};
    });
    if (!read) {
        return unexpected(std::move(read).error());
    }
    return counts;
}

Expected<std::vector<GameRow>, StorageError> user_games(sqlite::Connection& connection,
                                                        const UserGamesQuery& query) {
    const std::size_t limit = std::min(query.limit, kMaxListLimit);
    if (limit == 0) {
        return std::vector<GameRow>();
    }
    auto select = connection.prepare(user_games_sql(query));
    if (!select) {
        return unexpected(std::move(select).error());
    }
    select->bind(1, query.user_id);
    if (query.variant) {
        select->bind(2, rules::to_string(*query.variant));
    }
    if (query.before) {
        select->bind(3, std::string_view(*query.before));
    }
    select->bind(4, static_cast<std::int64_t>(limit));
    std::vector<GameRow> games;
    auto read = select->each_row([&]() -> Expected<void, StorageError> {
        auto game = read_game(*select);
        if (!game) {
            return unexpected(std::move(game).error());
        }
        games.push_back(std::move(game).value());
        return {};
    });
    if (!read) {
        return unexpected(std::move(read).error());
    }
    if (auto overlaid = overlay_journal(connection, games); !overlaid) {
        return unexpected(overlaid.error());
    }
    return games;
}

Expected<std::vector<RatingPoint>, StorageError> rating_history(sqlite::Connection& connection,
                                                                std::int64_t user_id) {
    // The primary key's order: pool by pool, each oldest first.
    auto select = connection.prepare(
        "SELECT variant, speed, at_ms, game_id, rating, deviation FROM rating_history "
        "WHERE user_id = ?1 ORDER BY variant, speed, at_ms, game_id");
    if (!select) {
        return unexpected(std::move(select).error());
    }
    select->bind(1, user_id);
    std::vector<RatingPoint> points;
    auto read = select->each_row([&]() -> Expected<void, StorageError> {
        auto variant = variant_column(*select, 0);
        if (!variant) {
            return unexpected(std::move(variant).error());
        }
        points.push_back(RatingPoint{*variant, select->column_text(1), select->column_int64(2),
                                     select->column_text(3), select->column_double(4),
                                     select->column_double(5)});
        return {};
    });
    if (!read) {
        return unexpected(std::move(read).error());
    }
    return points;
}

Expected<void, StorageError> leaderboard(sqlite::Connection& connection,
                                         const LeaderboardQuery& query,
                                         const PlayerStore::EachLeader& each) {
    // ratings_by_perf gives the order by rating; only ties are sorted further.
    auto select = connection.prepare(
        "SELECT users.username, ratings.rating, ratings.deviation, ratings.volatility, "
        "ratings.games, ratings.updated_ms FROM ratings JOIN users ON users.id = ratings.user_id "
        "WHERE ratings.variant = ?1 AND ratings.speed = ?2 AND ratings.updated_ms >= ?3 "
        "AND ratings.deviation <= ?4 AND users.deleted_ms IS NULL "
        "ORDER BY ratings.rating DESC, ratings.deviation, users.username_key");
    if (!select) {
        return unexpected(std::move(select).error());
    }
    select->bind(1, rules::to_string(query.variant))
        .bind(2, std::string_view(query.speed))
        .bind(3, query.active_since_ms)
        .bind_real(4, query.max_deviation);
    while (true) {
        auto row = select->step();
        if (!row) {
            select->reset();
            return unexpected(std::move(row).error());
        }
        if (!*row) {
            break;
        }
        const LeaderRow leader{select->column_text(0),
                               RatingRow{query.variant, query.speed, select->column_double(1),
                                         select->column_double(2), select->column_double(3),
                                         select->column_int64(4), select->column_int64(5)}};
        if (!each(leader)) {
            break;
        }
    }
    select->reset();
    return {};
}

}  // namespace arbiter::server::storage::detail
