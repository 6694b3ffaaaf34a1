#pragma once
/// \file
/// GameRepository over one SQLite file in WAL mode, composed of four parts, each on its own
/// connection:
/// - the writer (detail::GroupCommitWriter): one thread applies queued intents in one
///   transaction per batch, and acknowledges each write only after its commit; moves that do not
///   end their game go to the move journal (detail::MoveJournal) and are filed in bulk. While it
///   has nothing to do, a room's write may commit on the room's own thread (write_here);
/// - the checkpointer (detail::Checkpointer): copies the WAL back into the database off the
///   writer's path;
/// - the health probe (detail::HealthProbe): writable();
/// - the backup (detail::backup_database): a consistent copy while writes go on.
/// Reads use a fifth connection behind a mutex, each inside a read transaction (one consistent
/// snapshot) that merges the journal; WAL lets them run beside the writer. The database is opened
/// with the journal filed, and closed so.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "server/storage/checkpointer.hpp"
#include "server/storage/database.hpp"
#include "server/storage/file_lock.hpp"
#include "server/storage/group_commit_writer.hpp"
#include "server/storage/health_probe.hpp"
#include "server/storage/sqlite.hpp"
#include "server/storage/sqlite_options.hpp"
#include "server/storage/sync_failure.hpp"

namespace arbiter::server::storage {

/// The SQLite Database (GameRepository, AccountStore, PlayerStore and AnalysisStore): games,
/// accounts and analyses share one file and one writer. Thread-safe: any thread may call any
/// member.
class SqliteRepository final : public Database {
  public:
    /// Opens or creates the database at `path` (a file path; ":memory:" and URIs are refused,
    /// since the parts need several connections to the same file), applies pending migrations,
    /// files what the move journal holds, and starts the writer. Refuses a database newer than
    /// this binary's schema, or one that another repository holds.
    static Expected<std::unique_ptr<SqliteRepository>, StorageError> open(
        const std::string& path, const SqliteOptions& options = {});

    SqliteRepository(const SqliteRepository&) = delete;
    SqliteRepository& operator=(const SqliteRepository&) = delete;
    /// Commits everything queued (running its callbacks), then stops the writer.
    ~SqliteRepository() override;

    /// `done` may be empty (fire and forget). It must not throw, and must not call flush() (it
    /// runs on the writer thread, which flush() waits for); calling write() from it is fine.
    void write(GameIntent intent, Done done) override;
    /// While the writer has nothing to do and writes have lately not overlapped
    /// (detail::GroupCommitWriter::commit_here).
    std::optional<Expected<void, StorageError>> write_here(GameIntent& intent) override;
    /// Returns once every write submitted before the call committed and its callback returned.
    void flush() override;

    Expected<std::vector<StoredGame>, StorageError> load_unfinished() override;
    Expected<std::optional<StoredGame>, StorageError> load(const std::string& id) override;
    /// At most 200 rows whatever `query.limit` says (0 gives none). `before` is keyset paging on
    /// (created_ms, id): the games listed after that game; an unknown id gives an empty list.
    Expected<std::vector<GameRow>, StorageError> list(const GameQuery& query) override;

    /// False if the last batch could not be committed, or if a write lock cannot be taken now
    /// (see detail::HealthProbe).
    bool writable() override;
    /// The database file plus its WAL.
    std::uint64_t size_bytes() override;
    /// Copies one consistent snapshot while writes go on (detail::backup_database).
    Expected<void, StorageError> backup(const std::string& path) override;
    /// The same copy of the database at `database`, without opening a repository on it: so
    /// that it can run beside the server that holds it (`arbiter-server --backup`).
    static Expected<void, StorageError> backup_file(const std::string& database,
                                                    const std::string& path,
                                                    const SqliteOptions& options = {});

    /// Queued to the same writer as the games' writes, in the same batches.
    void write_account(AccountIntent intent, AccountStore::Done done) override;
    Expected<std::optional<UserRow>, StorageError> find_user(const std::string& key) override;
    Expected<std::optional<UserRow>, StorageError> find_user_by_id(std::int64_t id) override;
    Expected<AccountSnapshot, StorageError> load_accounts() override;
    Expected<std::optional<SessionRow>, StorageError> find_session(
        const std::string& token_hash) override;

    /// Each on the reads' connection, in one read transaction.
    Expected<std::vector<RatingRow>, StorageError> ratings_of(std::int64_t user_id) override;
    Expected<GameCounts, StorageError> game_counts(std::int64_t user_id) override;
    Expected<std::vector<GameRow>, StorageError> user_games(const UserGamesQuery& query) override;
    Expected<std::vector<RatingPoint>, StorageError> rating_history(std::int64_t user_id) override;
    Expected<void, StorageError> leaderboard(const LeaderboardQuery& query,
                                             const EachLeader& each) override;
    Expected<std::vector<RatingRow>, StorageError> load_ratings() override;

    /// Queued to the same writer as the games' writes, in the same batches.
    void write_analysis(SaveAnalysis save, AnalysisStore::Done done) override;
    Expected<std::optional<AnalysisRow>, StorageError> find_analysis(
        const std::string& game_id) override;
    Expected<std::vector<AnalysisRow>, StorageError> unfinished_analyses() override;

    WriterStats stats();
    const std::string& path() const noexcept { return path_; }

  private:
    SqliteRepository(std::string path, const SqliteOptions& options, detail::ExclusiveFileLock lock,
                     sqlite::Connection writer, sqlite::Connection reader, sqlite::Connection probe,
                     sqlite::Connection checkpointer);

    const std::string path_;
    const SqliteOptions options_;
    /// `<path>-lock`: one server per database. Declared first, so released last.
    detail::ExclusiveFileLock lock_;
    detail::SyncFailure sync_failure_;
    detail::Checkpointer checkpointer_;
    detail::HealthProbe probe_;
    std::mutex read_mutex_;
    sqlite::Connection reader_;
    /// Declared last: stopped (and its journal filed) first, while the checkpointer watches.
    detail::GroupCommitWriter writer_;
};

}  // namespace arbiter::server::storage
