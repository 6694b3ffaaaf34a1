#pragma once
/// \file
/// The WAL checkpoints of a SqliteRepository, off the writer's path. Internal to arbiter_storage.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "server/storage/sqlite.hpp"
#include "server/storage/sync_failure.hpp"

struct sqlite3;

namespace arbiter::server::storage::detail {

/// What the checkpoints have done so far.
struct CheckpointStats {
    std::uint64_t checkpoints = 0;         ///< run by the checkpoint thread
    std::uint64_t inline_checkpoints = 0;  ///< finished by the writer so that the WAL restarts
    std::uint64_t wal_restarts = 0;        ///< commits that wrote the WAL from its start again
};

/// Copies the WAL back into the database file on a thread and a connection of its own, woken by
/// the writer's commits (a WAL hook on the writer's connection). It replaces SQLite's automatic
/// checkpoint, which ran inside the COMMIT of whichever batch crossed 1000 WAL pages: copying
/// the pages and syncing the database file then delayed every move of that batch (p99 at NORMAL
/// went 9 -> 22 ms on the load benchmark). Not movable: the hook and the thread hold `this`.
class Checkpointer {
  public:
    /// WAL pages after a commit from which the thread is woken (SQLite's default automatic
    /// checkpoint threshold), and from which the writer finishes the checkpoint itself so that
    /// the WAL restarts (see on_wal_commit).
    static constexpr int kWalPages = 1000;
    static constexpr int kInlineWalPages = 4 * kWalPages;

    Checkpointer(sqlite::Connection connection, SyncFailure& sync_failure);
    Checkpointer(const Checkpointer&) = delete;
    Checkpointer& operator=(const Checkpointer&) = delete;
    /// Stops the thread; unwatch() the writer first.
    ~Checkpointer();

    /// Hooks the commits of `writer`, the connection that writes the WAL (its own thread runs the
    /// hook), until unwatch(writer).
    void watch(sqlite::Connection& writer);
    void unwatch(sqlite::Connection& writer);
    /// Starts the checkpoint thread. Without it only the writer's own pass (past
    /// kInlineWalPages) keeps the WAL bounded.
    void start();

    CheckpointStats stats() const;
    /// The WAL's frames after the last commit on the watched connection (any thread).
    int wal_pages() const { return wal_pages_.load(std::memory_order_relaxed); }

  private:
    /// sqlite3_wal_hook of the writer's connection: runs after each commit, on the thread that
    /// committed (the writer's, or a caller's in GroupCommitWriter::commit_here).
    static int on_wal_commit(void* self, sqlite3* connection, const char* database, int pages);
    void run();

    sqlite::Connection connection_;
    SyncFailure& sync_failure_;
    std::mutex mutex_;
    std::condition_variable wanted_;
    bool requested_ = false;
    bool stopping_ = false;
    std::atomic<bool> checkpointing_{false};  ///< the thread is inside a checkpoint
    /// The WAL's frames after the writer's last commit; written by its hook only.
    std::atomic<int> wal_pages_{0};
    std::atomic<std::uint64_t> checkpoints_{0};
    std::atomic<std::uint64_t> inline_checkpoints_{0};
    std::atomic<std::uint64_t> wal_restarts_{0};
    std::thread thread_;
};

}  // namespace arbiter::server::storage::detail
