#pragma once
/// \file
/// The first failed fsync of a database, which every part of a SqliteRepository that syncs it
/// reports (the writer's commits, the checkpoints, the health probe's write) and the writer and
/// the probe obey. Internal to arbiter_storage.

#include <mutex>
#include <optional>
#include <string_view>

#include "server/storage/sqlite.hpp"

namespace arbiter::server::storage::detail {

/// After a failed fsync, of a file or of the folder that holds it, the kernel may have dropped
/// the pages it could not write while keeping them in its cache as written (Linux marks them
/// clean), so a later fsync that succeeds says nothing about them: frames an earlier commit left
/// for the next sync (a filing's, which commits at NORMAL) can be missing from the disk, and a
/// crash then ends the WAL there, before writes acknowledged after them. PostgreSQL stops on a
/// failed fsync for this reason ("fsyncgate", 2018); the repository refuses every write from
/// then on. Thread-safe.
class SyncFailure {
  public:
    /// Remembers the first failed fsync, if SQLite's extended result `code` is one.
    void note(int code, std::string_view doing);
    /// The same for `connection`'s last failure (right after it, before any rollback).
    void note(const sqlite::Connection& connection, std::string_view doing);
    /// The error every write gets once an fsync failed; nullopt before.
    std::optional<StorageError> refusal() const;

  private:
    mutable std::mutex mutex_;
    std::optional<StorageError> failure_;
};

}  // namespace arbiter::server::storage::detail
