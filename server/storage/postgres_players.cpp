#include "server/storage/postgres_players.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include "server/storage/postgres_reads.hpp"
#include "server/storage/row_terms.hpp"

namespace arbiter::server::storage::detail {

namespace {

// Rows fetched from the leaderboard's cursor at a time: more than a page of the board shows.
constexpr int kLeadersPerFetch = 128;

// A variant column of the rating tables; their CHECK constraints allow only known names.
Expected<rules::Variant, StorageError> variant_column(const pg::Result& rows, int r, int column) {
    const std::string text = rows.text(r, column);
    if (const auto variant = rules::parse_variant(text)) {
        return *variant;
    }
    return unexpected(StorageError{"unknown variant in a rating row: " + text});
}

// One seat's side of the user's games ("first" or "second", a constant), newest first and at
// most the limit, with the parameters numbered by `numbers` (the same in both sides).
struct UserGamesNumbers {
    std::string user;
    std::string variant;
    std::string before;
    std::string limit;
};

std::string user_seat_sql(std::string_view seat, const UserGamesQuery& query,
                          const UserGamesNumbers& numbers) {
    std::string sql = "SELECT " + std::string(kGameColumns) + " FROM games WHERE " +
                      std::string(seat) + "_user_id = " + numbers.user;
    if (query.ended_only) {
        sql += " AND status = 'ended'";
    }
    if (query.variant) {
        sql += " AND variant = " + numbers.variant;
    }
    if (!query.include_private) {
        sql += " AND NOT is_private";
    }
    if (query.before) {
        // Keyset paging on (created_ms, id), as the games' list: an unknown id matches nothing.
        sql += " AND (created_ms, id) < (SELECT created_ms, id FROM games WHERE id = " +
               numbers.before + ")";
    }
    return sql + " ORDER BY created_ms DESC, id DESC LIMIT " + numbers.limit;
}

}  // namespace

Expected<std::vector<RatingRow>, StorageError> postgres_ratings_of(
    pg::Connection& connection, std::optional<std::int64_t> user_id) {
    std::string sql =
        "SELECT variant, speed, rating, deviation, volatility, games, updated_ms, user_id "
        "FROM ratings";
    pg::Params params;
    if (user_id) {
        sql += " WHERE user_id = $1";
        params.integer(*user_id);
    }
    // The primary key's order, as SQLite's table (keyed by it) gives its rows.
    sql += " ORDER BY user_id, variant COLLATE \"C\", speed COLLATE \"C\"";
    auto rows = connection.query(sql, params);
    if (!rows) {
        return unexpected(std::move(rows).error());
    }
    std::vector<RatingRow> ratings;
    ratings.reserve(static_cast<std::size_t>(rows->rows()));
    for (int r = 0; r < rows->rows(); ++r) {
        auto variant = variant_column(*rows, r, 0);
        if (!variant) {
            return unexpected(std::move(variant).error());
        }
        ratings.push_back(RatingRow{*variant, rows->text(r, 1), rows->real(r, 2), rows->real(r, 3),
                                    rows->real(r, 4), rows->integer(r, 5), rows->integer(r, 6),
                                    rows->integer(r, 7)});
    }
    return ratings;
}

Expected<GameCounts, StorageError> postgres_game_counts(pg::Connection& connection,
                                                        std::int64_t user_id) {
    // Each side through its own index; a game the user sat in on both seats is counted once,
    // from its first seat.
    auto rows = connection.query(
        "SELECT count(*), coalesce(sum(won), 0), coalesce(sum(drawn), 0), coalesce(sum(lost), 0) "
        "FROM (SELECT (result = '1-0')::int AS won, (result = '1/2-1/2')::int AS drawn, "
        "(result = '0-1')::int AS lost FROM games WHERE first_user_id = $1 AND status = 'ended' "
        "UNION ALL SELECT (result = '0-1')::int, (result = '1/2-1/2')::int, (result = '1-0')::int "
        "FROM games WHERE second_user_id = $1 AND status = 'ended' "
        "AND first_user_id IS DISTINCT FROM $1) AS seats",
        pg::Params().integer(user_id));
    if (!rows) {
        return unexpected(std::move(rows).error());
    }
    return GameCounts{rows->integer(0, 0), rows->integer(0, 1), rows->integer(0, 2),
                      rows->integer(0, 3)};
}

Expected<std::vector<GameRow>, StorageError> postgres_user_games(pg::Connection& connection,
                                                                 const UserGamesQuery& query) {
    const std::size_t limit = std::min(query.limit, kMaxListLimit);
    if (limit == 0) {
        return std::vector<GameRow>();
    }
    // Every value a bound parameter, numbered as it is added (PostgreSQL wants a type for every
    // number, so none may be skipped); both seats' sides use the same numbers.
    pg::Params params;
    UserGamesNumbers numbers;
    int next = 1;
    const auto parameter = [&next] { return "$" + std::to_string(next++); };
    numbers.user = parameter();
    params.integer(query.user_id);
    if (query.variant) {
        numbers.variant = parameter();
        params.text(rules::to_string(*query.variant));
    }
    if (query.before) {
        numbers.before = parameter();
        params.text(*query.before);
    }
    numbers.limit = parameter();
    params.integer(static_cast<std::int64_t>(limit));
    // Each side reads its own index newest first and stops at the limit; the union merges two
    // short lists, and lists a game the user sat in on both seats once (UNION, not UNION ALL).
    const std::string sql =
        "SELECT * FROM (" + user_seat_sql("first", query, numbers) +
        ") AS first_seat UNION SELECT * FROM (" + user_seat_sql("second", query, numbers) +
        ") AS second_seat ORDER BY created_ms DESC, id DESC LIMIT " + numbers.limit;
    auto rows = connection.query(sql, params);
    if (!rows) {
        return unexpected(std::move(rows).error());
    }
    return read_postgres_games(*rows);
}

Expected<std::vector<RatingPoint>, StorageError> postgres_rating_history(pg::Connection& connection,
                                                                         std::int64_t user_id) {
    // The primary key's order: pool by pool, each oldest first.
    auto rows = connection.query(
        "SELECT variant, speed, at_ms, game_id, rating, deviation FROM rating_history "
        "WHERE user_id = $1 "
        "ORDER BY variant COLLATE \"C\", speed COLLATE \"C\", at_ms, game_id COLLATE \"C\"",
        pg::Params().integer(user_id));
    if (!rows) {
        return unexpected(std::move(rows).error());
    }
    std::vector<RatingPoint> points;
    points.reserve(static_cast<std::size_t>(rows->rows()));
    for (int r = 0; r < rows->rows(); ++r) {
        auto variant = variant_column(*rows, r, 0);
        if (!variant) {
            return unexpected(std::move(variant).error());
        }
        points.push_back(RatingPoint{*variant, rows->text(r, 1), rows->integer(r, 2),
                                     rows->text(r, 3), rows->real(r, 4), rows->real(r, 5)});
    }
    return points;
}

Expected<void, StorageError> postgres_leaderboard(pg::Connection& connection,
                                                  const LeaderboardQuery& query,
                                                  const PlayerStore::EachLeader& each) {
    // ratings_by_perf gives the order by rating; only ties are sorted further. The cursor lives
    // until the caller's transaction ends.
    auto declared = connection.query(
        "DECLARE leaders NO SCROLL CURSOR FOR "
        "SELECT users.username, ratings.rating, ratings.deviation, ratings.volatility, "
        "ratings.games, ratings.updated_ms FROM ratings JOIN users ON users.id = ratings.user_id "
        "WHERE ratings.variant = $1 AND ratings.speed = $2 AND ratings.updated_ms >= $3 "
        "AND ratings.deviation <= $4 AND users.deleted_ms IS NULL "
        "ORDER BY ratings.rating DESC, ratings.deviation, users.username_key COLLATE \"C\"",
        pg::Params()
            .text(rules::to_string(query.variant))
            .text(query.speed)
            .integer(query.active_since_ms)
            .real(query.max_deviation));
    if (!declared) {
        return unexpected(std::move(declared).error());
    }
    const std::string fetch = "FETCH " + std::to_string(kLeadersPerFetch) + " FROM leaders";
    for (;;) {
        auto rows = connection.query(fetch);
        if (!rows) {
            return unexpected(std::move(rows).error());
        }
        for (int r = 0; r < rows->rows(); ++r) {
            const LeaderRow leader{
                rows->text(r, 0),
                RatingRow{query.variant, query.speed, rows->real(r, 1), rows->real(r, 2),
                          rows->real(r, 3), rows->integer(r, 4), rows->integer(r, 5)}};
            if (!each(leader)) {
                return connection.exec("CLOSE leaders");
            }
        }
        if (rows->rows() < kLeadersPerFetch) {
            return connection.exec("CLOSE leaders");
        }
    }
}

}  // namespace arbiter::server::storage::detail
