#pragma once
/// \file
/// What each GameIntent writes in PostgreSQL, inside a transaction the caller holds: the same
/// meaning as SQLite's IntentWriter (intent_writer.hpp), without its move journal. Internal to
/// arbiter_storage: PostgresRepository's writer owns the transactions.

#include <cstdint>
#include <string>
#include <vector>

#include "common/core/expected.hpp"
#include "server/storage/intents.hpp"
#include "server/storage/pg.hpp"

namespace arbiter::server::storage::detail {

/// A cluster node's claim on the game an intent writes (postgres_lease.hpp says why).
struct OwnerFence {
    std::string node;
    /// CreateGame: the lease the game is created under; it must be live, by the database's clock.
    std::uint64_t incarnation = 0;
    /// Any other intent: the game's owner_epoch as this node holds it.
    std::uint64_t epoch = 0;
};

/// One statement an intent runs, and what it answers when the intent applies as it should.
struct Step {
    enum class Expect {
        anything,     ///< whatever it changed (no error is all it must give)
        one_changed,  ///< it changed one row
        one_row,      ///< it found one row
    };
    pg::Statement statement;
    Expect expect = Expect::anything;

    /// Whether `result` is what a statement expected to answer `expect` answered.
    static bool answered(Expect expect, const pg::Result& result) noexcept;
    /// Whether `result` is what the statement answers when its intent applies.
    bool answered(const pg::Result& result) const noexcept { return answered(expect, result); }
};

/// Writes intents through statements prepared once on its connection. A write that does not
/// apply (no such game, a move that does not follow, another move at a stored ply) fails, and
/// the caller rolls back to before it.
///
/// Prepared `owned` (a cluster node), every statement that changes a game's row also checks, in
/// the same statement, that the row's owner_node and owner_epoch are the intent's OwnerFence: a
/// write of a game that another node adopted changes no row, and fails `fenced`. A game is
/// created with the node as its owner at epoch 1, once the node's lease is found live.
class PostgresIntentWriter {
  public:
    /// Prepares the statements on `connection` (again after every reconnection), with the owner
    /// check when `owned`.
    static Expected<void, StorageError> prepare(pg::Connection& connection, bool owned);

    /// `owned` as the statements were prepared.
    PostgresIntentWriter(pg::Connection& connection, bool owned) noexcept
        : connection_(&connection), owned_(owned) {}

    /// Owned, first in a transaction that will create a game: locks the node's row (FOR SHARE,
    /// to the commit) before any game's row is touched, the order in which a join under the same
    /// id locks them (postgres_lease.cpp). Taken later, at the CreateGame, after an earlier
    /// intent of the batch locked a game that the join must release, each would wait for the
    /// other.
    Expected<void, StorageError> lock_node_row(const std::string& node, std::uint64_t incarnation);

    /// Writes one intent inside the caller's open transaction. Owned, every intent but
    /// PruneAborted comes with its fence.
    Expected<void, StorageError> apply(const GameIntent& intent, const OwnerFence* fence = nullptr);

    /// The statements apply() runs for `intent` when it applies, in order, each with what it
    /// answers then: sent together (one round trip), they write what apply() writes as long as
    /// every one answers as expected. When one does not, apply() alone says why (a resend, a
    /// gap, a fenced write ...): roll back and apply one by one.
    std::vector<Step> plan(const GameIntent& intent, const OwnerFence* fence = nullptr);

  private:
    std::vector<Step> steps(const CreateGame& create) const;
    std::vector<Step> steps(const SeatPlayer& seat) const;
    std::vector<Step> steps(const AppendMove& append) const;
    std::vector<Step> steps(const TakeBack& take_back) const;
    std::vector<Step> steps(const SetOffers& offers) const;
    std::vector<Step> steps(const RecordEvent& event) const;
    std::vector<Step> steps(const EndGame& end) const;
    std::vector<Step> steps(const LinkRematch& link) const;
    std::vector<Step> steps(const StoreClocks& clocks) const;
    std::vector<Step> steps(const PruneAborted& prune) const;
    std::vector<Step> steps(const PostChat& chat) const;
    /// A rated game's end: both seats' ratings and history, then the game's rating changes.
    static void add_rating_steps(std::vector<Step>& steps, const std::string& game,
                                 const RatingsSettled& settled);
    /// The prepared statement `name` that changes a game's row, with the fence's two
    /// parameters after `params` when owned: one row changed when it applies.
    Step fenced(std::string name, pg::Params params) const;
    /// Runs one step's statement.
    Expected<pg::Result, StorageError> run(const Step& step);
    /// Runs one step's statement, whatever it changed: only a failure is an error.
    Expected<void, StorageError> execute(const Step& step);
    /// Locks the node's row FOR SHARE to the commit, found only while its lease is live under
    /// `incarnation` (lock_node_row, CreateGame's check_lease).
    static Step lease_lock(const std::string& node, std::uint64_t incarnation);

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

    /// Runs the rating steps of `settled` (add_rating_steps), in `steps` from `first` on.
    Expected<void, StorageError> write_ratings(const std::string& game,
                                               const RatingsSettled& settled,
                                               const std::vector<Step>& steps, std::size_t first);
    /// Why `append` changed no row: ok when its ply holds the same move (a resend), else an error.
    Expected<void, StorageError> explain_no_change(const AppendMove& append);
    /// Why a write that needs the game at some ply changed no row: not stored, or at which ply.
    Expected<void, StorageError> explain_ply(const std::string& game, const std::string& wanted);
    /// Runs a fenced UPDATE of `game`'s row: an error when it changed none.
    Expected<void, StorageError> update_row(const Step& step, const std::string& game);
    /// Owned: a `fenced` error when `game` is stored but not at this fence's owner and epoch.
    Expected<void, StorageError> check_owner(const std::string& game);
    /// Owned: a `fenced` error unless the node's lease is live under the fence's incarnation;
    /// the node's row stays locked FOR SHARE to the commit (a join under the same id waits).
    /// `lock` is the CreateGame's first step.
    Expected<void, StorageError> check_lease(const Step& lock, const std::string& game);

    pg::Connection* connection_;
    bool owned_ = false;
    const OwnerFence* fence_ = nullptr;  ///< the intent being applied's
};

}  // namespace arbiter::server::storage::detail
