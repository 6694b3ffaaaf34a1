#pragma once
/// \file
/// What every engine's rows share: the columns of a `games` and a `moves` row (the same names in
/// SQLite and PostgreSQL), and the text that status, result, reason and offers take in a row.
/// Internal to arbiter_storage: the only place where those terms are text on the storage side
/// (the database schemas keep the text they always had).

#include <string>
#include <string_view>
#include <vector>

#include "common/protocol/messages.hpp"
#include "common/rules/game.hpp"

namespace arbiter::server::storage::detail {

/// Every column of a `games` row, in the order of the columns read_game() reads; the first 26 are
/// the parameters ?1...?26 of bind_game() (a new game has no parked flag), the 9 after the parked
/// flag (migration 0010: accounts and ratings) its parameters ?27...?35.
inline constexpr std::string_view kGameColumns =
    "id, variant, initial_position, is_private, clock_initial_ms, clock_increment_ms, status, "
    "result, reason, first_name, first_token_hash, second_name, second_token_hash, "
    "first_clock_ms, second_clock_ms, seq, ply, created_ms, updated_ms, rematch_of, rematch_next, "
    "first_engine, first_engine_level, second_engine, second_engine_level, offers, flag_at_ms, "
    "flag_at_seq, first_user_id, second_user_id, rated, rating_min, rating_max, first_rating, "
    "second_rating, first_rating_diff, second_rating_diff, first_rating_provisional, "
    "second_rating_provisional, first_rating_after_provisional, second_rating_after_provisional";

/// The columns of a move, after its game id, in `moves` and in `move_journal` alike.
inline constexpr std::string_view kMoveColumns =
    "ply, move, notation, position, clock_ms, think_ms, seq, played_ms, in_check, lag_ms";

/// The text of the lifecycle terms in a row, as the schema's CHECKs know them.
std::string_view status_text(protocol::GameStatus status) noexcept;
std::string_view result_text(rules::Outcome result) noexcept;
std::string_view reason_text(protocol::EndReason reason) noexcept;
/// The offers column: "kind:seat" items joined by ',' in the order made ("draw:first"); "".
std::string offers_text(const std::vector<protocol::OpenOffer>& offers);
/// Inverse of offers_text. An item that is not a known kind and seat (a row edited by hand) is
/// no offer: nobody could accept it.
std::vector<protocol::OpenOffer> parse_offers(std::string_view text);

}  // namespace arbiter::server::storage::detail
