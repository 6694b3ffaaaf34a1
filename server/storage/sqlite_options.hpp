#pragma once
/// \file
/// The settings of a SqliteRepository, and what its writer reports of itself.

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "server/storage/synchronous.hpp"

namespace arbiter::server::storage {

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
    /// `games`, in a transaction of their own after a batch (see detail::MoveJournal). A move's
    /// commit then writes a row at the journal's end, not a page of its game's moves and one of
    /// its header; filing writes each game's pages once for all its moves since the last
    /// filing. 0: no journal, every move is written to `moves` in its own batch.
    std::size_t journal_rows = 256;
    /// A filing goes by parts of this many games (each part their moves into `moves` and their
    /// headers), and commits after a part when a write is waiting, which goes next: a move then
    /// waits for one part of a filing, not all of it (at FULL a whole filing of 256 moves took
    /// ~2 ms here, most of it per game: its page of `moves` and its row of `games`). 0 counts
    /// as 1.
    std::size_t filing_part_games = 8;
    /// Whether WAL checkpoints run on their own thread. Without it only the writer's own pass
    /// (past Checkpointer::kInlineWalPages) keeps the WAL bounded: for tests of that pass.
    bool checkpoint_thread = true;
    /// After a failed batch writable() is false until a batch commits, or, once no batch has
    /// been tried for this long, until a write of its own commits: a server that no player
    /// writes to (a balancer sends none to an unhealthy one) still finds that its disk has room
    /// again. While batches keep coming, their outcome is the answer.
    std::chrono::milliseconds write_probe_after{1000};
    /// Whether a game's write may commit on its caller's thread while the writer has nothing to
    /// do (GameRepository::write_here): at a low rate a move then wakes no other thread. Never at
    /// synchronous = FULL, whose commits wait for the disk.
    bool commit_on_caller = true;
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
    std::uint64_t committed_here = 0;      ///< writes committed on their caller's thread
    std::size_t queued = 0;                ///< writes waiting now
};

}  // namespace arbiter::server::storage
