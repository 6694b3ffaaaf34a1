#pragma once
/// \file
/// The rows of the games, moves and move_journal tables and their mapping to GameRow and MoveRow:
/// column lists, parameter binding, reading a row back, and the text that status, result, reason
/// and offers take in a row. Internal to arbiter_storage: the only place where those terms are
/// text on the storage side (the database schema keeps the text it always had).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/core/expected.hpp"
#include "server/storage/sqlite.hpp"
#include "server/storage/stored_game.hpp"

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

/// A seat's rating's provisional flag as stored: 1 or 0, NULL when the seat has no rating.
std::optional<std::int64_t> provisional_flag(const std::optional<protocol::PlayerRating>& rating);

/// The columns of a move, after its game id, in `moves` and in `move_journal` alike.
inline constexpr std::string_view kMoveColumns =
    "ply, move, notation, position, clock_ms, think_ms, seq, played_ms, in_check, lag_ms";

/// A journal row as readers select it: the move's columns (read_move), then the columns of the
/// game's row that the move changed (read_progress), from kJournalProgressIndex on.
inline constexpr std::string_view kJournalColumns =
    "ply, move, notation, position, clock_ms, think_ms, seq, played_ms, in_check, lag_ms, "
    "first_clock_ms, second_clock_ms, game_seq, game_ply, updated_ms";
inline constexpr int kJournalProgressIndex = 10;

/// The columns of a game's row that a journaled move changes, as they are after it. Offers are
/// not among them: a move lapses every open offer, so a game with journaled moves has none.
struct MoveProgress {
    std::array<std::int64_t, 2> clock_ms{};
    std::uint64_t seq = 0;
    std::uint32_t ply = 0;
    std::int64_t updated_ms = 0;
};

/// The text of the lifecycle terms in a row, as the schema's CHECKs know them.
std::string_view status_text(protocol::GameStatus status) noexcept;
std::string_view result_text(rules::Outcome result) noexcept;
std::string_view reason_text(protocol::EndReason reason) noexcept;
/// The offers column: "kind:seat" items joined by ',' in the order made ("draw:first"); "".
std::string offers_text(const std::vector<protocol::OpenOffer>& offers);
/// Inverse of offers_text. An item that is not a known kind and seat (a row edited by hand) is
/// no offer: nobody could accept it.
std::vector<protocol::OpenOffer> parse_offers(std::string_view text);

/// Binds a whole header to ?1...?35 in kGameColumns order, the parked flag left out (an INSERT of
/// a new game).
void bind_game(sqlite::Statement& statement, const GameRow& game);
/// The parameters ?1...?11 of a move row: its game, then kMoveColumns in order. The text is not
/// copied: the caller runs the statement while `game_id` and `move` live.
sqlite::Statement& bind_move(sqlite::Statement& statement, std::string_view game_id,
                             const MoveRow& move);

/// A header from a row of kGameColumns. Refused when the variant is unknown: a game that no
/// rules can replay. Any other text no server writes has a safe reading (see game_rows.cpp).
Expected<GameRow, StorageError> read_game(const sqlite::Statement& row);
/// A move from a row whose first columns are kMoveColumns.
MoveRow read_move(const sqlite::Statement& row);
/// The progress columns of a journal row, from column `first` on (first_clock_ms ...).
MoveProgress read_progress(const sqlite::Statement& row, int first);
/// Sets the columns `progress` holds, and no offers (the journaled move lapsed them).
void apply_progress(const MoveProgress& progress, GameRow& header);

}  // namespace arbiter::server::storage::detail
