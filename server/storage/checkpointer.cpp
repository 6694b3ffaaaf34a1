#include "server/storage/checkpointer.hpp"

#include <utility>

#include <pthread.h>
#include <sqlite3.h>

namespace arbiter::server::storage::detail {

Checkpointer::Checkpointer(sqlite::Connection connection, SyncFailure& sync_failure)
    : connection_(std::move(connection)), sync_failure_(sync_failure) {}

Checkpointer::~Checkpointer() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wanted_.notify_one();
    if (thread_.joinable()) {
        thread_.join();
    }
}

void Checkpointer::watch(sqlite::Connection& writer) {
    sqlite3_wal_hook(writer.handle(), &Checkpointer::on_wal_commit, this);
}

void Checkpointer::unwatch(sqlite::Connection& writer) {
    sqlite3_wal_hook(writer.handle(), nullptr, nullptr);
}

void Checkpointer::start() {
    thread_ = std::thread([this] { run(); });
}

CheckpointStats Checkpointer::stats() const {
    return CheckpointStats{checkpoints_.load(), inline_checkpoints_.load(), wal_restarts_.load()};
}

int Checkpointer::on_wal_commit(void* self, sqlite3* connection, const char* database, int pages) {
    auto* checkpointer = static_cast<Checkpointer*>(self);
    if (pages < checkpointer->wal_pages_.load(std::memory_order_relaxed)) {
        // Fewer frames than after the last commit: this one began the WAL from its start.
        checkpointer->wal_restarts_.fetch_add(1);
    }
    checkpointer->wal_pages_.store(pages, std::memory_order_relaxed);
    if (pages >= kInlineWalPages) {
        // Under steady writes the checkpoint thread never finishes between two commits, and the
        // WAL restarts from its start only when a writer begins after a checkpoint copied every
        // frame. So past this size the writer copies the little that is left itself, right after
        // its commit (PASSIVE: it waits for no reader), and its next transaction restarts the
        // WAL. Not while the thread is copying: the two would only make each other busy.
        if (!checkpointer->checkpointing_.load()) {
            const int code = sqlite3_wal_checkpoint_v2(connection, database,
                                                       SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
            checkpointer->sync_failure_.note(code, "checkpointing the WAL");
            checkpointer->inline_checkpoints_.fetch_add(1);
        }
    } else if (pages >= kWalPages) {
        {
            std::lock_guard lock(checkpointer->mutex_);
            checkpointer->requested_ = true;
        }
        checkpointer->wanted_.notify_one();
    }
    return SQLITE_OK;
}

void Checkpointer::run() {
    pthread_setname_np(pthread_self(), "arbiter-ckpt");  // for top -H, perf and gdb
    for (;;) {
        {
            std::unique_lock lock(mutex_);
            wanted_.wait(lock, [this] { return requested_ || stopping_; });
            if (stopping_) {
                return;
            }
            requested_ = false;
        }
        // PASSIVE copies what it can without waiting for anyone and never blocks the writer;
        // SQLITE_BUSY (another checkpoint is running) just means the next request does it.
        checkpointing_.store(true);
        const int code = sqlite3_wal_checkpoint_v2(connection_.handle(), nullptr,
                                                   SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
        checkpointing_.store(false);
        sync_failure_.note(code, "checkpointing the WAL");
        checkpoints_.fetch_add(1);
    }
}

}  // namespace arbiter::server::storage::detail
