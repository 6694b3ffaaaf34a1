#include "server/storage/sqlite_setup.hpp"

#include <algorithm>
#include <utility>

namespace arbiter::server::storage::detail {

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

StorageError prefixed(std::string_view doing, const StorageError& error) {
    return StorageError{std::string(doing) + ": " + error.message, error.taken};
}

}  // namespace arbiter::server::storage::detail
