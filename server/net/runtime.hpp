#pragma once
/// \file
/// Serial executors and timers for the game logic, without Asio types: rooms post work to an
/// Executor (an Asio strand underneath) and arm timers through it. Tests use a manual executor.

#include <chrono>
#include <functional>
#include <memory>

namespace arbiter::server {

/// A cancellable timer. Cancelling after it fired does nothing.
class Timer {
  public:
    virtual ~Timer() = default;
    virtual void cancel() = 0;
};

/// Runs tasks one at a time, in the order posted (a strand). Thread-safe.
class Executor {
  public:
    virtual ~Executor() = default;
    virtual void post(std::function<void()> task) = 0;
    /// Runs `task` on this executor after `delay` unless the returned timer is cancelled first.
    virtual std::shared_ptr<Timer> post_after(std::chrono::milliseconds delay,
                                              std::function<void()> task) = 0;
};

/// Monotonic time for clocks and wall time for records; injected so tests can fake both.
class TimeSource {
  public:
    virtual ~TimeSource() = default;
    virtual std::chrono::steady_clock::time_point now() const = 0;
    /// Milliseconds since the Unix epoch.
    virtual std::int64_t unix_ms() const = 0;
};

/// The real clocks.
class SystemTime final : public TimeSource {
  public:
    std::chrono::steady_clock::time_point now() const override {
        return std::chrono::steady_clock::now();
    }
    std::int64_t unix_ms() const override {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    }
};

}  // namespace arbiter::server
