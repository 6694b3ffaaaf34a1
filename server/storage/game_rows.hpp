#pragma once
/// \file
/// The SQLite rows of the games, moves and move_journal tables and their mapping to GameRow and
/// MoveRow: parameter binding and reading a row back. The column lists and the text of the terms
/// are every engine's (row_terms.hpp). Internal to arbiter_storage.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/core/expected.hpp"
#include "server/storage/row_terms.hpp"
#include "server/storage/sqlite.hpp"
#include "server/storage/stored_game.hpp"

namespace arbiter::server::storage::detail {

/// A seat's rating's provisional flag as stored: 1 or 0, NULL when the seat has no rating.
std::optional<std::int64_t> provisional_flag(const std::optional<protocol::PlayerRating>& rating);

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
