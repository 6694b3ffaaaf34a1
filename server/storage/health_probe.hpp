#pragma once
/// \file
/// Whether a SqliteRepository can take a write now (GameRepository::writable, /healthz).
/// Internal to arbiter_storage.

#include <chrono>
#include <cstdint>
#include <mutex>

#include "server/storage/sqlite.hpp"
#include "server/storage/sqlite_options.hpp"
#include "server/storage/sync_failure.hpp"

namespace arbiter::server::storage::detail {

/// How the writer's last batch went, as the probe weighs it.
struct LastBatch {
    bool failed = false;
    std::chrono::steady_clock::time_point at{};  ///< when it ended
};

/// Asks the database, on a connection of its own, whether a write would go through: the write
/// lock can be taken, the file is below its cap with room for a few batches of moves, and after
/// a failed batch, a write of its own commits. Thread-safe.
class HealthProbe {
  public:
    HealthProbe(sqlite::Connection connection, const SqliteOptions& options,
                SyncFailure& sync_failure);

    /// False once an fsync failed; false right after a failed batch (for write_probe_after),
    /// then as a write of the probe's own goes; else whether BEGIN IMMEDIATE succeeds (waiting
    /// at most busy_timeout) and, with max_size_bytes, whether the file has room.
    bool writable(const LastBatch& last_batch);

  private:
    /// Whether a small write commits now, in `transaction` on connection_.
    bool probe_write(sqlite::Transaction& transaction);

    std::mutex mutex_;
    sqlite::Connection connection_;
    const std::chrono::milliseconds write_probe_after_;
    const std::uint64_t max_size_bytes_;
    SyncFailure& sync_failure_;
};

}  // namespace arbiter::server::storage::detail
