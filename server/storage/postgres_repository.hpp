#pragma once
/// \file
/// GameRepository on PostgreSQL (issue 43): the same intents as SQLite's, with group commit. One
/// writer thread takes every queued intent into one transaction, each intent inside a savepoint
/// of its own (a failed intent is rolled back alone, the batch goes on), and runs each `done`
/// only after COMMIT returned. Reads go through a connection of their own, each in one
/// REPEATABLE READ snapshot.
///
/// The server's sync level maps to synchronous_commit on the writer's connection:
/// - full: `on`, COMMIT returns once the WAL is flushed to disk: an acknowledged write survives a
///   crash of PostgreSQL and a power loss.
/// - normal: `off`, COMMIT returns before the flush: a crash of the PostgreSQL server or of its
///   machine may lose the last acknowledged commits (up to three times wal_writer_delay, 600 ms
///   by default), never the database's consistency. A crash of Arbiter loses nothing.
///
/// Only games are stored here so far; accounts, players and analyses stay on SQLite (the next
/// step of issue 43), although the schema (schema/postgres) already holds their tables.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/storage/pg.hpp"
#include "server/storage/repository.hpp"
#include "server/storage/synchronous.hpp"

namespace arbiter::server::storage {

/// Tuning of PostgresRepository::open.
struct PostgresOptions {
    Synchronous synchronous = Synchronous::full;
    /// The most writes grouped into one transaction.
    std::size_t max_batch = 512;
};

class PostgresRepository final : public GameRepository {
  public:
    /// Connects to `conninfo` (a libpq URI, "postgresql://user@host:port/db", or key=value
    /// string), brings the schema up to date and starts the writer.
    static Expected<std::unique_ptr<PostgresRepository>, StorageError> open(
        const std::string& conninfo, const PostgresOptions& options = {});

    PostgresRepository(const PostgresRepository&) = delete;
    PostgresRepository& operator=(const PostgresRepository&) = delete;
    /// Commits every queued write, then disconnects.
    ~PostgresRepository() override;

    void write(GameIntent intent, Done done) override;
    void flush() override;

    Expected<std::vector<StoredGame>, StorageError> load_unfinished() override;
    Expected<std::optional<StoredGame>, StorageError> load(const std::string& id) override;
    Expected<std::vector<GameRow>, StorageError> list(const GameQuery& query) override;

    /// The server answers, and is not a read-only standby.
    bool writable() override;
    /// pg_database_size of the database: every table and index in it, not only Arbiter's.
    std::uint64_t size_bytes() override;
    /// Always an error: a PostgreSQL database is backed up with pg_dump, not by the server.
    Expected<void, StorageError> backup(const std::string& path) override;

  private:
    struct Pending {
        GameIntent intent;
        Done done;
    };

    PostgresRepository(std::string conninfo, const PostgresOptions& options, pg::Connection writer,
                       pg::Connection reader, pg::Connection probe);

    /// The writer thread: batches until stopped and the queue is empty.
    void run();
    /// One batch in one transaction, each intent in a savepoint; the result of each.
    std::vector<Expected<void, StorageError>> commit_batch(const std::vector<Pending>& batch);
    /// The writer's connection up, its session set and its statements prepared.
    Expected<void, StorageError> ready_writer();
    /// Runs `read` on the reader's connection inside one read-only snapshot.
    template <class Read>
    auto read_snapshot(const std::string& what, Read&& read) -> decltype(read());

    const std::string conninfo_;
    const PostgresOptions options_;

    std::mutex read_mutex_;
    pg::Connection reader_;
    std::mutex probe_mutex_;
    pg::Connection probe_;

    pg::Connection writer_;  ///< the writer thread's alone
    bool writer_ready_ = false;

    std::mutex queue_mutex_;
    std::condition_variable wake_;
    std::condition_variable drained_;
    std::deque<Pending> queue_;
    std::uint64_t submitted_ = 0;
    std::uint64_t completed_ = 0;
    bool stopping_ = false;
    std::thread thread_;  ///< declared last: started once everything above is
};

}  // namespace arbiter::server::storage
