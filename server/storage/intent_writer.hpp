#pragma once
/// \file
/// What each GameIntent writes in SQLite, inside a write transaction the caller holds. Internal
/// to arbiter_storage: the group-commit writer (group_commit_writer.hpp) owns the transactions.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/core/expected.hpp"
#include "server/storage/intents.hpp"
#include "server/storage/move_journal.hpp"
#include "server/storage/sqlite.hpp"

namespace arbiter::server::storage::detail {

/// The writer's prepared statements, compiled once and reused for every intent.
///
/// An AppendMove that does not end its game is written to the move journal when the journal is
/// on and the move is its game's next ply; every other intent files its game's journaled moves
/// first (MoveJournal::file_game), then updates just the columns the intent names. A write that
/// does not apply (no such game, a move that does not follow, another move at a stored ply)
/// fails, and the caller rolls the transaction back.
class IntentWriter {
  public:
    static Expected<IntentWriter, StorageError> prepare(sqlite::Connection& connection,
                                                        bool use_journal);

    /// Writes one intent inside the caller's open transaction. On failure the caller must roll
    /// the transaction back (and call forget()).
    Expected<void, StorageError> apply(const GameIntent& intent);

    /// One part of a filing of the move journal (MoveJournal::file_part).
    Expected<bool, StorageError> file_journal_part(std::size_t games) {
        return journal_.file_part(games);
    }
    /// Whether a filing has begun and not finished.
    bool filing() const { return journal_.filing(); }
    /// Moves in the journal, not filed yet.
    Expected<std::size_t, StorageError> count_journaled() { return journal_.count(); }

    /// To be called whenever a transaction that ran apply() or file_journal_part() is rolled
    /// back: what this object remembers may then not be in the database.
    void forget();
    /// To be called at the start of every write transaction: if another connection committed
    /// since the last call (a game deleted by hand, say), what this object remembers may no
    /// longer be what the database holds, and it is forgotten. One `PRAGMA data_version` a
    /// transaction, in place of a look-up of each move's game row.
    void note_other_commits();

  private:
    /// The most games whose ply is remembered; past it the memory starts afresh (only a look-up
    /// per game is lost).
    static constexpr std::size_t kMaxRememberedPlies = 100000;

    Expected<void, StorageError> write(const CreateGame& create);
    Expected<void, StorageError> write(const SeatPlayer& seat);
    Expected<void, StorageError> write(const AppendMove& append);
    Expected<void, StorageError> write(const TakeBack& take_back);
    Expected<void, StorageError> write(const SetOffers& offers);
    Expected<void, StorageError> write(const RecordEvent& event);
    Expected<void, StorageError> write(const EndGame& end);
    Expected<void, StorageError> write(const LinkRematch& link);
    Expected<void, StorageError> write(const StoreClocks& clocks);
    Expected<void, StorageError> write(const PruneAborted& prune);
    Expected<void, StorageError> write(const PostChat& chat);

    /// A rated game's end: its players' ratings rows, history rows and the game's changes.
    Expected<void, StorageError> write_ratings(const std::string& game,
                                               const RatingsSettled& settled);
    /// Journals `append` if it is its game's next ply: true if it did.
    Expected<bool, StorageError> journal_if_next(const AppendMove& append);
    /// Why `append` changed no row: ok when its ply holds the same move (a resend), else an error.
    Expected<void, StorageError> explain_no_change(const AppendMove& append);
    /// Runs `statement`, an UPDATE of `game`'s row: an error when there is no such row.
    Expected<void, StorageError> update_row(sqlite::Statement& statement, const std::string& game);
    /// The game's last stored ply, from memory or its row; nullopt when it is not stored.
    Expected<std::optional<std::uint32_t>, StorageError> stored_ply(const std::string& game);
    void remember_ply(const std::string& game, std::uint32_t ply);

    sqlite::Connection* connection_ = nullptr;
    bool use_journal_ = false;
    MoveJournal journal_;
    sqlite::Statement insert_game_;
    sqlite::Statement seat_first_;
    sqlite::Statement seat_second_;
    sqlite::Statement append_;
    sqlite::Statement append_ending_;
    sqlite::Statement insert_move_;
    sqlite::Statement select_move_;
    sqlite::Statement select_ply_;
    sqlite::Statement take_back_;
    sqlite::Statement delete_moves_after_;
    sqlite::Statement set_offers_;
    sqlite::Statement record_event_;
    sqlite::Statement insert_chat_;
    sqlite::Statement end_game_;
    sqlite::Statement link_rematch_;
    sqlite::Statement store_clocks_;
    sqlite::Statement prune_aborted_;
    sqlite::Statement upsert_rating_;
    sqlite::Statement insert_rating_history_;
    sqlite::Statement rating_diffs_;
    sqlite::Statement data_version_;
    /// PRAGMA data_version at the last note_other_commits(), if it could be read.
    std::optional<std::int64_t> data_version_seen_;
    /// The last stored ply of each unfinished game this connection wrote or looked up (in
    /// `moves` or the journal): a move is journaled only as its game's next ply, and this
    /// says which that is without reading the game's row.
    std::unordered_map<std::string, std::uint32_t> plies_;
};

}  // namespace arbiter::server::storage::detail
