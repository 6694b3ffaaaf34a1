#pragma once
/// \file
/// What each GameIntent writes in PostgreSQL, inside a transaction the caller holds: the same
/// meaning as SQLite's IntentWriter (intent_writer.hpp), without its move journal. Internal to
/// arbiter_storage: PostgresRepository's writer owns the transactions.

#include <string>

#include "common/core/expected.hpp"
#include "server/storage/intents.hpp"
#include "server/storage/pg.hpp"

namespace arbiter::server::storage::detail {

/// Writes intents through statements prepared once on its connection. A write that does not
/// apply (no such game, a move that does not follow, another move at a stored ply) fails, and
/// the caller rolls back to before it.
class PostgresIntentWriter {
  public:
    /// Prepares the statements on `connection` (again after every reconnection).
    static Expected<void, StorageError> prepare(pg::Connection& connection);

    explicit PostgresIntentWriter(pg::Connection& connection) noexcept : connection_(&connection) {}

    /// Writes one intent inside the caller's open transaction.
    Expected<void, StorageError> apply(const GameIntent& intent);

  private:
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

    Expected<void, StorageError> write_ratings(const std::string& game,
                                               const RatingsSettled& settled);
    /// Why `append` changed no row: ok when its ply holds the same move (a resend), else an error.
    Expected<void, StorageError> explain_no_change(const AppendMove& append);
    /// Why a write that needs the game at some ply changed no row: not stored, or at which ply.
    Expected<void, StorageError> explain_ply(const std::string& game, const std::string& wanted);
    /// Runs the prepared UPDATE `name` of `game`'s row: an error when there is no such row.
    Expected<void, StorageError> update_row(const std::string& name, const pg::Params& params,
                                            const std::string& game);

    pg::Connection* connection_;
};

}  // namespace arbiter::server::storage::detail
