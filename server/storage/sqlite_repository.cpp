#include "server/storage/sqlite_repository.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <utility>

#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <unistd.h>

#include "server/storage/migrations.hpp"

namespace arbiter::server::storage {

namespace {

// A failed fsync, of a file or of the folder that holds it. The kernel may then have dropped the
// pages it could not write while keeping them in its cache as written (Linux marks them clean),
// so a later fsync that succeeds says nothing about them: frames an earlier commit left for the
// next sync (a filing's, which commits at NORMAL) can be missing from the disk, and a crash then
// ends the WAL there, before writes acknowledged after them. PostgreSQL stops on a failed fsync
// for this reason ("fsyncgate", 2018); the repository refuses every write from then on.
bool is_sync_failure(int code) {
    return code == SQLITE_IOERR_FSYNC || code == SQLITE_IOERR_DIR_FSYNC;
}

// Pages copied per backup step: 4 MiB at the default 4 KiB page size.
constexpr int backup_pages_per_step = 1024;

// Syncs the folder that holds `file`, which makes a rename into it durable: until then a power
// cut may leave the name pointing at the file it had before, however well the new one was synced.
Expected<void, StorageError> sync_folder_of(const std::string& file) {
    std::filesystem::path folder = std::filesystem::path(file).parent_path();
    if (folder.empty()) {
        folder = ".";
    }
    const int descriptor = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (descriptor < 0) {
        return unexpected(
            StorageError{"opening folder " + folder.string() + ": " + std::strerror(errno)});
    }
    const bool synced = ::fsync(descriptor) == 0;
    const int error = errno;
    ::close(descriptor);
    if (!synced) {
        return unexpected(
            StorageError{"syncing folder " + folder.string() + ": " + std::strerror(error)});
    }
    return {};
}

// Opens one connection with the settings every connection needs. Only the first one (the
// writer) may create the file; the others open what it created and migrated.
Expected<sqlite::Connection, StorageError> open_connection(const std::string& path,
                                                           const SqliteOptions& options,
                                                           bool create) {
    auto connection = sqlite::Connection::open(path, create);
    if (!connection) {
        return connection;
    }
    connection->set_busy_timeout(static_cast<int>(options.busy_timeout.count()));
    // WAL: readers never block the writer nor the writer them; a commit appends to the WAL.
    auto mode = connection->query_text("PRAGMA journal_mode = WAL");
    if (!mode) {
        return unexpected(std::move(mode).error());
    }
    if (*mode != "wal") {
        return unexpected(
            StorageError{"cannot put " + path + " in WAL mode (journal_mode is " + *mode + ")"});
    }
    // FULL is what makes "acknowledged means durable" hold across power loss, not only crashes.
    auto synchronous =
        connection->exec(options.synchronous == Synchronous::full ? "PRAGMA synchronous = FULL"
                                                                  : "PRAGMA synchronous = NORMAL");
    if (!synchronous) {
        return unexpected(synchronous.error());
    }
    if (auto keys = connection->exec("PRAGMA foreign_keys = ON"); !keys) {
        return unexpected(keys.error());
    }
    // Statement journals in memory with small chunks. With the default (a 64 KiB buffer that
    // spills to a temporary file) every statement of a batch malloc'd and freed 64 KiB, which
    // glibc returned to the kernel and faulted back in each time: measured 5x fewer grouped
    // writes/s (arbiter-storage-bench).
    if (auto temp = connection->exec("PRAGMA temp_store = MEMORY"); !temp) {
        return unexpected(temp.error());
    }
    return connection;
}

Expected<void, StorageError> limit_size(sqlite::Connection& connection, std::uint64_t max_bytes) {
    if (max_bytes == 0) {
        return {};
    }
    auto page_size = connection.query_int64("PRAGMA page_size");
    if (!page_size) {
        return unexpected(std::move(page_size).error());
    }
    const std::uint64_t pages = std::max<std::uint64_t>(1, max_bytes / *page_size);
    // A PRAGMA takes no bound parameters; the number is our own option, formatted as an integer.
    auto limited = connection.query_int64("PRAGMA max_page_count = " + std::to_string(pages));
    if (!limited) {
        return unexpected(std::move(limited).error());
    }
    return {};
}

std::uint64_t file_size_or_zero(const std::string& path) {
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    return error ? 0 : size;
}

StorageError prefixed(std::string_view doing, const StorageError& error) {
    return StorageError{std::string(doing) + ": " + error.message};
}

}  // namespace

// --- opening and closing -----------------------------------------------------------------------

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
    if (auto limited = limit_size(*writer, options.max_size_bytes); !limited) {
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
    auto statements =
        detail::WriteStatements::prepare(repository->writer_connection_, options.journal_rows > 0);
    if (!statements) {
        return unexpected(std::move(statements).error());
    }
    repository->write_statements_ = std::move(statements).value();
    // Replaces SQLite's automatic checkpoint, which ran inside the COMMIT of whichever batch
    // crossed 1000 WAL pages: copying the pages and syncing the database file then delayed every
    // move of that batch (p99 at NORMAL went 9 -> 22 ms on the load benchmark).
    sqlite3_wal_hook(repository->writer_connection_.handle(), &SqliteRepository::on_wal_commit,
                     repository.get());
    // Moves journaled before a crash or a kill are filed before anything else is written.
    repository->file_journal(1);
    if (options.checkpoint_thread) {
        repository->checkpointer_thread_ =
            std::thread([raw = repository.get()] { raw->run_checkpointer(); });
    }
    repository->writer_thread_ = std::thread([raw = repository.get()] { raw->run_writer(); });
    return repository;
}

SqliteRepository::SqliteRepository(std::string path, const SqliteOptions& options,
                                   detail::ExclusiveFileLock lock, sqlite::Connection writer,
                                   sqlite::Connection reader, sqlite::Connection probe,
                                   sqlite::Connection checkpointer)
    : path_(std::move(path)),
      options_(options),
      lock_(std::move(lock)),
      writer_connection_(std::move(writer)),
      checkpointer_connection_(std::move(checkpointer)),
      reader_(std::move(reader)),
      probe_(std::move(probe)) {}

SqliteRepository::~SqliteRepository() {
    {
        std::lock_guard lock(queue_mutex_);
        stopping_ = true;
    }
    queue_ready_.notify_one();
    if (writer_thread_.joinable()) {
        writer_thread_.join();
        // So that a stopped server leaves every move in `moves`. Only once the writer ran: if
        // open() failed before it started, the statements may not even be prepared.
        file_journal(1);
    }
    sqlite3_wal_hook(writer_connection_.handle(), nullptr, nullptr);
    {
        std::lock_guard lock(checkpoint_mutex_);
        checkpointer_stopping_ = true;
    }
    checkpoint_wanted_.notify_one();
    if (checkpointer_thread_.joinable()) {
        checkpointer_thread_.join();
    }
}

// --- checkpoints -------------------------------------------------------------------------------

int SqliteRepository::on_wal_commit(void* self, sqlite3* connection, const char* database,
                                    int wal_pages) {
    auto* repository = static_cast<SqliteRepository*>(self);
    if (wal_pages < repository->wal_pages_) {
        // Fewer frames than after the last commit: this one began the WAL from its start.
        std::lock_guard lock(repository->queue_mutex_);
        repository->stats_.wal_restarts += 1;
    }
    repository->wal_pages_ = wal_pages;
    if (wal_pages >= inline_checkpoint_wal_pages) {
        // Under steady writes the checkpoint thread never finishes between two commits, and the
        // WAL restarts from its start only when a writer begins after a checkpoint copied every
        // frame. So past this size the writer copies the little that is left itself, right after
        // its commit (PASSIVE: it waits for no reader), and its next transaction restarts the
        // WAL. Not while the thread is copying: the two would only make each other busy.
        if (!repository->checkpointing_.load()) {
            const int code = sqlite3_wal_checkpoint_v2(connection, database,
                                                       SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
            repository->note_sync_failure(code, "checkpointing the WAL");
            std::lock_guard lock(repository->queue_mutex_);
            repository->stats_.inline_checkpoints += 1;
        }
    } else if (wal_pages >= checkpoint_wal_pages) {
        {
            std::lock_guard lock(repository->checkpoint_mutex_);
            repository->checkpoint_requested_ = true;
        }
        repository->checkpoint_wanted_.notify_one();
    }
    return SQLITE_OK;
}

void SqliteRepository::run_checkpointer() {
    pthread_setname_np(pthread_self(), "arbiter-ckpt");  // for top -H, perf and gdb
    for (;;) {
        {
            std::unique_lock lock(checkpoint_mutex_);
            checkpoint_wanted_.wait(
                lock, [this] { return checkpoint_requested_ || checkpointer_stopping_; });
            if (checkpointer_stopping_) {
                return;
            }
            checkpoint_requested_ = false;
        }
        // PASSIVE copies what it can without waiting for anyone and never blocks the writer;
        // SQLITE_BUSY (another checkpoint is running) just means the next request does it.
        checkpointing_.store(true);
        const int code = sqlite3_wal_checkpoint_v2(checkpointer_connection_.handle(), nullptr,
                                                   SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
        checkpointing_.store(false);
        note_sync_failure(code, "checkpointing the WAL");
        std::lock_guard lock(queue_mutex_);
        stats_.checkpoints += 1;
    }
}

// --- the writer --------------------------------------------------------------------------------

void SqliteRepository::write(GameWrite change, Done done) {
    {
        std::lock_guard lock(queue_mutex_);
        queue_.push_back(Pending{std::move(change), std::move(done)});
        ++submitted_;
    }
    queue_ready_.notify_one();
}

void SqliteRepository::flush() {
    // From a callback this would wait for the very thread that runs it.
    ARBITER_ASSERT(std::this_thread::get_id() != writer_thread_.get_id());
    std::unique_lock lock(queue_mutex_);
    const std::uint64_t target = submitted_;
    progressed_.wait(lock, [&] { return completed_ >= target; });
}

void SqliteRepository::run_writer() {
    pthread_setname_np(pthread_self(), "arbiter-writer");
    std::vector<Pending> batch;
    batch.reserve(options_.max_batch);
    for (;;) {
        {
            std::unique_lock lock(queue_mutex_);
            queue_ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) {
                return;  // stopping, and everything submitted has been handled
            }
            if (queue_.size() <= options_.max_batch) {
                batch.swap(queue_);  // the usual case: the whole queue, no write moved
            } else {
                const auto count = static_cast<std::ptrdiff_t>(options_.max_batch);
                std::move(queue_.begin(), queue_.begin() + count, std::back_inserter(batch));
                queue_.erase(queue_.begin(), queue_.begin() + count);
            }
        }

        std::vector<Result> results = commit_batch(batch);

        // Callbacks run outside the lock (they may write() again) and in submission order.
        std::uint64_t failed = 0;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            failed += results[i].has_value() ? 0 : 1;
            if (batch[i].done) {
                batch[i].done(std::move(results[i]));
            }
        }
        {
            std::lock_guard lock(queue_mutex_);
            completed_ += batch.size();
            stats_.batches += 1;
            stats_.committed += batch.size() - failed;
            stats_.failed += failed;
        }
        progressed_.notify_all();
        batch.clear();
        // After the callbacks, so that no move of this batch waits for the filing.
        if (options_.journal_rows > 0) {
            file_journal(options_.journal_rows, true);
        }
    }
}

void SqliteRepository::file_journal(std::size_t at_least, bool yield_to_writes) {
    // Below the threshold no write lock is taken (at open, another process may hold it). If the
    // count cannot be read, the filing finds out why.
    if (!write_statements_.filing()) {
        if (auto pending = write_statements_.count_journaled(); pending && *pending < at_least) {
            return;
        }
    }
    if (refusal()) {
        return;  // the journal stays as it is: readers merge it
    }
    // Filing makes nothing more durable (the journal rows were), so its COMMIT need not wait for
    // an fsync of the WAL: the next batch's fsync covers its frames, and if power fails first
    // the WAL ends before them and the journal is as it was.
    const bool relaxed = options_.synchronous == Synchronous::full &&
                         writer_connection_.exec("PRAGMA synchronous = NORMAL").has_value();
    {
        auto transaction = begin_write();
        const std::size_t part_games =
            yield_to_writes ? std::max<std::size_t>(options_.filing_part_games, 1) : 0;
        bool filed = transaction.has_value();
        bool finished = false;
        while (filed && !finished) {
            auto part = write_statements_.file_journal_part(part_games);
            filed = part.has_value();
            finished = filed && *part;
            if (!finished && part_games > 0 && writes_waiting()) {
                break;  // the rest after the waiting writes' batch
            }
        }
        if (filed && transaction->commit()) {
            std::lock_guard lock(queue_mutex_);
            stats_.filings += finished ? 1 : 0;
            stats_.filing_yields += finished ? 0 : 1;
        } else {
            note_sync_failure(writer_connection_, "filing the move journal");
            write_statements_.forget_written();  // rolled back by the Transaction's destructor
        }
    }
    // Until FULL is back no batch commits (commit_batch tries again first).
    full_sync_pending_ = relaxed && !writer_connection_.exec("PRAGMA synchronous = FULL");
}

bool SqliteRepository::writes_waiting() {
    std::lock_guard lock(queue_mutex_);
    return !queue_.empty();
}

Expected<sqlite::Transaction, StorageError> SqliteRepository::begin_write() {
    auto transaction =
        sqlite::Transaction::begin(writer_connection_, sqlite::TransactionKind::immediate);
    if (transaction) {
        write_statements_.note_other_commits();
    }
    return transaction;
}

std::vector<SqliteRepository::Result> SqliteRepository::commit_batch(
    const std::vector<Pending>& batch) {
    std::vector<Result> results(batch.size());
    auto set_batch_failed = [this](bool failed) {
        std::lock_guard lock(queue_mutex_);
        last_batch_failed_ = failed;
        last_batch_at_ = std::chrono::steady_clock::now();
    };
    if (auto refused = refusal()) {
        set_batch_failed(true);
        std::fill(results.begin(), results.end(), Result(unexpected(std::move(*refused))));
        return results;
    }
    if (full_sync_pending_) {
        auto restored = writer_connection_.exec("PRAGMA synchronous = FULL");
        if (!restored) {
            set_batch_failed(true);
            const Result error =
                unexpected(prefixed("restoring synchronous = FULL", restored.error()));
            std::fill(results.begin(), results.end(), error);
            return results;
        }
        full_sync_pending_ = false;
    }
    // A faulty write (a different move at an occupied ply, a CHECK) rolls the batch back and the
    // batch is replayed without it. Faults are rare, so this is cheaper than a savepoint around
    // every write (measured: savepoints cost ~35% of grouped writes/s). Each pass commits or
    // finds one more faulty write, so the loop ends within batch.size() + 1 passes.
    for (;;) {
        auto transaction = begin_write();
        if (!transaction) {
            // No write lock (another process holds it past busy_timeout, or I/O): retrying each
            // write would only wait again, so every write still pending reports this error.
            set_batch_failed(true);
            const Result error = unexpected(prefixed("storing a batch", transaction.error()));
            for (Result& result : results) {
                if (result) {
                    result = error;
                }
            }
            return results;
        }
        bool faulty_found = false;
        for (std::size_t i = 0; i < batch.size() && !faulty_found; ++i) {
            if (!results[i]) {
                continue;  // found faulty in an earlier pass
            }
            results[i] = write_statements_.apply(batch[i].change);
            faulty_found = !results[i].has_value();
        }
        if (!faulty_found) {
            if (transaction->commit()) {
                set_batch_failed(false);
                return results;
            }
            note_sync_failure(writer_connection_, "committing a batch");
        }
        // This pass is rolled back: what it wrote is not in the database.
        write_statements_.forget_written();
        if (!faulty_found) {
            break;  // COMMIT failed: no single write to blame
        }
        if (!writer_connection_.in_transaction()) {
            break;  // SQLite rolled the whole transaction back itself (SQLITE_FULL, I/O errors)
        }
        std::lock_guard lock(queue_mutex_);
        stats_.replayed += 1;
    }  // the Transaction's destructor rolls back the failed pass
    // The failure cannot be pinned on one write: redo each write in a transaction of its own so
    // that each callback gets its own write's fate.
    {
        std::lock_guard lock(queue_mutex_);
        stats_.retried_alone += 1;
    }
    results = commit_one_by_one(batch);
    const bool all_failed = std::none_of(results.begin(), results.end(),
                                         [](const Result& result) { return result.has_value(); });
    set_batch_failed(all_failed);
    return results;
}

std::vector<SqliteRepository::Result> SqliteRepository::commit_one_by_one(
    const std::vector<Pending>& batch) {
    std::vector<Result> results;
    results.reserve(batch.size());
    for (const Pending& pending : batch) {
        results.push_back(commit_alone(pending.change));
    }
    return results;
}

SqliteRepository::Result SqliteRepository::commit_alone(const GameWrite& change) {
    if (auto refused = refusal()) {
        return unexpected(std::move(*refused));
    }
    auto transaction = begin_write();
    if (!transaction) {
        return unexpected(prefixed("storing a write", transaction.error()));
    }
    auto applied = write_statements_.apply(change);
    if (applied) {
        applied = transaction->commit();
        if (!applied) {
            note_sync_failure(writer_connection_, "committing a write");
        }
    }
    if (!applied) {
        write_statements_.forget_written();  // rolled back
    }
    return applied;
}

void SqliteRepository::note_sync_failure(int code, std::string_view doing) {
    if (!is_sync_failure(code)) {
        return;
    }
    std::lock_guard lock(queue_mutex_);
    if (!sync_failure_) {
        sync_failure_ =
            StorageError{std::string(doing) + ": the disk failed to sync (" + sqlite3_errstr(code) +
                         ", sqlite code " + std::to_string(code) +
                         "); writes are refused until the server restarts on a healthy disk"};
    }
}

void SqliteRepository::note_sync_failure(const sqlite::Connection& connection,
                                         std::string_view doing) {
    note_sync_failure(sqlite3_extended_errcode(connection.handle()), doing);
}

std::optional<StorageError> SqliteRepository::refusal() {
    std::lock_guard lock(queue_mutex_);
    return sync_failure_;
}

WriterStats SqliteRepository::stats() {
    std::lock_guard lock(queue_mutex_);
    WriterStats copy = stats_;
    copy.queued = queue_.size();
    return copy;
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

// --- health and maintenance --------------------------------------------------------------------

bool SqliteRepository::writable() {
    bool try_a_write = false;
    {
        std::lock_guard lock(queue_mutex_);
        if (sync_failure_) {
            return false;
        }
        if (last_batch_failed_) {
            if (std::chrono::steady_clock::now() - last_batch_at_ < options_.write_probe_after) {
                return false;
            }
            try_a_write = true;
        }
    }
    std::lock_guard lock(probe_mutex_);
    // Taking the write lock and rolling back writes nothing to the file. After a failed batch
    // and none since, the same transaction also commits the probe's own write.
    auto transaction = sqlite::Transaction::begin(probe_, sqlite::TransactionKind::immediate);
    if (!transaction || (try_a_write && !probe_write(*transaction))) {
        return false;
    }
    if (options_.max_size_bytes == 0) {
        return true;
    }
    // At --max-db-bytes the lock is still free, and a write that needs no new page still
    // commits, but moves are refused: not writable, when fewer pages are left than a few
    // batches of moves take.
    constexpr std::int64_t room_pages = 16;
    const auto page_size = probe_.query_int64("PRAGMA page_size");
    const auto pages = probe_.query_int64("PRAGMA page_count");
    const auto free_pages = probe_.query_int64("PRAGMA freelist_count");
    if (!page_size || !pages || !free_pages || *page_size <= 0) {
        return false;
    }
    const auto max_pages = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(options_.max_size_bytes /
                                     static_cast<std::uint64_t>(*page_size)));
    return *pages - *free_pages + room_pages <= max_pages;
}

bool SqliteRepository::probe_write(sqlite::Transaction& transaction) {
    // The last batch failed (a full disk, say) and none was tried since. Taking the lock says
    // nothing of that; a write does. Setting user_version to its own value writes one page and
    // changes nothing.
    const auto version = probe_.query_int64("PRAGMA user_version");
    if (!version || !probe_.exec("PRAGMA user_version = " + std::to_string(*version))) {
        return false;
    }
    if (!transaction.commit()) {
        note_sync_failure(probe_, "probing a write");
        return false;
    }
    return true;
}

std::uint64_t SqliteRepository::size_bytes() {
    return file_size_or_zero(path_) + file_size_or_zero(path_ + "-wal");
}

Expected<void, StorageError> SqliteRepository::backup(const std::string& path) {
    return backup_file(path_, path, options_);
}

Expected<void, StorageError> SqliteRepository::backup_file(const std::string& database,
                                                           const std::string& path,
                                                           const SqliteOptions& options) {
    // The error_code form: a path that cannot be looked at (no permission, a symbolic link loop)
    // is an error to report, not an exception out of a function that returns its errors.
    std::error_code exists_error;
    if (!std::filesystem::exists(database, exists_error)) {
        return unexpected(StorageError{
            "cannot back up " + database + ": " +
            (exists_error ? exists_error.message() : std::string("no such database"))});
    }
    std::error_code same_error;
    if (path == database || std::filesystem::equivalent(path, database, same_error)) {
        return unexpected(StorageError{"cannot back up " + database + " onto itself"});
    }
    const std::string partial = path + ".partial";
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    {
        auto source = open_connection(database, options, false);
        if (!source) {
            return unexpected(prefixed("backup", source.error()));
        }
        auto target = sqlite::Connection::open(partial, true);
        if (!target) {
            return unexpected(prefixed("backup", target.error()));
        }
        // A read transaction held across all steps pins one WAL snapshot: the copy is
        // consistent, and commits by the writer (another connection) cannot make SQLite restart
        // the copy from page one, which under steady writes could go on forever. In WAL mode
        // the open snapshot does not block the writer.
        auto snapshot = sqlite::Transaction::begin(*source, sqlite::TransactionKind::deferred);
        if (!snapshot) {
            return unexpected(prefixed("backup", snapshot.error()));
        }
        if (auto pinned = source->query_int64("SELECT count(*) FROM sqlite_schema"); !pinned) {
            return unexpected(prefixed("backup", pinned.error()));
        }
        auto copied = sqlite::copy_database(*source, *target, backup_pages_per_step);
        if (!copied) {
            std::filesystem::remove(partial, ignored);
            return unexpected(prefixed("backup to " + path, copied.error()));
        }
    }
    // A -wal left beside `path` by an older database there would be replayed onto the copy.
    std::filesystem::remove(path + "-wal", ignored);
    std::filesystem::remove(path + "-shm", ignored);
    std::error_code renamed;
    std::filesystem::rename(partial, path, renamed);
    if (renamed) {
        return unexpected(
            StorageError{"backup: renaming " + partial + " to " + path + ": " + renamed.message()});
    }
    if (auto synced = sync_folder_of(path); !synced) {
        return unexpected(StorageError{"backup: " + synced.error().message});
    }
    return {};
}

}  // namespace arbiter::server::storage
