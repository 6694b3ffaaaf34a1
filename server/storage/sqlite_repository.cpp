#include "server/storage/sqlite_repository.hpp"

#include <filesystem>
#include <system_error>
#include <utility>

#include "server/storage/account_reads.hpp"
#include "server/storage/backup.hpp"
#include "server/storage/game_reads.hpp"
#include "server/storage/migrations.hpp"
#include "server/storage/player_reads.hpp"
#include "server/storage/sqlite_setup.hpp"

namespace arbiter::server::storage {

namespace {

/// More WAL pages than one game's write adds (a move: its journal row and the pages of the
/// journal's index, two to four).
constexpr int kWalMarginPages = 64;

std::uint64_t file_size_or_zero(const std::string& path) {
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    return error ? 0 : size;
}

}  // namespace

using detail::open_connection;
using detail::prefixed;

Expected<std::unique_ptr<SqliteRepository>, StorageError> SqliteRepository::open(
    const std::string& path, const SqliteOptions& options) {
    if (path.empty() || path == ":memory:" || path.starts_with("file:")) {
        return unexpected(StorageError{"the database must be a file path, not '" + path + "'"});
    }
    if (options.max_batch == 0) {
        return unexpected(StorageError{"max_batch must be at least 1"});
    }
    // Beside the file itself: a database opened through a symbolic link is locked as one.
    std::error_code unresolved;
    const std::filesystem::path resolved = std::filesystem::weakly_canonical(path, unresolved);
    auto lock =
        detail::ExclusiveFileLock::acquire((unresolved ? path : resolved.string()) + "-lock");
    if (!lock) {
        return unexpected(lock.error());
    }
    auto writer = open_connection(path, options, true);
    if (!writer) {
        return unexpected(std::move(writer).error());
    }
    if (auto migrated = migrate(*writer, embedded_migrations()); !migrated) {
        return unexpected(prefixed("opening " + path, migrated.error()));
    }
    if (auto limited = detail::limit_size(*writer, options.max_size_bytes); !limited) {
        return unexpected(limited.error());
    }
    auto reader = open_connection(path, options, false);
    if (!reader) {
        return unexpected(std::move(reader).error());
    }
    if (auto query_only = reader->exec("PRAGMA query_only = ON"); !query_only) {
        return unexpected(query_only.error());
    }
    auto probe = open_connection(path, options, false);
    if (!probe) {
        return unexpected(std::move(probe).error());
    }
    auto checkpointer = open_connection(path, options, false);
    if (!checkpointer) {
        return unexpected(std::move(checkpointer).error());
    }

    std::unique_ptr<SqliteRepository> repository(new SqliteRepository(
        path, options, std::move(lock).value(), std::move(writer).value(),
        std::move(reader).value(), std::move(probe).value(), std::move(checkpointer).value()));
    // Prepared only now: the statements keep a pointer to the connection in its final place.
    if (auto prepared = repository->writer_.prepare(); !prepared) {
        return unexpected(prepared.error());
    }
    repository->checkpointer_.watch(repository->writer_.connection());
    // Moves journaled before a crash or a kill are filed before anything else is written.
    repository->writer_.file_whole_journal();
    if (options.checkpoint_thread) {
        repository->checkpointer_.start();
    }
    repository->writer_.start();
    return repository;
}

SqliteRepository::SqliteRepository(std::string path, const SqliteOptions& options,
                                   detail::ExclusiveFileLock lock, sqlite::Connection writer,
                                   sqlite::Connection reader, sqlite::Connection probe,
                                   sqlite::Connection checkpointer)
    : path_(std::move(path)),
      options_(options),
      lock_(std::move(lock)),
      checkpointer_(std::move(checkpointer), sync_failure_),
      probe_(std::move(probe), options, sync_failure_),
      reader_(std::move(reader)),
      writer_(std::move(writer), options, sync_failure_) {}

SqliteRepository::~SqliteRepository() {
    writer_.stop();
    checkpointer_.unwatch(writer_.connection());
}

void SqliteRepository::write(GameIntent intent, Done done) {
    writer_.submit(std::move(intent), std::move(done));
}

std::optional<Expected<void, StorageError>> SqliteRepository::write_here(GameIntent& intent) {
    // Near the size past which the committer checkpoints the WAL itself (an fsync at NORMAL),
    // the writer's thread commits: a caller's thread never waits for the disk.
    if (checkpointer_.wal_pages() >= detail::Checkpointer::kInlineWalPages - kWalMarginPages) {
        return std::nullopt;
    }
    return writer_.commit_here(intent);
}

void SqliteRepository::flush() {
    writer_.flush();
}

WriterStats SqliteRepository::stats() {
    WriterStats stats = writer_.stats();
    const detail::CheckpointStats checkpoints = checkpointer_.stats();
    stats.checkpoints = checkpoints.checkpoints;
    stats.inline_checkpoints = checkpoints.inline_checkpoints;
    stats.wal_restarts = checkpoints.wal_restarts;
    return stats;
}

// --- reads -------------------------------------------------------------------------------------

Expected<std::vector<StoredGame>, StorageError> SqliteRepository::load_unfinished() {
    std::lock_guard lock(read_mutex_);
    auto snapshot = sqlite::Transaction::begin(reader_, sqlite::TransactionKind::deferred);
    if (!snapshot) {
        return unexpected(prefixed("loading unfinished games", snapshot.error()));
    }
    return detail::load_unfinished_games(reader_);
}

Expected<std::optional<StoredGame>, StorageError> SqliteRepository::load(const std::string& id) {
    std::lock_guard lock(read_mutex_);
    auto snapshot = sqlite::Transaction::begin(reader_, sqlite::TransactionKind::deferred);
    if (!snapshot) {
        return unexpected(prefixed("loading game " + id, snapshot.error()));
    }
    return detail::load_game(reader_, id);
}

Expected<std::vector<GameRow>, StorageError> SqliteRepository::list(const GameQuery& query) {
    std::lock_guard lock(read_mutex_);
    // One snapshot for the headers and the journal merged into them.
    auto snapshot = sqlite::Transaction::begin(reader_, sqlite::TransactionKind::deferred);
    if (!snapshot) {
        return unexpected(prefixed("listing games", snapshot.error()));
    }
    return detail::list_games(reader_, query);
}

// --- accounts ----------------------------------------------------------------------------------

void SqliteRepository::write_account(AccountIntent intent, AccountStore::Done done) {
    writer_.submit(std::move(intent), std::move(done));
}

Expected<std::optional<UserRow>, StorageError> SqliteRepository::find_user(const std::string& key) {
    std::lock_guard lock(read_mutex_);
    return detail::find_user_by_key(reader_, key);
}

Expected<std::optional<UserRow>, StorageError> SqliteRepository::find_user_by_id(std::int64_t id) {
    std::lock_guard lock(read_mutex_);
    return detail::find_user_by_id(reader_, id);
}

Expected<std::optional<SessionRow>, StorageError> SqliteRepository::find_session(
    const std::string& token_hash) {
    std::lock_guard lock(read_mutex_);
    return detail::find_session(reader_, token_hash);
}

// --- players -----------------------------------------------------------------------------------

namespace {

// Runs `read` on `reader` inside one read transaction (one snapshot), holding `mutex`.
template <class Read>
auto read_snapshot(std::mutex& mutex, sqlite::Connection& reader, const std::string& what,
                   Read&& read) -> decltype(read()) {
    std::lock_guard lock(mutex);
    auto snapshot = sqlite::Transaction::begin(reader, sqlite::TransactionKind::deferred);
    if (!snapshot) {
        return unexpected(prefixed(what, snapshot.error()));
    }
    return read();
}

}  // namespace

Expected<std::vector<RatingRow>, StorageError> SqliteRepository::ratings_of(std::int64_t user_id) {
    return read_snapshot(read_mutex_, reader_, "reading ratings",
                         [&] { return detail::ratings_of(reader_, user_id); });
}

Expected<GameCounts, StorageError> SqliteRepository::game_counts(std::int64_t user_id) {
    return read_snapshot(read_mutex_, reader_, "counting games",
                         [&] { return detail::game_counts(reader_, user_id); });
}

Expected<std::vector<GameRow>, StorageError> SqliteRepository::user_games(
    const UserGamesQuery& query) {
    // One snapshot for the headers and the journal merged into them.
    return read_snapshot(read_mutex_, reader_, "listing a player's games",
                         [&] { return detail::user_games(reader_, query); });
}

Expected<std::vector<RatingPoint>, StorageError> SqliteRepository::rating_history(
    std::int64_t user_id) {
    return read_snapshot(read_mutex_, reader_, "reading a rating history",
                         [&] { return detail::rating_history(reader_, user_id); });
}

Expected<void, StorageError> SqliteRepository::leaderboard(const LeaderboardQuery& query,
                                                           const EachLeader& each) {
    return read_snapshot(read_mutex_, reader_, "reading a leaderboard",
                         [&] { return detail::leaderboard(reader_, query, each); });
}

Expected<std::vector<RatingRow>, StorageError> SqliteRepository::load_ratings() {
    std::lock_guard lock(read_mutex_);
    return detail::ratings_of(reader_, std::nullopt);
}

Expected<AccountSnapshot, StorageError> SqliteRepository::load_accounts() {
    std::lock_guard lock(read_mutex_);
    // One snapshot: no session without its user.
    auto snapshot = sqlite::Transaction::begin(reader_, sqlite::TransactionKind::deferred);
    if (!snapshot) {
        return unexpected(prefixed("loading accounts", snapshot.error()));
    }
    return detail::load_accounts(reader_);
}

// --- analyses ----------------------------------------------------------------------------------

void SqliteRepository::write_analysis(SaveAnalysis save, AnalysisStore::Done done) {
    writer_.submit(std::move(save), std::move(done));
}

Expected<std::optional<AnalysisRow>, StorageError> SqliteRepository::find_analysis(
    const std::string& game_id) {
    std::lock_guard lock(read_mutex_);
    return detail::find_analysis(reader_, game_id);
}

Expected<std::vector<AnalysisRow>, StorageError> SqliteRepository::unfinished_analyses() {
    std::lock_guard lock(read_mutex_);
    return detail::unfinished_analyses(reader_);
}

// --- health and maintenance --------------------------------------------------------------------

bool SqliteRepository::writable() {
    return probe_.writable(writer_.last_batch());
}

std::uint64_t SqliteRepository::size_bytes() {
    return file_size_or_zero(path_) + file_size_or_zero(path_ + "-wal");
}

Expected<void, StorageError> SqliteRepository::backup(const std::string& path) {
    return detail::backup_database(path_, path, options_);
}

Expected<void, StorageError> SqliteRepository::backup_file(const std::string& database,
                                                           const std::string& path,
                                                           const SqliteOptions& options) {
    return detail::backup_database(database, path, options);
}

}  // namespace arbiter::server::storage
