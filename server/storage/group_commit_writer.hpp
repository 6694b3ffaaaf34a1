#pragma once
/// \file
/// The writer of a SqliteRepository: one thread, one connection, writes grouped into one
/// transaction per batch. Internal to arbiter_storage.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "common/core/expected.hpp"
#include "server/storage/account_store.hpp"
#include "server/storage/account_writer.hpp"
#include "server/storage/analysis_rows.hpp"
#include "server/storage/health_probe.hpp"
#include "server/storage/intent_writer.hpp"
#include "server/storage/repository.hpp"
#include "server/storage/sqlite.hpp"
#include "server/storage/sqlite_options.hpp"
#include "server/storage/sync_failure.hpp"
#include "server/storage/write_intent.hpp"

namespace arbiter::server::storage::detail {

/// Takes everything queued (up to SqliteOptions::max_batch writes), applies it in ONE
/// transaction (BEGIN IMMEDIATE … COMMIT), and only then runs each write's callback, in
/// submission order. One fsync thus acknowledges a whole batch of moves from many games. If one
/// write fails (a move that does not follow, a CHECK), the batch is rolled back and replayed
/// without it, so only that write fails. If the failure cannot be pinned on one write (SQLite
/// rolled the transaction back itself on SQLITE_FULL or an I/O error, or COMMIT failed), the
/// batch is retried one write per transaction, so every callback still reports its own write's
/// fate. After a failed fsync every write is refused (SyncFailure).
///
/// After each batch's callbacks it files the move journal once it holds journal_rows moves, a
/// few games at a time, committing part way when writes are waiting (filing_part_games). Not
/// movable: the thread and the statements hold `this` and its connection.
class GroupCommitWriter {
  public:
    GroupCommitWriter(sqlite::Connection connection, const SqliteOptions& options,
                      SyncFailure& sync_failure);
    GroupCommitWriter(const GroupCommitWriter&) = delete;
    GroupCommitWriter& operator=(const GroupCommitWriter&) = delete;
    /// stop().
    ~GroupCommitWriter();

    /// Compiles the write statements; before anything else.
    Expected<void, StorageError> prepare();
    /// The connection every write goes through (for the WAL hook).
    sqlite::Connection& connection() noexcept { return connection_; }
    /// Files whatever the journal holds, in one transaction: at open (moves journaled before a
    /// crash), before start().
    void file_whole_journal() { file_journal(1, false); }
    /// Starts the thread.
    void start();
    /// Commits everything queued (running its callbacks), stops the thread and files the
    /// journal, so that a stopped server leaves every move in `moves`.
    void stop();

    /// Queues one write (any thread). `done` may be empty; it runs on the writer's thread, must
    /// not throw, and must not call flush(); calling submit() from it is fine.
    void submit(WriteIntent intent, GameRepository::Done done);
    /// Commits `intent` on the calling thread, now, when that costs no other write anything: the
    /// connection is free (no batch, filing or other caller's commit under way), nothing is
    /// queued, and lately writes have seldom found it otherwise (below). Returns the outcome, or
    /// nothing, leaving `intent` as it was, when it should be submit()ted instead.
    ///
    /// At a low rate each move is its own transaction either way; committed here it skips two
    /// hand-offs to and from the writer's thread, each a wake-up of a sleeping thread. Under load
    /// writes overlap, and then only the writer's batches share one transaction (and one fsync)
    /// among many: a moving average (weight 1/8) of whether each write found the connection busy
    /// or writes queued closes this path while it is at or above kOverlapGate.
    std::optional<Expected<void, StorageError>> commit_here(GameIntent& intent);
    /// Returns once every write submitted before the call committed and its callback returned.
    void flush();

    /// How the last batch went (for the health probe).
    LastBatch last_batch();
    /// Counts so far (the checkpoint fields are the Checkpointer's).
    WriterStats stats();

    /// overlap_ at or above this (1/4) closes commit_here().
    static constexpr unsigned kOverlapGate = 64;

  private:
    struct Pending {
        WriteIntent intent;
        GameRepository::Done done;
    };
    using Result = Expected<void, StorageError>;

    void run();
    std::vector<Result> commit_batch(const std::vector<Pending>& batch);
    std::vector<Result> commit_one_by_one(const std::vector<Pending>& batch);
    Result commit_alone(const WriteIntent& intent);
    /// Applies `intent` inside `transaction` and commits it, for commit_alone() and
    /// commit_here(). A failure forgets what the statements remember (the Transaction's
    /// destructor rolls back); `store_failed` says whether the store failed (COMMIT, or SQLite
    /// rolled back itself) rather than the write (one that does not follow).
    Result apply_and_commit(sqlite::Transaction& transaction, const WriteIntent& intent,
                            bool& store_failed);
    /// Writes one intent inside the open transaction (IntentWriter or AccountWriter).
    Result apply(const WriteIntent& intent);
    /// Files the move journal in a transaction of its own if it holds at least `at_least` moves,
    /// or goes on with a filing begun before. With `yield_to_writes`, the filing goes by parts of
    /// filing_part_games games and commits as soon as a write waits after a part; the next pass
    /// goes on with it. A failure leaves the journal as it was: readers merge it, and the next
    /// filing tries again.
    void file_journal(std::size_t at_least, bool yield_to_writes);
    /// Whether the move journal holds journal_rows moves, or a filing is under way: the writer's
    /// thread files it next (holding the connection).
    bool journal_due();
    /// Whether a write is queued (any thread).
    bool writes_waiting();
    /// BEGIN IMMEDIATE, for every write transaction: the statements learn there whether another
    /// connection committed since (IntentWriter::note_other_commits).
    Expected<sqlite::Transaction, StorageError> begin_write();
    void set_last_batch(bool failed);
    /// Adds one write's observation to overlap_ (mutex_ held).
    void note_overlap(bool found_busy);

    const SqliteOptions options_;
    SyncFailure& sync_failure_;

    // Used by whoever set committing_ (the writer's thread, or a commit_here() caller), and before
    // start() and after stop(). The statements are declared after their connection so that they
    // are finalized before it closes.
    sqlite::Connection connection_;
    IntentWriter intents_;
    AccountWriter accounts_;
    AnalysisWriter analyses_;
    /// A filing's COMMIT ran at synchronous = NORMAL and FULL could not be set back yet.
    bool full_sync_pending_ = false;

    std::mutex mutex_;
    std::condition_variable queue_ready_;  ///< a write was queued, or stopping_
    std::condition_variable progressed_;   ///< completed_ grew
    std::vector<Pending> queue_;           ///< swapped whole into the writer's batch when it fits
    /// The connection is in use: by the writer's thread (a batch, its callbacks, a filing) or by
    /// a commit_here() caller. Whoever sets it has the connection and its statements alone.
    bool committing_ = false;
    /// A commit_here() left the journal due for filing: the writer's thread files it.
    bool filing_due_ = false;
    /// Moving average of whether a write found committing_ or writes queued, in 1/256ths.
    /// Written under mutex_ only; commit_here() reads it first without.
    std::atomic<unsigned> overlap_{0};
    std::uint64_t submitted_ = 0;
    std::uint64_t completed_ = 0;
    bool stopping_ = false;
    LastBatch last_batch_;
    WriterStats stats_;

    std::thread thread_;
};

}  // namespace arbiter::server::storage::detail
