#include "server/storage/health_probe.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace arbiter::server::storage::detail {

HealthProbe::HealthProbe(sqlite::Connection connection, const SqliteOptions& options,
                         SyncFailure& sync_failure)
    : connection_(std::move(connection)),
      write_probe_after_(options.write_probe_after),
      max_size_bytes_(options.max_size_bytes),
      sync_failure_(sync_failure) {}

bool HealthProbe::writable(const LastBatch& last_batch) {
    if (sync_failure_.refusal()) {
        return false;
    }
    bool try_a_write = false;
    if (last_batch.failed) {
        if (std::chrono::steady_clock::now() - last_batch.at < write_probe_after_) {
            return false;
        }
        try_a_write = true;
    }
    std::lock_guard lock(mutex_);
    // Taking the write lock and rolling back writes nothing to the file. After a failed batch
    // and none since, the same transaction also commits the probe's own write.
    auto transaction = sqlite::Transaction::begin(connection_, sqlite::TransactionKind::immediate);
    if (!transaction || (try_a_write && !probe_write(*transaction))) {
        return false;
    }
    if (max_size_bytes_ == 0) {
        return true;
    }
    // At --max-db-bytes the lock is still free, and a write that needs no new page still
    // commits, but moves are refused: not writable, when fewer pages are left than a few
    // batches of moves take.
    constexpr std::int64_t kRoomPages = 16;
    const auto page_size = connection_.query_int64("PRAGMA page_size");
    const auto pages = connection_.query_int64("PRAGMA page_count");
    const auto free_pages = connection_.query_int64("PRAGMA freelist_count");
    if (!page_size || !pages || !free_pages || *page_size <= 0) {
        return false;
    }
    const auto max_pages = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(max_size_bytes_ / static_cast<std::uint64_t>(*page_size)));
    return *pages - *free_pages + kRoomPages <= max_pages;
}

bool HealthProbe::probe_write(sqlite::Transaction& transaction) {
    // The last batch failed (a full disk, say) and none was tried since. Taking the lock says
    // nothing of that; a write does. Setting user_version to its own value writes one page and
    // changes nothing.
    const auto version = connection_.query_int64("PRAGMA user_version");
    if (!version || !connection_.exec("PRAGMA user_version = " + std::to_string(*version))) {
        return false;
    }
    if (!transaction.commit()) {
        sync_failure_.note(connection_, "probing a write");
        return false;
    }
    return true;
}

}  // namespace arbiter::server::storage::detail
