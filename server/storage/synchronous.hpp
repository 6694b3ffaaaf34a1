#pragma once
/// \file
/// How hard a commit is pushed to the disk before its writes are acknowledged: the server's
/// --sync, which each engine maps to its own setting (SQLite: PRAGMA synchronous in WAL mode;
/// PostgreSQL: synchronous_commit, postgres_repository.hpp).

#include <cstdint>

namespace arbiter::server::storage {

/// How hard a commit is pushed to the disk. The comments say what SQLite does.
enum class Synchronous : std::uint8_t {
    /// The WAL is fsynced at every commit: an acknowledged write survives SIGKILL and power loss.
    full,
    /// fsync only at checkpoints: an acknowledged write survives a crash of the process
    /// (SIGKILL), but the last commits may be lost if the machine loses power.
    normal,
};

}  // namespace arbiter::server::storage
