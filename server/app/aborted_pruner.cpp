#include "server/app/aborted_pruner.hpp"

#include <algorithm>
#include <utility>

#include "server/app/log.hpp"

namespace arbiter::server::app {

AbortedPruner::AbortedPruner(storage::GameRepository& repository, const TimeSource& time,
                             std::chrono::seconds after)
    : repository_(repository), time_(time), after_(after) {}

AbortedPruner::~AbortedPruner() {
    stop();
}

std::chrono::milliseconds AbortedPruner::interval() const {
    return std::clamp<std::chrono::milliseconds>(after_, std::chrono::seconds(1),
                                                 std::chrono::hours(1));
}

void AbortedPruner::start(std::shared_ptr<Executor> executor) {
    if (after_.count() <= 0) {
        return;
    }
    std::lock_guard lock(mutex_);
    if (stopped_) {
        return;
    }
    executor_ = std::move(executor);
    executor_->post([this] { prune(); });
}

void AbortedPruner::stop() {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    if (timer_) {
        timer_->cancel();
        timer_.reset();
    }
    // The executor holds the network's shared state, which holds the hub that holds this
    // pruner: kept, it would keep all of them alive after the server stopped.
    executor_.reset();
}

void AbortedPruner::prune() {
    {
        std::lock_guard lock(mutex_);
        if (stopped_) {
            return;
        }
    }
    const std::int64_t before_ms =
        time_.unix_ms() - std::chrono::duration_cast<std::chrono::milliseconds>(after_).count();
    repository_.write(
        storage::PruneAborted{before_ms}, [](const Expected<void, storage::StorageError>& done) {
            if (!done) {
                // Tried again at the next interval; nothing else depends on it.
                log_event(LogLevel::warn, "prune_failed", {{"error", done.error().message}});
            }
        });
    arm();
}

void AbortedPruner::arm() {
    std::lock_guard lock(mutex_);
    if (!stopped_) {
        timer_ = executor_->post_after(interval(), [this] { prune(); });
    }
}

}  // namespace arbiter::server::app
