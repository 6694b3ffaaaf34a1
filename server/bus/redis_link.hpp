#pragma once
/// \file
/// The pieces the Redis bus's two threads share: a hiredis connection that frees itself, a waker
/// that interrupts a thread's poll(), and the capped backoff between connection attempts.
/// Internal to arbiter_bus; hiredis does not leave this folder.

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "server/bus/redis_uri.hpp"

struct redisContext;

namespace arbiter::server::bus::detail {

/// The delay before the next connection attempt: `first`, doubled after each failure, never
/// more than `cap`; back to `first` once a connection succeeds.
class Backoff {
  public:
    Backoff(std::chrono::milliseconds first, std::chrono::milliseconds cap)
        : first_(first), cap_(cap), next_(first) {}

    /// The delay to wait now; the one after it is longer (up to the cap).
    std::chrono::milliseconds next() {
        const auto now = next_;
        next_ = std::min(cap_, next_ * 2);
        return now;
    }
    void reset() { next_ = first_; }

  private:
    std::chrono::milliseconds first_;
    std::chrono::milliseconds cap_;
    std::chrono::milliseconds next_;
};

/// An eventfd that one thread polls and any thread may signal.
class Waker {
  public:
    Waker();
    ~Waker();
    Waker(const Waker&) = delete;
    Waker& operator=(const Waker&) = delete;
    Waker(Waker&&) = delete;
    Waker& operator=(Waker&&) = delete;

    void notify() const;
    /// Clears the signal (the poller calls it when woken).
    void drain() const;
    int fd() const { return fd_; }

  private:
    int fd_;
};

/// What a wait ended on.
struct Woken {
    bool by_waker = false;
    bool readable = false;  ///< the connection has data, or was closed or failed
};

/// Waits for `waker`, for `socket_fd` to be readable (when it is not negative), or `timeout`
/// (none: forever).
Woken wait_for(const Waker& waker, int socket_fd, std::optional<std::chrono::milliseconds> timeout);

struct ContextDeleter {
    void operator()(redisContext* context) const;
};
/// A hiredis connection.
using Context = std::unique_ptr<redisContext, ContextDeleter>;

/// A connection to `address` in blocking mode whose reads and writes give up after `io_timeout`,
/// or nothing when Redis cannot be reached within `connect_timeout`.
Context connect(const RedisAddress& address, std::chrono::milliseconds connect_timeout,
                std::chrono::milliseconds io_timeout);

/// Appends one command, its arguments binary-safe, to the connection's output buffer; false when
/// hiredis could not (out of memory), and the connection must then be dropped.
bool append_command(redisContext& context, std::span<const std::string_view> arguments);

/// Writes the output buffer out; false when the connection failed.
bool flush(redisContext& context);

/// Blocks SIGPIPE on the calling thread: a write to a connection Redis has closed must become an
/// error (EPIPE) for that thread, not a signal that ends the process.
void block_sigpipe_on_this_thread();

}  // namespace arbiter::server::bus::detail
