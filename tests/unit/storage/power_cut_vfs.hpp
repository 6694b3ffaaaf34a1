#pragma once
// A SQLite VFS for tests that models what a power cut keeps. SIGKILL tests cannot tell whether
// anything was ever synced: the kernel's page cache outlives the process. This VFS passes every
// call to the real one (so the live database sees every write, as through a page cache) and
// keeps, beside each database and WAL file, the image of what the disk holds: a write joins the
// file's pending writes, and xSync makes them durable. cut() then copies, for each file, its
// durable image plus any chosen subset of its pending writes into another folder: the files a
// machine would find after losing power at that instant. xSync does not call the real fsync,
// which the model does not need.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace arbiter::server::storage::testing {

/// While alive, the default VFS of the process is the power-cut model. One at a time.
class PowerCutVfs {
  public:
    PowerCutVfs();
    PowerCutVfs(const PowerCutVfs&) = delete;
    PowerCutVfs& operator=(const PowerCutVfs&) = delete;
    /// Makes the real VFS the default again.
    ~PowerCutVfs();

    /// The power goes off: writes each tracked file into `folder` (same file names) as the disk
    /// holds it, its writes since its last sync each kept with `keep_unsynced` probability
    /// (0: none, 1: all; chosen with `seed`). Later calls change nothing that was copied. Returns
    /// false if a file could not be written.
    bool cut(const std::string& folder, double keep_unsynced, std::uint32_t seed);

    /// Runs `record` unless the power is already off, atomically with respect to cut(): what a
    /// caller records here happened before the cut. Returns whether it ran.
    bool if_powered(const std::function<void()>& record);

    /// The next sync of a WAL with at least `pending_writes` writes not synced yet fails with
    /// SQLITE_IOERR_FSYNC, as on a failing disk: those writes never reach it (the live file keeps
    /// them, as the kernel's page cache does), and later syncs do not retry them. Once. As in
    /// Linux since 4.13, the next sync through each other handle then open on the file fails too.
    void fail_next_wal_sync(std::size_t pending_writes);
    /// Whether that sync has failed.
    bool wal_sync_failed() const;

    /// While `full`, writes to the database or its WAL that would grow the file fail with
    /// SQLITE_FULL (ENOSPC) and change nothing; writes within the file still go in place.
    void set_disk_full(bool full);

    /// Syncs seen so far (to tell that a run synced at all).
    std::uint64_t syncs() const;
};

}  // namespace arbiter::server::storage::testing
