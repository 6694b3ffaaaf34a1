#pragma once
/// \file
/// Deletes, now and then, the aborted games nobody played (storage::PruneAborted): one client
/// creating and abandoning games by the thousand would otherwise leave them in the database for
/// good. A game with a move is never deleted.

#include <chrono>
#include <memory>
#include <mutex>

#include "server/net/runtime.hpp"
#include "server/storage/repository.hpp"

namespace arbiter::server::app {

/// Every `interval()`, asks storage to delete the games aborted unplayed more than `after` ago.
class AbortedPruner {
  public:
    /// `after` zero: never prunes.
    AbortedPruner(storage::GameRepository& repository, const TimeSource& time,
                  std::chrono::seconds after);
    ~AbortedPruner();
    AbortedPruner(const AbortedPruner&) = delete;
    AbortedPruner& operator=(const AbortedPruner&) = delete;

    /// Prunes now, then every interval() on `executor`, until stop(). Given here, not at
    /// construction: the server's executors come from its network, which is made after the hub.
    void start(std::shared_ptr<Executor> executor);
    void stop();
    /// How often it prunes: as often as `after` (so a game goes at most twice `after` after its
    /// abort), at least once a second and at most once an hour.
    std::chrono::milliseconds interval() const;

  private:
    void prune();
    void arm();

    storage::GameRepository& repository_;
    const TimeSource& time_;
    std::shared_ptr<Executor> executor_;
    const std::chrono::seconds after_;
    std::mutex mutex_;  ///< guards timer_ and stopped_
    std::shared_ptr<Timer> timer_;
    bool stopped_ = false;
};

}  // namespace arbiter::server::app
