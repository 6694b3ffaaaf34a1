#pragma once
/// \file
/// The SQL of the games and moves tables and the mapping between their rows and GameRow/MoveRow.
/// Internal to arbiter_storage: SqliteRepository owns the connections and the threads; this file
/// owns what one write or one read does inside a transaction the caller holds.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/core/expected.hpp"
#include "server/storage/repository.hpp"
#include "server/storage/sqlite.hpp"

namespace arbiter::server::storage::detail {

/// The writer's prepared statements, compiled once and reused for every write.
///
/// With the move journal on, a write that only moves a game on goes to `move_journal` (schema
/// 0003): its header is the one this connection last wrote for that game but for the columns a
/// move changes, it truncates nothing, and its move is the game's next ply. file_journal_part()
/// files the journal into `moves` and `games`; any other write to a game files that game's
/// journaled moves first, so the order of a game's writes is kept.
class WriteStatements {
  public:
    static Expected<WriteStatements, StorageError> prepare(sqlite::Connection& connection,
                                                           bool use_journal);

    /// Applies one GameWrite (header update or insert, truncate, idempotent append) inside the
    /// caller's open transaction. On failure the caller must roll the write back.
    Expected<void, StorageError> apply(const GameWrite& change);

    /// Files the journal into `moves` and each game's last journaled columns into its row, part
    /// by part, inside the caller's open transaction. A filing covers the journal as it was when
    /// its first part began; each part files the moves of up to `games` of its games (0: all that
    /// are left). After the last part the filed rows leave the journal, and true is returned.
    /// Between parts, and across transactions, the journal keeps rows already filed: readers
    /// skip a journaled ply that `moves` holds, and filing one again changes nothing. Moves of a
    /// game that is no longer in `games` are dropped with it, as `moves` rows are.
    Expected<bool, StorageError> file_journal_part(std::size_t games);

    /// Whether a filing has begun and not finished (see file_journal_part()).
    bool filing() const { return filing_.has_value(); }

    /// Moves in the journal, not filed yet; read from the database only if a rollback made the
    /// count unknown.
    Expected<std::size_t, StorageError> count_journaled();

    /// To be called whenever a transaction that ran apply() or file_journal_part() is rolled back:
    /// the headers and journal rows this object remembers may then not be in the database.
    void forget_written();

    /// To be called at the start of every write transaction, before apply() or file_journal_part():
    /// if another connection committed since the last call (a game deleted by hand, say), what
    /// this object remembers may no longer be what the database holds, and it is forgotten.
    /// One `PRAGMA data_version` a transaction, in place of a look-up of each journaled move's
    /// game row.
    void note_other_commits();

  private:
    /// The most headers remembered; past it the memory starts afresh (only a speed-up is lost).
    static constexpr std::size_t max_remembered_headers = 100000;

    /// What this connection last wrote for an unfinished game.
    struct Written {
        GameRow header;
        /// The game's last stored ply (in `moves` or the journal), once looked up; forgotten at
        /// every write that does not go to the journal.
        std::optional<std::uint32_t> last_ply;
    };

    Expected<void, StorageError> write_header(const GameRow& header);
    Expected<void, StorageError> append(const std::string& game_id, const MoveRow& move);
    /// Writes `change` to the journal if it qualifies (see the class comment): true if it did.
    Expected<bool, StorageError> journal(const GameWrite& change);
    /// Files one game's journaled moves into `moves` (its header is about to be written).
    Expected<void, StorageError> file_game(const std::string& game_id);
    /// Sets the header columns of `games` (those still journaled) to those of their last
    /// journal row (in file_journal_part(), after their moves are filed).
    Expected<void, StorageError> file_headers(std::span<const std::string> games);
    /// Reloads which games have journaled moves, after a rollback made it unknown.
    Expected<void, StorageError> know_journal();

    sqlite::Connection* connection_ = nullptr;
    bool use_journal_ = false;
    sqlite::Statement update_game_;
    sqlite::Statement insert_game_;
    sqlite::Statement update_progress_;
    sqlite::Statement delete_moves_from_;
    sqlite::Statement insert_move_;
    sqlite::Statement select_move_;
    sqlite::Statement select_last_ply_;
    sqlite::Statement insert_journal_;
    sqlite::Statement file_game_moves_;
    sqlite::Statement drop_game_journal_;
    sqlite::Statement file_moves_part_;
    sqlite::Statement file_headers_;
    sqlite::Statement file_moves_after_;
    sqlite::Statement drop_journal_;
    sqlite::Statement count_journal_;
    sqlite::Statement data_version_;
    /// PRAGMA data_version at the last note_other_commits(), if it could be read.
    std::optional<std::int64_t> data_version_seen_;
    /// The header last written for each unfinished game by this connection: a write that
    /// changes only a move's columns then updates just those (see update_progress_sql).
    std::unordered_map<std::string, Written> written_;
    /// The journal as this connection left it: its row count and the games with rows in it.
    /// Unknown after a rollback until know_journal() reads it again.
    bool journal_known_ = false;
    std::size_t journal_rows_ = 0;
    std::unordered_set<std::string> journaled_games_;
    /// The rowid of the last row journaled (the next one takes the one after it).
    std::int64_t last_journal_row_ = 0;

    /// A filing begun and not finished: what it covers, and how far it got.
    struct Filing {
        std::int64_t last_row = 0;                        ///< the journal's last rowid then
        std::vector<std::string> games;                   ///< its journaled games then
        std::size_t filed = 0;                            ///< games[0, filed) are filed
        std::unordered_set<std::string> journaled_since;  ///< games with rows after last_row
    };
    std::optional<Filing> filing_;
};

/// One game with its moves, or nullopt. The caller holds a read transaction so that the header
/// and the moves come from the same snapshot.
Expected<std::optional<StoredGame>, StorageError> load_game(sqlite::Connection& connection,
                                                            const std::string& id);

/// Every game in status waiting or playing, oldest first, with its moves.
Expected<std::vector<StoredGame>, StorageError> load_unfinished_games(
    sqlite::Connection& connection);

/// The most games `list()` returns at once, whatever the query's limit.
inline constexpr std::size_t max_list_limit = 200;

/// Headers matching `query`, newest first (created_ms, then id, descending).
Expected<std::vector<GameRow>, StorageError> list_games(sqlite::Connection& connection,
                                                        const GameQuery& query);

}  // namespace arbiter::server::storage::detail
