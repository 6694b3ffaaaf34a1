#include "server/storage/postgres_reads.hpp"

#include <algorithm>
#include <utility>

#include "server/storage/row_terms.hpp"

namespace arbiter::server::storage::detail {

namespace {

std::optional<int> optional_int(const pg::Result& row, int r, int column) {
    const auto value = row.optional_integer(r, column);
    return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
}

std::optional<std::string> optional_text(const pg::Result& row, int r, int column) {
    return row.is_null(r, column) ? std::nullopt : std::optional(row.text(r, column));
}

// A seat's rating when it sat down: no flag reads as provisional, the cautious reading.
std::optional<protocol::PlayerRating> seat_rating(const pg::Result& row, int r, int rating_column,
                                                  int provisional_column) {
    const auto rating = optional_int(row, r, rating_column);
    const bool provisional = row.optional_boolean(r, provisional_column).value_or(true);
    return rating
               ? std::optional<protocol::PlayerRating>(protocol::PlayerRating{*rating, provisional})
               : std::nullopt;
}

// A header from row `r` of kGameColumns. Text no server writes reads as the safe term, and an
// unknown variant is refused, as SQLite's read_game() (game_rows.cpp) does.
Expected<GameRow, StorageError> read_game(const pg::Result& row, int r) {
    GameRow game;
    game.id = row.text(r, 0);
    const std::string variant = row.text(r, 1);
    const auto parsed = rules::parse_variant(variant);
    if (!parsed) {
        return unexpected(
            StorageError{"game " + game.id + " has an unknown variant '" + variant + "'"});
    }
    game.variant = *parsed;
    game.initial_position = row.text(r, 2);
    game.is_private = row.boolean(r, 3);
    game.clock_initial_ms = row.optional_integer(r, 4);
    game.clock_increment_ms = row.optional_integer(r, 5);
    game.status =
        protocol::parse_game_status(row.text(r, 6)).value_or(protocol::GameStatus::aborted);
    game.result = protocol::parse_result(row.text(r, 7)).value_or(rules::Outcome::ongoing);
    game.reason = protocol::parse_end_reason(row.text(r, 8)).value_or(protocol::EndReason::none);
    game.seats[0] = SeatRow{row.text(r, 9), row.text(r, 10), row.text(r, 21),
                            static_cast<int>(row.integer(r, 22))};
    game.seats[1] = SeatRow{row.text(r, 11), row.text(r, 12), row.text(r, 23),
                            static_cast<int>(row.integer(r, 24))};
    game.clock_ms = {row.integer(r, 13), row.integer(r, 14)};
    game.seq = static_cast<std::uint64_t>(row.integer(r, 15));
    game.ply = static_cast<std::uint32_t>(row.integer(r, 16));
    game.created_ms = row.integer(r, 17);
    game.updated_ms = row.integer(r, 18);
    game.rematch_of = optional_text(row, r, 19);
    game.rematch_next = optional_text(row, r, 20);
    game.offers = parse_offers(row.text(r, 25));
    const auto flag_at = row.optional_integer(r, 26);
    const auto flag_seq = row.optional_integer(r, 27);
    if (flag_at && flag_seq) {
        game.parked_flag = ParkedFlag{*flag_at, static_cast<std::uint64_t>(*flag_seq)};
    }
    game.seats[0].user_id = row.optional_integer(r, 28);
    game.seats[1].user_id = row.optional_integer(r, 29);
    game.rated = row.boolean(r, 30);
    const auto rating_min = optional_int(row, r, 31);
    const auto rating_max = optional_int(row, r, 32);
    if (rating_min || rating_max) {
        game.rating_range = protocol::RatingRange{rating_min, rating_max};
    }
    game.seats[0].rating = seat_rating(row, r, 33, 37);
    game.seats[1].rating = seat_rating(row, r, 34, 38);
    game.rating_diffs = {optional_int(row, r, 35), optional_int(row, r, 36)};
    game.rating_after_provisional = {row.optional_boolean(r, 39).value_or(true),
                                     row.optional_boolean(r, 40).value_or(true)};
    return game;
}

Expected<std::vector<GameRow>, StorageError> read_games(const pg::Result& rows) {
    std::vector<GameRow> games;
    games.reserve(static_cast<std::size_t>(rows.rows()));
    for (int r = 0; r < rows.rows(); ++r) {
        auto game = read_game(rows, r);
        if (!game) {
            return unexpected(std::move(game).error());
        }
        games.push_back(std::move(game).value());
    }
    return games;
}

// The game's moves in ply order and its chat in seq order.
Expected<void, StorageError> load_moves_and_chat(pg::Connection& connection, StoredGame& game) {
    auto moves = connection.query(
        "SELECT " + std::string(kMoveColumns) + " FROM moves WHERE game_id = $1 ORDER BY ply",
        pg::Params().text(game.header.id));
    if (!moves) {
        return unexpected(std::move(moves).error());
    }
    for (int r = 0; r < moves->rows(); ++r) {
        MoveRow move;
        move.ply = static_cast<std::uint32_t>(moves->integer(r, 0));
        move.move = moves->text(r, 1);
        move.notation = moves->text(r, 2);
        move.position = moves->text(r, 3);
        move.clock_ms = moves->optional_integer(r, 4);
        move.think_ms = moves->optional_integer(r, 5);
        move.seq = static_cast<std::uint64_t>(moves->integer(r, 6));
        move.played_ms = moves->integer(r, 7);
        move.check = moves->optional_boolean(r, 8);
        move.lag_ms = moves->optional_integer(r, 9);
        game.moves.push_back(std::move(move));
    }
    auto chat = connection.query(
        "SELECT seq, room, author, seat, text, at_ms FROM chat_messages WHERE game_id = $1 "
        "ORDER BY seq",
        pg::Params().text(game.header.id));
    if (!chat) {
        return unexpected(std::move(chat).error());
    }
    for (int r = 0; r < chat->rows(); ++r) {
        ChatRow row;
        row.seq = static_cast<std::uint64_t>(chat->integer(r, 0));
        row.room = chat->text(r, 1) == "spectators" ? protocol::ChatRoom::spectators
                                                    : protocol::ChatRoom::players;
        row.from = chat->text(r, 2);
        if (!chat->is_null(r, 3)) {
            row.seat = chat->text(r, 3) == "second" ? rules::Side::second : rules::Side::first;
        }
        row.text = chat->text(r, 4);
        row.at_ms = chat->integer(r, 5);
        game.chat.push_back(std::move(row));
    }
    return {};
}

Expected<std::vector<StoredGame>, StorageError> load_games(pg::Connection& connection,
                                                           const std::string& sql,
                                                           const pg::Params& params) {
    auto rows = connection.query(sql, params);
    if (!rows) {
        return unexpected(std::move(rows).error());
    }
    auto headers = read_games(*rows);
    if (!headers) {
        return unexpected(std::move(headers).error());
    }
    std::vector<StoredGame> games;
    games.reserve(headers->size());
    for (GameRow& header : *headers) {
        games.push_back(StoredGame{std::move(header), {}});
        if (auto loaded = load_moves_and_chat(connection, games.back()); !loaded) {
            return unexpected(loaded.error());
        }
    }
    return games;
}

}  // namespace

Expected<std::vector<GameRow>, StorageError> read_postgres_games(const pg::Result& rows) {
    return read_games(rows);
}

Expected<std::optional<StoredGame>, StorageError> load_postgres_game(pg::Connection& connection,
                                                                     const std::string& id) {
    auto games =
        load_games(connection, "SELECT " + std::string(kGameColumns) + " FROM games WHERE id = $1",
                   pg::Params().text(id));
    if (!games) {
        return unexpected(std::move(games).error());
    }
    if (games->empty()) {
        return std::optional<StoredGame>();
    }
    return std::optional<StoredGame>(std::move(games->front()));
}

Expected<std::vector<StoredGame>, StorageError> load_unfinished_postgres_games(
    pg::Connection& connection) {
    return load_games(connection,
                      "SELECT " + std::string(kGameColumns) +
                          " FROM games WHERE status IN ('waiting', 'playing') "
                          "ORDER BY created_ms, id",
                      {});
}

Expected<std::vector<GameRow>, StorageError> list_postgres_games(pg::Connection& connection,
                                                                 const GameQuery& query) {
    const std::size_t limit = std::min(query.limit, kMaxListLimit);
    if (limit == 0) {
        return std::vector<GameRow>();
    }
    // Assembled from constant fragments; every value is a bound parameter, numbered as it is
    // added (PostgreSQL wants a type for every number it is given, so none may be skipped).
    // As on SQLite, each filter given searches an index that also gives the list order.
    std::string sql = "SELECT " + std::string(kGameColumns) + " FROM games WHERE true";
    pg::Params params;
    int next = 1;
    const auto parameter = [&next] { return "$" + std::to_string(next++); };
    if (query.status) {
        sql += " AND status = " + parameter();
        params.text(status_text(*query.status));
    }
    if (query.variant) {
        sql += " AND variant = " + parameter();
        params.text(rules::to_string(*query.variant));
    }
    if (!query.include_private) {
        sql += " AND NOT is_private";
    }
    if (query.before) {
        // Keyset paging on (created_ms, id), strictly after the given game; an unknown id makes
        // the subquery NULL, and the comparison then matches nothing: an empty page.
        sql +=
            " AND (created_ms, id) < (SELECT created_ms, id FROM games WHERE id = " + parameter() +
            ")";
        params.text(*query.before);
    }
    sql += " ORDER BY created_ms DESC, id DESC LIMIT " + parameter();
    params.integer(static_cast<std::int64_t>(limit));
    auto rows = connection.query(sql, params);
    if (!rows) {
        return unexpected(std::move(rows).error());
    }
    return read_games(*rows);
}

}  // namespace arbiter::server::storage::detail
