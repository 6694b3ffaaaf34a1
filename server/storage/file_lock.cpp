#include "server/storage/file_lock.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace arbiter::server::storage::detail {

namespace {

// The process id the lock file records, or "" if it cannot be read.
std::string recorded_holder(int fd) {
    char text[32] = {};
    const ssize_t count = ::pread(fd, text, sizeof(text) - 1, 0);
    if (count <= 0) {
        return {};
    }
    std::string holder(text, static_cast<std::size_t>(count));
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) {
        holder.pop_back();
    }
    return holder;
}

}  // namespace

Expected<ExclusiveFileLock, StorageError> ExclusiveFileLock::acquire(const std::string& path) {
    ExclusiveFileLock lock;
    lock.fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock.fd_ < 0) {
        return unexpected(
            StorageError{"cannot open lock file " + path + ": " + std::strerror(errno)});
    }
    if (::flock(lock.fd_, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK) {
            return unexpected(StorageError{"cannot lock " + path + ": " + std::strerror(errno)});
        }
        const std::string holder = recorded_holder(lock.fd_);
        return unexpected(
            StorageError{"the database is in use by another server" +
                         (holder.empty() ? std::string() : " (process " + holder + ")") + ": " +
                         path + " is locked"});
    }
    // Only for the message above: the lock itself is what counts.
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(lock.fd_, 0) == 0) {
        (void)::pwrite(lock.fd_, pid.data(), pid.size(), 0);
    }
    return lock;
}

ExclusiveFileLock::ExclusiveFileLock(ExclusiveFileLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)) {}

ExclusiveFileLock& ExclusiveFileLock::operator=(ExclusiveFileLock&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) {
            ::close(fd_);
        }
        fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
}

ExclusiveFileLock::~ExclusiveFileLock() {
    if (fd_ >= 0) {
        ::close(fd_);  // releases the lock
    }
}

}  // namespace arbiter::server::storage::detail
