#pragma once
/// \file
/// GameRepository over one SQLite file in WAL mode.
///
/// Writes: one writer thread with its own connection takes everything queued (up to
/// SqliteOptions::max_batch writes), applies it in ONE transaction (BEGIN IMMEDIATE … COMMIT),
/// and only then runs each write's callback, in submission order. One fsync thus acknowledges a
/// whole batch of moves from many games. If one write fails (a different move at an occupied
/// ply, a CHECK), the batch is rolled back and replayed without it, so only that write fails. If
/// the failure cannot be pinned on one write (SQLite rolled the transaction back itself on
/// SQLITE_FULL or an I/O error, or COMMIT failed), the batch is retried one write per
/// transaction, so every callback still reports its own write's fate. After a failed fsync
/// (a commit's or a checkpoint's) every write is refused until the process restarts: what that
/// fsync covered may be lost whatever later ones say, so nothing more is acknowledged.
///
/// Moves that only move a game on are written to the move journal and filed into `moves` in bulk
/// (SqliteOptions::journal_rows), a few games at a time, with waiting writes committed between
/// the parts (SqliteOptions::filing_part_games); the database is opened with the journal filed,
/// and closed so.
///
/// Reads use a second connection behind a mutex, each inside a read transaction (one consistent
/// snapshot) that merges the journal; WAL lets them run beside the writer.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "server/storage/file_lock.hpp"
#include "server/storage/game_rows.hpp"
#include "server/storage/repository.hpp"
#include "server/storage/sqlite.hpp"

namespace arbiter::server::storage {

/// How hard a commit is pushed to the disk (PRAGMA synchronous in WAL mode).
enum class Synchronous : std::uint8_t {
    /// The WAL is fsynced at every commit: an acknowledged write survives SIGKILL and power loss.
    full,
    /// fsync only at checkpoints: an acknowledged write survives a crash of the process
    /// (SIGKILL), but the last commits may be lost if the machine loses power.
    normal,
};

/// Tuning of SqliteRepository::open. The defaults are what the server should run with.
struct SqliteOptions {
    Synchronous synchronous = Synchronous::full;
    /// How long a connection waits for a lock held by another connection or process.
    std::chrono::milliseconds busy_timeout{5000};
    /// The most writes grouped into one transaction.
    std::size_t max_batch = 512;
    /// A cap on the database file (PRAGMA max_page_count on the writer); 0 means none. A write
    /// that would grow the file beyond it fails with "database or disk is full".
    std::uint64_t max_size_bytes = 0;
    /// How many journaled moves the writer lets gather before it files them into `moves` and
    /// `games`, in a transaction of their own after a batch (see detail::WriteStatements). A
    /// move's commit then writes a row at the journal's end, not a page of its game's moves and
    /// one of its header; filing writes each game's pages once for all its moves since the last
    /// filing. 0: no journal, every move is written to `moves` in its own batch.
    std::size_t journal_rows = 256;
    /// A filing goes by parts of this many games (each part their moves into `moves` and their
    /// headers), and commits after a part when a write is waiting, which goes next: a move then
    /// waits for one part of a filing, not all of it (at FULL a whole filing of 256 moves took
    /// ~2 ms here, most of it per game: its page of `moves` and its row of `games`). 0 counts
    /// as 1.
    std::size_t filing_part_games = 8;
    /// Whether WAL checkpoints run on their own thread. Without it only the writer's own pass
    /// (past inline_checkpoint_wal_pages) keeps the WAL bounded: for tests of that pass.
    bool checkpoint_thread = true;
    /// After a failed batch writable() is false until a batch commits, or, once no batch has
    /// been tried for this long, until a write of its own commits: a server that no player
    /// writes to (a balancer sends none to an unhealthy one) still finds that its disk has room
    /// again. While batches keep coming, their outcome is the answer.
    std::chrono::milliseconds write_probe_after{1000};
};

/// What the writer has done so far (for metrics and tests).
struct WriterStats {
    std::uint64_t batches = 0;             ///< batches taken from the queue
    std::uint64_t committed = 0;           ///< writes whose callback got ok
    std::uint64_t failed = 0;              ///< writes whose callback got an error
    std::uint64_t replayed = 0;            ///< passes rolled back to drop a faulty write
    std::uint64_t retried_alone = 0;       ///< batches that fell back to one write per transaction
    std::uint64_t checkpoints = 0;         ///< WAL checkpoints run by the checkpoint thread
    std::uint64_t inline_checkpoints = 0;  ///< finished by the writer so that the WAL restarts
    std::uint64_t wal_restarts = 0;        ///< commits that wrote the WAL from its start again
    std::uint64_t filings = 0;             ///< filings of the move journal finished
    std::uint64_t filing_yields = 0;       ///< filings committed part way for waiting writes
    std::size_t queued = 0;                ///< writes waiting now
};

/// The SQLite GameRepository. Thread-safe: any thread may call any member.
class SqliteRepository final : public GameRepository {
  public:
    /// Opens or creates the database at `path` (a file path; ":memory:" and URIs are refused,
    /// since the writer and the reader need two connections to the same file), applies pending
    /// migrations, and starts the writer. Refuses a database newer than this binary's schema.
    static Expected<std::unique_ptr<SqliteRepository>, StorageError> open(
        const std::string& path, const SqliteOptions& options = {});

    SqliteRepository(const SqliteRepository&) = delete;
    SqliteRepository& operator=(const SqliteRepository&) = delete;
    /// Commits everything queued (running its callbacks), then stops the writer.
    ~SqliteRepository() override;

    /// `done` may be empty (fire and forget). It must not throw, and must not call flush() (it
    /// runs on the writer thread, which flush() waits for); calling write() from it is fine.
    void write(GameWrite change, Done done) override;
    /// Returns once every write submitted before the call committed and its callback returned.
    void flush() override;

    Expected<std::vector<StoredGame>, StorageError> load_unfinished() override;
    Expected<std::optional<StoredGame>, StorageError> load(const std::string& id) override;
    /// At most 200 rows whatever `query.limit` says (0 gives none). `before` is keyset paging on
    /// (created_ms, id): the games listed after that game; an unknown id gives an empty list.
    Expected<std::vector<GameRow>, StorageError> list(const GameQuery& query) override;

    /// False if the last batch could not be committed, or if a write lock cannot be taken now
    /// (BEGIN IMMEDIATE on a dedicated connection, waiting at most busy_timeout).
    bool writable() override;
    std::uint64_t size_bytes() override;
    /// Copies one consistent snapshot while writes go on; writes `path` + ".partial" first and
    /// renames it into place, so `path` is either the complete copy or untouched.
    Expected<void, StorageError> backup(const std::string& path) override;
    /// The same copy of the database at `database`, without opening a repository on it: so
    /// that it can run beside the server that holds it (`arbiter-server --backup`).
    static Expected<void, StorageError> backup_file(const std::string& database,
                                                    const std::string& path,
                                                    const SqliteOptions& options = {});

    WriterStats stats();
    const std::string& path() const noexcept { return path_; }

  private:
    struct Pending {
        GameWrite change;
        Done done;
    };
    using Result = Expected<void, StorageError>;

    /// WAL pages after a commit from which the checkpoint thread is woken (SQLite's default
    /// automatic checkpoint threshold), and from which the writer finishes the checkpoint itself
    /// so that the WAL restarts (see on_wal_commit).
    static constexpr int checkpoint_wal_pages = 1000;
    static constexpr int inline_checkpoint_wal_pages = 4 * checkpoint_wal_pages;

    SqliteRepository(std::string path, const SqliteOptions& options, detail::ExclusiveFileLock lock,
                     sqlite::Connection writer, sqlite::Connection reader, sqlite::Connection probe,
                     sqlite::Connection checkpointer);

    /// sqlite3_wal_hook of the writer connection: runs in the writer thread after each commit.
    static int on_wal_commit(void* self, sqlite3* connection, const char* database, int wal_pages);
    void run_checkpointer();
    void run_writer();
    std::vector<Result> commit_batch(const std::vector<Pending>& batch);
    /// Files the move journal in a transaction of its own if it holds at least `at_least` moves,
    /// or goes on with a filing begun before (writer thread, or before it starts and after it
    /// stopped). With `yield_to_writes`, the filing goes by parts of filing_part_games games
    /// and commits as soon as a write waits after a part; the writer's next pass goes on with
    /// it. A failure leaves the journal as it was: readers merge it, and the next filing tries
    /// again.
    void file_journal(std::size_t at_least, bool yield_to_writes = false);
    /// Whether a write is queued (any thread).
    bool writes_waiting();
    std::vector<Result> commit_one_by_one(const std::vector<Pending>& batch);
    Result commit_alone(const GameWrite& change);
    /// BEGIN IMMEDIATE on the writer's connection, for every write transaction: the write
    /// statements learn there whether another connection committed since (note_other_commits).
    Expected<sqlite::Transaction, StorageError> begin_write();
    /// Remembers the first failed fsync if SQLite's extended `code` is one (any thread).
    void note_sync_failure(int code, std::string_view doing);
    /// The same for `connection`'s last failure (right after it, before any rollback).
    void note_sync_failure(const sqlite::Connection& connection, std::string_view doing);
    /// The error every write gets once an fsync failed; nullopt before.
    std::optional<StorageError> refusal();
    /// Whether a small write of the health probe commits now, in `transaction` on probe_ (see
    /// write_probe_after).
    bool probe_write(sqlite::Transaction& transaction);

    const std::string path_;
    const SqliteOptions options_;
    /// `<path>-lock`: one server per database. Declared first, so released last.
    detail::ExclusiveFileLock lock_;

    // Used by the writer thread only (after open()). Statements are declared after their
    // connection so that they are finalized before it closes.
    sqlite::Connection writer_connection_;
    detail::WriteStatements write_statements_;
    /// A filing's COMMIT ran at synchronous = NORMAL and FULL could not be set back yet.
    bool full_sync_pending_ = false;

    // Used by the checkpoint thread only. The writer's commits append to the WAL; this
    // connection copies the WAL back into the database file off the writer's path.
    sqlite::Connection checkpointer_connection_;
    std::mutex checkpoint_mutex_;
    std::condition_variable checkpoint_wanted_;
    bool checkpoint_requested_ = false;
    bool checkpointer_stopping_ = false;
    std::atomic<bool> checkpointing_{false};  ///< the thread is inside a checkpoint
    int wal_pages_ = 0;  ///< the WAL's frames after the writer's last commit (its wal hook only)
    std::thread checkpointer_thread_;

    std::mutex read_mutex_;
    sqlite::Connection reader_;
    std::mutex probe_mutex_;
    sqlite::Connection probe_;

    std::mutex queue_mutex_;
    std::condition_variable queue_ready_;  ///< a write was queued, or stopping_
    std::condition_variable progressed_;   ///< completed_ grew
    std::vector<Pending> queue_;           ///< swapped whole into the writer's batch when it fits
    std::uint64_t submitted_ = 0;
    std::uint64_t completed_ = 0;
    bool stopping_ = false;
    bool last_batch_failed_ = false;
    std::chrono::steady_clock::time_point last_batch_at_{};  ///< when a batch last ended
    /// Set by the first failed fsync; from then on every write fails with it.
    std::optional<StorageError> sync_failure_;
    WriterStats stats_;

    std::thread writer_thread_;  ///< started last in open(), joined first in the destructor
};

}  // namespace arbiter::server::storage
