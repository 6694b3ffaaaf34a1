#include "power_cut_vfs.hpp"

#include <sqlite3.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

namespace arbiter::server::storage::testing {

namespace {

// A write or truncation not synced yet.
struct PendingChange {
    sqlite3_int64 offset = 0;  // for a truncation: the new size
    std::string bytes;
    bool truncation = false;
};

// What the disk holds of one file, and what the file has been told since its last sync.
struct FileImage {
    std::string durable;
    std::vector<PendingChange> pending;
    /// Failed syncs so far: as Linux's errseq, each handle open at a failure is told of it by
    /// its own next sync.
    std::uint64_t errors = 0;
};

void apply(std::string& content, const PendingChange& change) {
    const auto offset = static_cast<std::size_t>(change.offset);
    if (change.truncation) {
        content.resize(offset);
        return;
    }
    if (content.size() < offset + change.bytes.size()) {
        content.resize(offset + change.bytes.size());
    }
    content.replace(offset, change.bytes.size(), change.bytes);
}

std::string read_whole_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The model's state: one per process, as the default VFS is.
struct Model {
    std::mutex mutex;
    std::map<std::string, FileImage> files;  // by SQLite's full path
    bool powered = true;
    std::uint64_t syncs = 0;
    std::optional<std::size_t> fail_wal_sync_from;  // armed: pending writes that make it fail
    bool wal_sync_failed = false;
    std::atomic<bool> disk_full{false};
    sqlite3_vfs* real = nullptr;
    sqlite3_vfs vfs{};
    sqlite3_io_methods methods{};
};

Model& model() {
    static Model instance;
    return instance;
}

// Our file: the image it belongs to (nullptr: not tracked), then the real VFS's file.
struct CutFile {
    sqlite3_file base;
    FileImage* image;
    bool wal;
    std::uint64_t errors_seen;  // of image->errors
};

sqlite3_file* real_file(sqlite3_file* file) {
    return reinterpret_cast<sqlite3_file*>(reinterpret_cast<CutFile*>(file) + 1);
}

FileImage* image_of(sqlite3_file* file) {
    return reinterpret_cast<CutFile*>(file)->image;
}

void record(sqlite3_file* file, PendingChange change) {
    if (FileImage* image = image_of(file)) {
        const std::lock_guard lock(model().mutex);
        if (model().powered) {
            image->pending.push_back(std::move(change));
        }
    }
}

int cut_close(sqlite3_file* file) {
    sqlite3_file* real = real_file(file);
    return real->pMethods->xClose(real);
}

int cut_read(sqlite3_file* file, void* buffer, int amount, sqlite3_int64 offset) {
    sqlite3_file* real = real_file(file);
    return real->pMethods->xRead(real, buffer, amount, offset);
}

int cut_write(sqlite3_file* file, const void* buffer, int amount, sqlite3_int64 offset) {
    sqlite3_file* real = real_file(file);
    if (image_of(file) != nullptr && model().disk_full.load()) {
        // A full disk refuses writes that need new blocks; overwrites still go in place.
        sqlite3_int64 size = 0;
        if (real->pMethods->xFileSize(real, &size) != SQLITE_OK || offset + amount > size) {
            return SQLITE_FULL;
        }
    }
    const int code = real->pMethods->xWrite(real, buffer, amount, offset);
    if (code == SQLITE_OK) {
        record(file,
               {offset,
                std::string(static_cast<const char*>(buffer), static_cast<std::size_t>(amount)),
                false});
    }
    return code;
}

int cut_truncate(sqlite3_file* file, sqlite3_int64 size) {
    sqlite3_file* real = real_file(file);
    const int code = real->pMethods->xTruncate(real, size);
    if (code == SQLITE_OK) {
        record(file, {size, {}, true});
    }
    return code;
}

int cut_sync(sqlite3_file* file, int) {
    const std::lock_guard lock(model().mutex);
    if (!model().powered) {
        return SQLITE_OK;
    }
    ++model().syncs;
    auto* ours = reinterpret_cast<CutFile*>(file);
    FileImage* image = ours->image;
    if (image == nullptr) {
        return SQLITE_OK;
    }
    const auto& fail_from = model().fail_wal_sync_from;
    if (ours->wal && fail_from && image->pending.size() >= *fail_from) {
        // A failing disk: these writes never reach it, and the next sync will not retry them
        // (the live file keeps them, as the page cache does).
        model().fail_wal_sync_from.reset();
        model().wal_sync_failed = true;
        image->pending.clear();
        ours->errors_seen = ++image->errors;
        return SQLITE_IOERR_FSYNC;
    }
    for (const PendingChange& change : image->pending) {
        apply(image->durable, change);
    }
    image->pending.clear();
    if (ours->errors_seen < image->errors) {
        // Another handle's sync failed since this one's last: what is pending now is written,
        // but this sync reports the failure too.
        ours->errors_seen = image->errors;
        return SQLITE_IOERR_FSYNC;
    }
    return SQLITE_OK;
}

int cut_file_size(sqlite3_file* file, sqlite3_int64* size) {
    sqlite3_file* real = real_file(file);
    return real->pMethods->xFileSize(real, size);
}

int cut_lock(sqlite3_file* file, int level) {
    sqlite3_file* real = real_file(file);
    return real->pMethods->xLock(real, level);
}

int cut_unlock(sqlite3_file* file, int level) {
    sqlite3_file* real = real_file(file);
    return real->pMethods->xUnlock(real, level);
}

int cut_check_reserved_lock(sqlite3_file* file, int* reserved) {
    sqlite3_file* real = real_file(file);
    return real->pMethods->xCheckReservedLock(real, reserved);
}

int cut_file_control(sqlite3_file* file, int operation, void* argument) {
    sqlite3_file* real = real_file(file);
    return real->pMethods->xFileControl(real, operation, argument);
}

int cut_sector_size(sqlite3_file* file) {
    sqlite3_file* real = real_file(file);
    return real->pMethods->xSectorSize(real);
}

int cut_device_characteristics(sqlite3_file* file) {
    sqlite3_file* real = real_file(file);
    return real->pMethods->xDeviceCharacteristics(real);
}

// The WAL index (-shm) is shared memory that SQLite rebuilds from the WAL after a crash: passed
// through, never part of a cut.
int cut_shm_map(sqlite3_file* file, int region, int size, int extend, void volatile** memory) {
    sqlite3_file* real = real_file(file);
    return real->pMethods->xShmMap(real, region, size, extend, memory);
}

int cut_shm_lock(sqlite3_file* file, int offset, int count, int flags) {
    sqlite3_file* real = real_file(file);
    return real->pMethods->xShmLock(real, offset, count, flags);
}

void cut_shm_barrier(sqlite3_file* file) {
    sqlite3_file* real = real_file(file);
    real->pMethods->xShmBarrier(real);
}

int cut_shm_unmap(sqlite3_file* file, int delete_flag) {
    sqlite3_file* real = real_file(file);
    return real->pMethods->xShmUnmap(real, delete_flag);
}

int cut_fetch(sqlite3_file* file, sqlite3_int64 offset, int amount, void** pointer) {
    sqlite3_file* real = real_file(file);
    return real->pMethods->xFetch(real, offset, amount, pointer);
}

int cut_unfetch(sqlite3_file* file, sqlite3_int64 offset, void* pointer) {
    sqlite3_file* real = real_file(file);
    return real->pMethods->xUnfetch(real, offset, pointer);
}

int cut_open(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* out_flags) {
    Model& state = model();
    auto* ours = reinterpret_cast<CutFile*>(file);
    ours->base.pMethods = nullptr;
    ours->image = nullptr;
    ours->wal = (flags & SQLITE_OPEN_WAL) != 0;
    ours->errors_seen = 0;
    sqlite3_file* real = real_file(file);
    const int code = state.real->xOpen(state.real, name, real, flags, out_flags);
    if (code != SQLITE_OK) {
        return code;
    }
    if (real->pMethods == nullptr || real->pMethods->iVersion < state.methods.iVersion) {
        if (real->pMethods != nullptr) {
            real->pMethods->xClose(real);
        }
        return SQLITE_CANTOPEN;
    }
    ours->base.pMethods = &state.methods;
    if (name != nullptr && (flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL)) != 0) {
        const std::lock_guard lock(state.mutex);
        auto [entry, inserted] = state.files.try_emplace(name);
        if (inserted) {
            // What a file holds when the model first sees it is taken as on the disk.
            entry->second.durable = read_whole_file(name);
        }
        ours->image = &entry->second;
        ours->errors_seen = entry->second.errors;
    }
    return SQLITE_OK;
}

int cut_delete(sqlite3_vfs*, const char* name, int sync_directory) {
    Model& state = model();
    const int code = state.real->xDelete(state.real, name, sync_directory);
    if (code == SQLITE_OK) {
        const std::lock_guard lock(state.mutex);
        if (state.powered) {
            // Open handles keep their image alive (std::map nodes are stable); a file made again
            // under this name starts from what is then on the disk.
            auto found = state.files.find(name);
            if (found != state.files.end()) {
                found->second.durable.clear();
                found->second.pending.clear();
            }
        }
    }
    return code;
}

int cut_access(sqlite3_vfs*, const char* name, int flags, int* result) {
    return model().real->xAccess(model().real, name, flags, result);
}

int cut_full_pathname(sqlite3_vfs*, const char* name, int size, char* out) {
    return model().real->xFullPathname(model().real, name, size, out);
}

int cut_randomness(sqlite3_vfs*, int size, char* out) {
    return model().real->xRandomness(model().real, size, out);
}

int cut_sleep(sqlite3_vfs*, int microseconds) {
    return model().real->xSleep(model().real, microseconds);
}

int cut_current_time(sqlite3_vfs*, double* now) {
    return model().real->xCurrentTime(model().real, now);
}

int cut_get_last_error(sqlite3_vfs*, int size, char* out) {
    return model().real->xGetLastError(model().real, size, out);
}

int cut_current_time_int64(sqlite3_vfs*, sqlite3_int64* now) {
    return model().real->xCurrentTimeInt64(model().real, now);
}

constexpr const char* kVfsName = "arbiter-power-cut";

}  // namespace

PowerCutVfs::PowerCutVfs() {
    Model& state = model();
    const std::lock_guard lock(state.mutex);
    if (state.real != nullptr) {
        throw std::logic_error("one PowerCutVfs at a time");
    }
    state.real = sqlite3_vfs_find(nullptr);
    if (state.real == nullptr || state.real->iVersion < 2) {
        throw std::runtime_error("no default SQLite VFS to wrap");
    }
    state.files.clear();
    state.powered = true;
    state.syncs = 0;
    state.fail_wal_sync_from.reset();
    state.wal_sync_failed = false;
    state.disk_full.store(false);

    state.methods = sqlite3_io_methods{};
    state.methods.iVersion = 3;
    state.methods.xClose = cut_close;
    state.methods.xRead = cut_read;
    state.methods.xWrite = cut_write;
    state.methods.xTruncate = cut_truncate;
    state.methods.xSync = cut_sync;
    state.methods.xFileSize = cut_file_size;
    state.methods.xLock = cut_lock;
    state.methods.xUnlock = cut_unlock;
    state.methods.xCheckReservedLock = cut_check_reserved_lock;
    state.methods.xFileControl = cut_file_control;
    state.methods.xSectorSize = cut_sector_size;
    state.methods.xDeviceCharacteristics = cut_device_characteristics;
    state.methods.xShmMap = cut_shm_map;
    state.methods.xShmLock = cut_shm_lock;
    state.methods.xShmBarrier = cut_shm_barrier;
    state.methods.xShmUnmap = cut_shm_unmap;
    state.methods.xFetch = cut_fetch;
    state.methods.xUnfetch = cut_unfetch;

    state.vfs = sqlite3_vfs{};
    state.vfs.iVersion = 2;
    state.vfs.szOsFile = static_cast<int>(sizeof(CutFile)) + state.real->szOsFile;
    state.vfs.mxPathname = state.real->mxPathname;
    state.vfs.zName = kVfsName;
    state.vfs.xOpen = cut_open;
    state.vfs.xDelete = cut_delete;
    state.vfs.xAccess = cut_access;
    state.vfs.xFullPathname = cut_full_pathname;
    state.vfs.xRandomness = cut_randomness;
    state.vfs.xSleep = cut_sleep;
    state.vfs.xCurrentTime = cut_current_time;
    state.vfs.xGetLastError = cut_get_last_error;
    state.vfs.xCurrentTimeInt64 = cut_current_time_int64;
    if (sqlite3_vfs_register(&state.vfs, 1) != SQLITE_OK) {
        state.real = nullptr;
        throw std::runtime_error("cannot register the power-cut VFS");
    }
}

PowerCutVfs::~PowerCutVfs() {
    Model& state = model();
    sqlite3_vfs_register(state.real, 1);
    sqlite3_vfs_unregister(&state.vfs);
    const std::lock_guard lock(state.mutex);
    state.files.clear();
    state.real = nullptr;
}

bool PowerCutVfs::cut(const std::string& folder, double keep_unsynced, std::uint32_t seed) {
    Model& state = model();
    const std::lock_guard lock(state.mutex);
    if (!state.powered) {
        return true;
    }
    state.powered = false;
    std::mt19937 random(seed);
    std::bernoulli_distribution keep(keep_unsynced);
    bool written = true;
    for (const auto& [path, image] : state.files) {
        std::string content = image.durable;
        for (const PendingChange& change : image.pending) {
            if (keep(random)) {
                apply(content, change);
            }
        }
        const auto target = std::filesystem::path(folder) / std::filesystem::path(path).filename();
        std::ofstream out(target, std::ios::binary | std::ios::trunc);
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        written = written && static_cast<bool>(out);
    }
    return written;
}

bool PowerCutVfs::if_powered(const std::function<void()>& record) {
    const std::lock_guard lock(model().mutex);
    if (!model().powered) {
        return false;
    }
    record();
    return true;
}

void PowerCutVfs::fail_next_wal_sync(std::size_t pending_writes) {
    const std::lock_guard lock(model().mutex);
    model().fail_wal_sync_from = pending_writes;
}

bool PowerCutVfs::wal_sync_failed() const {
    const std::lock_guard lock(model().mutex);
    return model().wal_sync_failed;
}

void PowerCutVfs::set_disk_full(bool full) {
    model().disk_full.store(full);
}

std::uint64_t PowerCutVfs::syncs() const {
    const std::lock_guard lock(model().mutex);
    return model().syncs;
}

}  // namespace arbiter::server::storage::testing
