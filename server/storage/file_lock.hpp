#pragma once
/// \file
/// An exclusive lock on a file beside the database, held for the life of a repository, so that a
/// second server cannot open the same database: it would restore the same unfinished games and
/// take moves for them apart from the first, each writing over the other's.

#include <string>

#include "common/core/expected.hpp"
#include "server/storage/stored_game.hpp"

namespace arbiter::server::storage::detail {

/// flock(2) on `path` (created if missing, never removed). The kernel releases it when the
/// process ends, however it ends, so a killed server leaves nothing to clean up. Move-only.
class ExclusiveFileLock {
  public:
    /// Takes the lock without waiting and writes this process's id into the file; if another
    /// process holds it, the error names that process's id as the file records it.
    static Expected<ExclusiveFileLock, StorageError> acquire(const std::string& path);

    ExclusiveFileLock() = default;
    ExclusiveFileLock(ExclusiveFileLock&& other) noexcept;
    ExclusiveFileLock& operator=(ExclusiveFileLock&& other) noexcept;
    ExclusiveFileLock(const ExclusiveFileLock&) = delete;
    ExclusiveFileLock& operator=(const ExclusiveFileLock&) = delete;
    ~ExclusiveFileLock();

  private:
    int fd_ = -1;
};

}  // namespace arbiter::server::storage::detail
