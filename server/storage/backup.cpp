#include "server/storage/backup.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include "server/storage/sqlite_setup.hpp"

namespace arbiter::server::storage::detail {

namespace {

// Pages copied per backup step: 4 MiB at the default 4 KiB page size.
constexpr int kBackupPagesPerStep = 1024;

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

}  // namespace

Expected<void, StorageError> backup_database(const std::string& database, const std::string& path,
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
        auto copied = sqlite::copy_database(*source, *target, kBackupPagesPerStep);
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
        return unexpected(detail::prefixed("backup", synced.error()));
    }
    return {};
}

}  // namespace arbiter::server::storage::detail
