#include "server/bus/redis_link.hpp"

#include <hiredis/hiredis.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace arbiter::server::bus::detail {
namespace {

timeval to_timeval(std::chrono::milliseconds duration) {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(duration);
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(duration - seconds);
    return timeval{static_cast<time_t>(seconds.count()), static_cast<suseconds_t>(micros.count())};
}

}  // namespace

Waker::Waker() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
    if (fd_ < 0) {
        throw std::runtime_error("bus: eventfd failed");
    }
}

Waker::~Waker() {
    ::close(fd_);
}

void Waker::notify() const {
    const std::uint64_t one = 1;
    // A full counter (2^64 - 2 signals) still wakes the poller: nothing to handle on failure.
    [[maybe_unused]] const auto written = ::write(fd_, &one, sizeof one);
}

void Waker::drain() const {
    std::uint64_t count = 0;
    [[maybe_unused]] const auto read = ::read(fd_, &count, sizeof count);
}

Woken wait_for(const Waker& waker, int socket_fd,
               std::optional<std::chrono::milliseconds> timeout) {
    std::array<pollfd, 2> fds{pollfd{waker.fd(), POLLIN, 0}, pollfd{socket_fd, POLLIN, 0}};
    const nfds_t count = socket_fd >= 0 ? 2 : 1;
    const int millis = timeout ? static_cast<int>(timeout->count()) : -1;
    if (::poll(fds.data(), count, millis) <= 0) {
        return {};  // timeout, or EINTR: the caller's loop looks again
    }
    Woken woken;
    woken.by_waker = (fds[0].revents & POLLIN) != 0;
    woken.readable = count == 2 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
    if (woken.by_waker) {
        waker.drain();
    }
    return woken;
}

void ContextDeleter::operator()(redisContext* context) const {
    redisFree(context);
}

Context connect(const RedisAddress& address, std::chrono::milliseconds connect_timeout,
                std::chrono::milliseconds io_timeout) {
    Context context(
        redisConnectWithTimeout(address.host.c_str(), address.port, to_timeval(connect_timeout)));
    if (!context || context->err != 0) {
        return nullptr;
    }
    if (redisSetTimeout(context.get(), to_timeval(io_timeout)) != REDIS_OK ||
        redisEnableKeepAlive(context.get()) != REDIS_OK) {
        return nullptr;
    }
    return context;
}

bool append_command(redisContext& context, std::span<const std::string_view> arguments) {
    std::vector<const char*> data;
    std::vector<std::size_t> sizes;
    data.reserve(arguments.size());
    sizes.reserve(arguments.size());
    for (const auto argument : arguments) {
        data.push_back(argument.data());
        sizes.push_back(argument.size());
    }
    return redisAppendCommandArgv(&context, static_cast<int>(arguments.size()), data.data(),
                                  sizes.data()) == REDIS_OK;
}

bool flush(redisContext& context) {
    int done = 0;
    while (done == 0) {
        if (redisBufferWrite(&context, &done) != REDIS_OK) {
            return false;
        }
    }
    return true;
}

void block_sigpipe_on_this_thread() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

}  // namespace arbiter::server::bus::detail
