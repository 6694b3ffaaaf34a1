#pragma once
/// \file
/// The move journal (schema 0003) as the writer's connection keeps it. A move that only moves its
/// game on commits as one row at the journal's end, not as a row in its game's part of `moves`
/// plus an update of its `games` row: a batch of moves from many games then dirties one or two
/// pages instead of two per game. Filing copies the rows into `moves`, and each game's last row's
/// columns into its `games` row, in bulk; any other write to a game files that game's rows first,
/// so a game's journal rows are always its latest state. Internal to arbiter_storage.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/core/expected.hpp"
#include "server/storage/game_rows.hpp"
#include "server/storage/sqlite.hpp"

namespace arbiter::server::storage::detail {

/// The journal's statements and what this connection knows of the journal's rows. Every call
/// runs inside the caller's open write transaction; after a rollback the caller says forget().
class MoveJournal {
  public:
    static Expected<MoveJournal, StorageError> prepare(sqlite::Connection& connection);

    /// Reads which games have rows in the journal, and their last rows, if a rollback or another
    /// connection's commit made that unknown. Every other call but forget() needs it first.
    Expected<void, StorageError> know();
    /// The columns `game`'s row takes once its journal rows are filed; nullptr if it has none.
    const MoveProgress* last_of(const std::string& game) const;

    /// Appends `move` of `game` as the journal's last row; `progress` is the game's columns
    /// after it.
    Expected<void, StorageError> append(const std::string& game, const MoveRow& move,
                                        const MoveProgress& progress);
    /// Files `game`'s rows into `moves` and its `games` row, and takes them out of the journal:
    /// before any other write to the game, which then starts from its latest state.
    Expected<void, StorageError> file_game(const std::string& game);

    /// Files the journal into `moves` and `games`, part by part. A filing covers the journal as
    /// it was when its first part began; each part files the moves of up to `games` of its games
    /// (0: all that are left). After the last part the filed rows leave the journal, and true is
    /// returned. Between parts, and across transactions, the journal keeps rows already filed:
    /// readers skip a journaled ply that `moves` holds, and filing one again changes nothing.
    /// Moves of a game that is no longer in `games` are dropped with it, as `moves` rows are.
    Expected<bool, StorageError> file_part(std::size_t games);
    /// Whether a filing has begun and not finished (see file_part()).
    bool filing() const { return filing_.has_value(); }
    /// Moves in the journal, not filed yet.
    Expected<std::size_t, StorageError> count();

    /// What this object knows may not be in the database (a rolled-back transaction, another
    /// connection's commit): it is read again at the next know().
    void forget();

  private:
    /// Sets the `games` row of each of `games` still journaled to its last row's columns.
    Expected<void, StorageError> file_headers(std::span<const std::string> games);

    sqlite::Connection* connection_ = nullptr;
    sqlite::Statement insert_;
    sqlite::Statement file_game_moves_;
    sqlite::Statement file_header_;
    sqlite::Statement drop_game_;
    sqlite::Statement file_moves_part_;
    sqlite::Statement file_moves_after_;
    sqlite::Statement drop_all_;
    sqlite::Statement read_games_;

    /// The journal as this connection left it: its row count, and each game with rows in it
    /// with the columns of its last row. Unknown after forget() until know() reads it again.
    bool known_ = false;
    std::size_t rows_ = 0;
    std::unordered_map<std::string, MoveProgress> games_;
    /// The rowid of the last row journaled (the next one takes the one after it).
    std::int64_t last_row_ = 0;

    /// A filing begun and not finished: what it covers, and how far it got.
    struct Filing {
        std::int64_t last_row = 0;                        ///< the journal's last rowid then
        std::vector<std::string> games;                   ///< its journaled games then, by id
        std::size_t filed = 0;                            ///< games[0, filed) are filed
        std::unordered_set<std::string> journaled_since;  ///< games with rows after last_row
    };
    std::optional<Filing> filing_;
};

}  // namespace arbiter::server::storage::detail
