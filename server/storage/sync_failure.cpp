#include "server/storage/sync_failure.hpp"

#include <string>

#include <sqlite3.h>

namespace arbiter::server::storage::detail {

void SyncFailure::note(int code, std::string_view doing) {
    if (code != SQLITE_IOERR_FSYNC && code != SQLITE_IOERR_DIR_FSYNC) {
        return;
    }
    std::lock_guard lock(mutex_);
    if (!failure_) {
        failure_ =
            StorageError{std::string(doing) + ": the disk failed to sync (" + sqlite3_errstr(code) +
                         ", sqlite code " + std::to_string(code) +
                         "); writes are refused until the server restarts on a healthy disk"};
    }
}

void SyncFailure::note(const sqlite::Connection& connection, std::string_view doing) {
    note(sqlite3_extended_errcode(connection.handle()), doing);
}

std::optional<StorageError> SyncFailure::refusal() const {
    std::lock_guard lock(mutex_);
    return failure_;
}

}  // namespace arbiter::server::storage::detail
