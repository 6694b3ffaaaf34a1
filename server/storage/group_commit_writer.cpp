#include "server/storage/group_commit_writer.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include <pthread.h>

#include "common/core/assert.hpp"
#include "server/storage/sqlite_setup.hpp"

namespace arbiter::server::storage::detail {

GroupCommitWriter::GroupCommitWriter(sqlite::Connection connection, const SqliteOptions& options,
                                     SyncFailure& sync_failure)
    : options_(options), sync_failure_(sync_failure), connection_(std::move(connection)) {}

GroupCommitWriter::~GroupCommitWriter() {
    stop();
}

Expected<void, StorageError> GroupCommitWriter::prepare() {
    auto prepared = IntentWriter::prepare(connection_, options_.journal_rows > 0);
    if (!prepared) {
        return unexpected(std::move(prepared).error());
    }
    intents_ = std::move(prepared).value();
    auto accounts = AccountWriter::prepare(connection_);
    if (!accounts) {
        return unexpected(std::move(accounts).error());
    }
    accounts_ = std::move(accounts).value();
    auto analyses = AnalysisWriter::prepare(connection_);
    if (!analyses) {
        return unexpected(std::move(analyses).error());
    }
    analyses_ = std::move(analyses).value();
    return {};
}

void GroupCommitWriter::start() {
    thread_ = std::thread([this] { run(); });
}

void GroupCommitWriter::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    queue_ready_.notify_one();
    if (thread_.joinable()) {
        thread_.join();
        // Only once the thread ran: before, the statements may not even be prepared.
        file_journal(1, false);
    }
}

void GroupCommitWriter::submit(WriteIntent intent, GameRepository::Done done) {
    {
        std::lock_guard lock(mutex_);
        note_overlap(committing_ || !queue_.empty());
        queue_.push_back(Pending{std::move(intent), std::move(done)});
        ++submitted_;
    }
    queue_ready_.notify_one();
}

void GroupCommitWriter::note_overlap(bool found_busy) {
    const unsigned seen = found_busy ? 256U : 0U;
    const unsigned before = overlap_.load(std::memory_order_relaxed);
    overlap_.store(before - before / 8 + seen / 8, std::memory_order_relaxed);
}

std::optional<Expected<void, StorageError>> GroupCommitWriter::commit_here(GameIntent& intent) {
    // At FULL a commit waits for an fsync: the writer's thread does that, not the caller's. And
    // while writes overlap, the answer is no without the lock the writer's thread takes.
    if (!options_.commit_on_caller || options_.synchronous == Synchronous::full ||
        overlap_.load(std::memory_order_relaxed) >= kOverlapGate) {
        return std::nullopt;
    }
    {
        std::lock_guard lock(mutex_);
        // A declined write is submit()ted next, which counts it: each write counts once.
        if (stopping_ || committing_ || !queue_.empty() ||
            overlap_.load(std::memory_order_relaxed) >= kOverlapGate) {
            return std::nullopt;
        }
        committing_ = true;
        ++submitted_;
    }
    std::optional<Result> result;
    if (auto refused = sync_failure_.refusal()) {
        set_last_batch(true);
        result = Result(unexpected(std::move(*refused)));
    } else {
        // The write lock, but not waiting for it: while another connection holds it (the health
        // probe, an sqlite3 shell), the write goes to the writer's thread, which may wait.
        connection_.set_busy_timeout(0);
        auto transaction = begin_write();
        connection_.set_busy_timeout(static_cast<int>(options_.busy_timeout.count()));
        if (transaction) {
            bool store_failed = false;
            result = apply_and_commit(*transaction, WriteIntent{std::move(intent)}, store_failed);
            set_last_batch(store_failed);
        }
    }
    const bool file = result && options_.journal_rows > 0 && journal_due();
    bool wake = false;
    {
        std::lock_guard lock(mutex_);
        committing_ = false;
        filing_due_ = filing_due_ || file;
        wake = filing_due_ || !queue_.empty() || stopping_;
        completed_ += 1;  // a write given back is counted again by its submit()
        if (result) {
            note_overlap(false);
            stats_.committed_here += result->has_value() ? 1 : 0;
            stats_.committed += result->has_value() ? 1 : 0;
            stats_.failed += result->has_value() ? 0 : 1;
        }
    }
    if (wake) {
        queue_ready_.notify_one();  // the writer waits for the connection, or has a filing to do
    }
    progressed_.notify_all();
    return result;
}

void GroupCommitWriter::flush() {
    // From a callback this would wait for the very thread that runs it.
    ARBITER_ASSERT(std::this_thread::get_id() != thread_.get_id());
    std::unique_lock lock(mutex_);
    const std::uint64_t target = submitted_;
    progressed_.wait(lock, [&] { return completed_ >= target; });
}

LastBatch GroupCommitWriter::last_batch() {
    std::lock_guard lock(mutex_);
    return last_batch_;
}

WriterStats GroupCommitWriter::stats() {
    std::lock_guard lock(mutex_);
    WriterStats copy = stats_;
    copy.queued = queue_.size();
    return copy;
}

void GroupCommitWriter::set_last_batch(bool failed) {
    std::lock_guard lock(mutex_);
    last_batch_ = LastBatch{failed, std::chrono::steady_clock::now()};
}

bool GroupCommitWriter::writes_waiting() {
    std::lock_guard lock(mutex_);
    return !queue_.empty();
}

void GroupCommitWriter::run() {
    pthread_setname_np(pthread_self(), "arbiter-writer");
    std::vector<Pending> batch;
    batch.reserve(options_.max_batch);
    for (;;) {
        bool file = false;
        {
            std::unique_lock lock(mutex_);
            queue_ready_.wait(lock, [this] {
                return !committing_ && (stopping_ || filing_due_ || !queue_.empty());
            });
            if (queue_.empty() && !filing_due_) {
                return;  // stopping, and everything submitted has been handled
            }
            committing_ = true;
            file = std::exchange(filing_due_, false);
            if (queue_.size() <= options_.max_batch) {
                batch.swap(queue_);  // the usual case: the whole queue, no write moved
            } else {
                const auto count = static_cast<std::ptrdiff_t>(options_.max_batch);
                std::move(queue_.begin(), queue_.begin() + count, std::back_inserter(batch));
                queue_.erase(queue_.begin(), queue_.begin() + count);
            }
        }

        std::vector<Result> results = batch.empty() ? std::vector<Result>{} : commit_batch(batch);

        // Callbacks run outside the lock (they may submit again) and in submission order.
        std::uint64_t failed = 0;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            failed += results[i].has_value() ? 0 : 1;
            if (batch[i].done) {
                batch[i].done(std::move(results[i]));
            }
        }
        // After the callbacks, so that no move of this batch waits for the filing. Without one
        // the connection is free as the batch completes: after flush() nothing holds it.
        const bool filing = options_.journal_rows > 0 && (file || !batch.empty()) && journal_due();
        {
            std::lock_guard lock(mutex_);
            completed_ += batch.size();
            if (!batch.empty()) {
                stats_.batches += 1;
                stats_.committed += batch.size() - failed;
                stats_.failed += failed;
            }
            committing_ = filing;
        }
        progressed_.notify_all();
        batch.clear();
        if (filing) {
            file_journal(options_.journal_rows, true);
            std::lock_guard lock(mutex_);
            committing_ = false;
        }
    }
}

bool GroupCommitWriter::journal_due() {
    if (intents_.filing()) {
        return true;  // a filing that yielded to writes goes on
    }
    // If the count cannot be read, the filing finds out why.
    const auto pending = intents_.count_journaled();
    return !pending || *pending >= options_.journal_rows;
}

void GroupCommitWriter::file_journal(std::size_t at_least, bool yield_to_writes) {
    // Below the threshold no write lock is taken (at open, another process may hold it). If the
    // count cannot be read, the filing finds out why.
    if (!intents_.filing()) {
        if (auto pending = intents_.count_journaled(); pending && *pending < at_least) {
            return;
        }
    }
    if (sync_failure_.refusal()) {
        return;  // the journal stays as it is: readers merge it
    }
    // Filing makes nothing more durable (the journal rows were), so its COMMIT need not wait for
    // an fsync of the WAL: the next batch's fsync covers its frames, and if power fails first
    // the WAL ends before them and the journal is as it was.
    const bool relaxed = options_.synchronous == Synchronous::full &&
                         connection_.exec("PRAGMA synchronous = NORMAL").has_value();
    {
        auto transaction = begin_write();
        const std::size_t part_games =
            yield_to_writes ? std::max<std::size_t>(options_.filing_part_games, 1) : 0;
        bool filed = transaction.has_value();
        bool finished = false;
        while (filed && !finished) {
            auto part = intents_.file_journal_part(part_games);
            filed = part.has_value();
            finished = filed && *part;
            if (!finished && part_games > 0 && writes_waiting()) {
                break;  // the rest after the waiting writes' batch
            }
        }
        if (filed && transaction->commit()) {
            std::lock_guard lock(mutex_);
            stats_.filings += finished ? 1 : 0;
            stats_.filing_yields += finished ? 0 : 1;
        } else {
            sync_failure_.note(connection_, "filing the move journal");
            intents_.forget();  // rolled back by the Transaction's destructor
        }
    }
    // Until FULL is back no batch commits (commit_batch tries again first).
    full_sync_pending_ = relaxed && !connection_.exec("PRAGMA synchronous = FULL");
}

Expected<sqlite::Transaction, StorageError> GroupCommitWriter::begin_write() {
    auto transaction = sqlite::Transaction::begin(connection_, sqlite::TransactionKind::immediate);
    if (transaction) {
        intents_.note_other_commits();
    }
    return transaction;
}

std::vector<GroupCommitWriter::Result> GroupCommitWriter::commit_batch(
    const std::vector<Pending>& batch) {
    std::vector<Result> results(batch.size());
    if (auto refused = sync_failure_.refusal()) {
        set_last_batch(true);
        std::fill(results.begin(), results.end(), Result(unexpected(std::move(*refused))));
        return results;
    }
    if (full_sync_pending_) {
        auto restored = connection_.exec("PRAGMA synchronous = FULL");
        if (!restored) {
            set_last_batch(true);
            const Result error =
                unexpected(prefixed("restoring synchronous = FULL", restored.error()));
            std::fill(results.begin(), results.end(), error);
            return results;
        }
        full_sync_pending_ = false;
    }
    // A faulty write (a move that does not follow, a CHECK) rolls the batch back and the batch is
    // replayed without it. Faults are rare, so this is cheaper than a savepoint around every
    // write (measured: savepoints cost ~35% of grouped writes/s). Each pass commits or finds one
    // more faulty write, so the loop ends within batch.size() + 1 passes.
    for (;;) {
        auto transaction = begin_write();
        if (!transaction) {
            // No write lock (another process holds it past busy_timeout, or I/O): retrying each
            // write would only wait again, so every write still pending reports this error.
            set_last_batch(true);
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
            results[i] = apply(batch[i].intent);
            faulty_found = !results[i].has_value();
        }
        if (!faulty_found) {
            if (transaction->commit()) {
                set_last_batch(false);
                return results;
            }
            sync_failure_.note(connection_, "committing a batch");
        }
        // This pass is rolled back: what it wrote is not in the database.
        intents_.forget();
        if (!faulty_found) {
            break;  // COMMIT failed: no single write to blame
        }
        if (!connection_.in_transaction()) {
            break;  // SQLite rolled the whole transaction back itself (SQLITE_FULL, I/O errors)
        }
        std::lock_guard lock(mutex_);
        stats_.replayed += 1;
    }  // the Transaction's destructor rolls back the failed pass
    // The failure cannot be pinned on one write: redo each write in a transaction of its own so
    // that each callback gets its own write's fate.
    {
        std::lock_guard lock(mutex_);
        stats_.retried_alone += 1;
    }
    results = commit_one_by_one(batch);
    const bool all_failed = std::none_of(results.begin(), results.end(),
                                         [](const Result& result) { return result.has_value(); });
    set_last_batch(all_failed);
    return results;
}

std::vector<GroupCommitWriter::Result> GroupCommitWriter::commit_one_by_one(
    const std::vector<Pending>& batch) {
    std::vector<Result> results;
    results.reserve(batch.size());
    for (const Pending& pending : batch) {
        results.push_back(commit_alone(pending.intent));
    }
    return results;
}

GroupCommitWriter::Result GroupCommitWriter::commit_alone(const WriteIntent& intent) {
    if (auto refused = sync_failure_.refusal()) {
        return unexpected(std::move(*refused));
    }
    auto transaction = begin_write();
    if (!transaction) {
        return unexpected(prefixed("storing a write", transaction.error()));
    }
    bool store_failed = false;
    return apply_and_commit(*transaction, intent, store_failed);
}

GroupCommitWriter::Result GroupCommitWriter::apply_and_commit(sqlite::Transaction& transaction,
                                                              const WriteIntent& intent,
                                                              bool& store_failed) {
    auto applied = apply(intent);
    if (applied) {
        applied = transaction.commit();
        store_failed = !applied.has_value();
        if (store_failed) {
            sync_failure_.note(connection_, "committing a write");
        }
    } else {
        // A write that does not follow leaves the transaction open; SQLite rolls it back itself
        // on SQLITE_FULL or I/O errors: those are the store's.
        store_failed = !connection_.in_transaction();
    }
    if (!applied) {
        intents_.forget();  // rolled back by the Transaction's destructor
    }
    return applied;
}

GroupCommitWriter::Result GroupCommitWriter::apply(const WriteIntent& intent) {
    if (const auto* game = std::get_if<GameIntent>(&intent)) {
        return intents_.apply(*game);
    }
    if (const auto* save = std::get_if<SaveAnalysis>(&intent)) {
        return analyses_.apply(*save);
    }
    return accounts_.apply(std::get<AccountIntent>(intent));
}

}  // namespace arbiter::server::storage::detail
