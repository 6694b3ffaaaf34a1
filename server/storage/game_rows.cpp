#include "server/storage/game_rows.hpp"

#include <utility>

namespace arbiter::server::storage::detail {

namespace {

void bind_optional_text(sqlite::Statement& statement, int index,
                        const std::optional<std::string>& text) {
    if (text) {
        statement.bind(index, std::string_view(*text));
    } else {
        statement.bind_null(index);
    }
}

std::optional<std::string> column_optional_text(const sqlite::Statement& statement, int index) {
    if (statement.column_is_null(index)) {
        return std::nullopt;
    }
    return statement.column_text(index);
}

std::optional<std::int64_t> optional_int(std::optional<int> value) {
    return value ? std::optional<std::int64_t>(*value) : std::nullopt;
}

std::optional<int> column_optional_int(const sqlite::Statement& statement, int index) {
    const auto value = statement.column_optional_int64(index);
    return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
}

// A seat's rating when it sat down: the rounded rating and whether it was provisional (a row
// from before migration 0011 has no flag: read as provisional, the cautious reading).
std::optional<protocol::PlayerRating> column_seat_rating(const sqlite::Statement& statement,
                                                         int rating_index, int provisional_index) {
    const auto rating = column_optional_int(statement, rating_index);
    const bool provisional = column_optional_int(statement, provisional_index).value_or(1) != 0;
    return rating
               ? std::optional<protocol::PlayerRating>(protocol::PlayerRating{*rating, provisional})
               : std::nullopt;
}

}  // namespace

std::optional<std::int64_t> provisional_flag(const std::optional<protocol::PlayerRating>& rating) {
    return rating ? std::optional<std::int64_t>(rating->provisional ? 1 : 0) : std::nullopt;
}

void bind_game(sqlite::Statement& statement, const GameRow& game) {
    statement.bind(1, std::string_view(game.id))
        .bind(2, rules::to_string(game.variant))
        .bind(3, std::string_view(game.initial_position))
        .bind(4, std::int64_t{game.is_private ? 1 : 0})
        .bind(5, game.clock_initial_ms)
        .bind(6, game.clock_increment_ms)
        .bind(7, status_text(game.status))
        .bind(8, result_text(game.result))
        .bind(9, reason_text(game.reason))
        .bind(10, std::string_view(game.seats[0].name))
        .bind(11, std::string_view(game.seats[0].token_hash))
        .bind(12, std::string_view(game.seats[1].name))
        .bind(13, std::string_view(game.seats[1].token_hash))
        .bind(14, game.clock_ms[0])
        .bind(15, game.clock_ms[1])
        // A seq beyond INT64_MAX wraps negative and is refused by the CHECK (seq >= 0).
        .bind(16, static_cast<std::int64_t>(game.seq))
        .bind(17, std::int64_t{game.ply})
        .bind(18, game.created_ms)
        .bind(19, game.updated_ms);
    bind_optional_text(statement, 20, game.rematch_of);
    bind_optional_text(statement, 21, game.rematch_next);
    statement.bind(22, std::string_view(game.seats[0].engine))
        .bind(23, std::int64_t{game.seats[0].engine_level})
        .bind(24, std::string_view(game.seats[1].engine))
        .bind(25, std::int64_t{game.seats[1].engine_level})
        .bind(26, std::string_view(offers_text(game.offers)))
        .bind(27, game.seats[0].user_id)
        .bind(28, game.seats[1].user_id)
        .bind(29, std::int64_t{game.rated ? 1 : 0})
        .bind(30, optional_int(game.rating_range ? game.rating_range->min : std::nullopt))
        .bind(31, optional_int(game.rating_range ? game.rating_range->max : std::nullopt))
        .bind(32,
              optional_int(game.seats[0].rating ? std::optional<int>(game.seats[0].rating->rating)
                                                : std::nullopt))
        .bind(33,
              optional_int(game.seats[1].rating ? std::optional<int>(game.seats[1].rating->rating)
                                                : std::nullopt))
        .bind(34, optional_int(game.rating_diffs[0]))
        .bind(35, optional_int(game.rating_diffs[1]))
        .bind(36, provisional_flag(game.seats[0].rating))
        .bind(37, provisional_flag(game.seats[1].rating))
        .bind(38, game.rating_diffs[0]
                      ? std::optional<std::int64_t>(game.rating_after_provisional[0] ? 1 : 0)
                      : std::nullopt)
        .bind(39, game.rating_diffs[1]
                      ? std::optional<std::int64_t>(game.rating_after_provisional[1] ? 1 : 0)
                      : std::nullopt);
}

sqlite::Statement& bind_move(sqlite::Statement& statement, std::string_view game_id,
                             const MoveRow& move) {
    return statement.bind_unowned(1, game_id)
        .bind(2, std::int64_t{move.ply})
        .bind_unowned(3, move.move)
        .bind_unowned(4, move.notation)
        .bind_unowned(5, move.position)
        .bind(6, move.clock_ms)
        .bind(7, move.think_ms)
        // Beyond INT64_MAX a seq wraps negative and is refused by the CHECK (seq >= 0).
        .bind(8, static_cast<std::int64_t>(move.seq))
        .bind(9, move.played_ms)
        .bind(10, move.check ? std::optional<std::int64_t>(*move.check ? 1 : 0) : std::nullopt)
        .bind(11, move.lag_ms);
}

// A row's text is what some server wrote, or a hand edit (the CHECKs keep status and result to
// the texts below unless they were bypassed; reason is free text). What no server writes reads
// as the safe term:
// - status: aborted. The game is over and takes no move: one whose state nobody knows must not
//   be played on. It is not restored at start (only waiting and playing games are), and lists and
//   replays as aborted.
// - result: ongoing. No side is named the winner on a text nobody wrote.
// - reason: none. The status and result stand; only why is not known (as after a downgrade, for
//   a reason a newer server wrote).
// - offers: an unknown item is no offer (parse_offers).
// An unknown variant is refused instead: no rules could replay the game.
Expected<GameRow, StorageError> read_game(const sqlite::Statement& row) {
    GameRow game;
    game.id = row.column_text(0);
    const std::string variant = row.column_text(1);
    const auto parsed = rules::parse_variant(variant);
    if (!parsed) {
        return unexpected(
            StorageError{"game " + game.id + " has an unknown variant '" + variant + "'"});
    }
    game.variant = *parsed;
    game.initial_position = row.column_text(2);
    game.is_private = row.column_int64(3) != 0;
    game.clock_initial_ms = row.column_optional_int64(4);
    game.clock_increment_ms = row.column_optional_int64(5);
    game.status =
        protocol::parse_game_status(row.column_text(6)).value_or(protocol::GameStatus::aborted);
    game.result = protocol::parse_result(row.column_text(7)).value_or(rules::Outcome::ongoing);
    game.reason =
        protocol::parse_end_reason(row.column_text(8)).value_or(protocol::EndReason::none);
    game.seats[0] = SeatRow{row.column_text(9), row.column_text(10), row.column_text(21),
                            static_cast<int>(row.column_int64(22))};
    game.seats[1] = SeatRow{row.column_text(11), row.column_text(12), row.column_text(23),
                            static_cast<int>(row.column_int64(24))};
    game.clock_ms = {row.column_int64(13), row.column_int64(14)};
    game.seq = static_cast<std::uint64_t>(row.column_int64(15));
    game.ply = static_cast<std::uint32_t>(row.column_int64(16));
    game.created_ms = row.column_int64(17);
    game.updated_ms = row.column_int64(18);
    game.rematch_of = column_optional_text(row, 19);
    game.rematch_next = column_optional_text(row, 20);
    game.offers = parse_offers(row.column_text(25));
    const auto flag_at = row.column_optional_int64(26);
    const auto flag_seq = row.column_optional_int64(27);
    if (flag_at && flag_seq) {
        game.parked_flag = ParkedFlag{*flag_at, static_cast<std::uint64_t>(*flag_seq)};
    }
    game.seats[0].user_id = row.column_optional_int64(28);
    game.seats[1].user_id = row.column_optional_int64(29);
    game.rated = row.column_int64(30) != 0;
    const auto rating_min = column_optional_int(row, 31);
    const auto rating_max = column_optional_int(row, 32);
    if (rating_min || rating_max) {
        game.rating_range = protocol::RatingRange{rating_min, rating_max};
    }
    game.seats[0].rating = column_seat_rating(row, 33, 37);
    game.seats[1].rating = column_seat_rating(row, 34, 38);
    game.rating_diffs = {column_optional_int(row, 35), column_optional_int(row, 36)};
    game.rating_after_provisional = {column_optional_int(row, 39).value_or(1) != 0,
                                     column_optional_int(row, 40).value_or(1) != 0};
    return game;
}

MoveRow read_move(const sqlite::Statement& row) {
    MoveRow move;
    move.ply = static_cast<std::uint32_t>(row.column_int64(0));
    move.move = row.column_text(1);
    move.notation = row.column_text(2);
    move.position = row.column_text(3);
    move.clock_ms = row.column_optional_int64(4);
    move.think_ms = row.column_optional_int64(5);
    move.seq = static_cast<std::uint64_t>(row.column_int64(6));
    move.played_ms = row.column_int64(7);
    if (auto check = row.column_optional_int64(8)) {
        move.check = *check != 0;
    }
    move.lag_ms = row.column_optional_int64(9);
    return move;
}

MoveProgress read_progress(const sqlite::Statement& row, int first) {
    MoveProgress progress;
    progress.clock_ms = {row.column_int64(first), row.column_int64(first + 1)};
    progress.seq = static_cast<std::uint64_t>(row.column_int64(first + 2));
    progress.ply = static_cast<std::uint32_t>(row.column_int64(first + 3));
    progress.updated_ms = row.column_int64(first + 4);
    return progress;
}

void apply_progress(const MoveProgress& progress, GameRow& header) {
    header.clock_ms = progress.clock_ms;
    header.seq = progress.seq;
    header.ply = progress.ply;
    header.updated_ms = progress.updated_ms;
    header.offers.clear();
}

}  // namespace arbiter::server::storage::detail
