#pragma once
/// \file
/// The builtin engine (common/engine) as a seat agent. Searches run on a small pool of worker
/// threads, never on network threads or a room's strand; each search is bounded by its level's
/// limits, by a time budget taken from the game clock, and by a stop flag that is set when the
/// answer is no longer wanted (cancel, game over) or the server stops.

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "server/app/seat_agent.hpp"

namespace arbiter::server::engines {

/// Worker threads for builtin searches.
class BuiltinPool {
  public:
    /// A search to run and the flag it watches.
    struct Job {
        std::function<void()> run;
        std::shared_ptr<std::atomic<bool>> stop;
    };

    explicit BuiltinPool(unsigned threads);
    ~BuiltinPool();
    BuiltinPool(const BuiltinPool&) = delete;
    BuiltinPool& operator=(const BuiltinPool&) = delete;

    /// Queues a job; after stop() it is dropped.
    void submit(Job job);
    /// Sets every queued and running job's stop flag, drops the queue and joins the workers.
    void stop();

  private:
    void work();

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Job> queue_;
    std::vector<std::shared_ptr<std::atomic<bool>>> running_;
    bool stopping_ = false;
    std::vector<std::thread> workers_;
};

class BuiltinAgent final : public app::SeatAgent,
                           public std::enable_shared_from_this<BuiltinAgent> {
  public:
    BuiltinAgent(int level, BuiltinPool& pool, std::shared_ptr<Executor> executor);

    void ask(app::MoveQuestion question, std::function<void(app::MoveAnswer)> done) override;
    void cancel() override;
    void restart() override;
    void close() override;

  private:
    int level_;
    BuiltinPool& pool_;
    std::shared_ptr<Executor> executor_;
    std::shared_ptr<std::atomic<bool>> stop_;  ///< of the search in flight
    std::function<void(app::MoveAnswer)> done_;
    std::uint64_t generation_ = 0;  ///< an answer for an older question is dropped
    std::uint64_t seed_;
    bool closed_ = false;
};

/// The builtin search's time budget for one move: the level's limit, capped from the clock
/// (about 1/30 of the remaining time plus half the increment, at least 20 ms).
std::chrono::milliseconds builtin_budget(std::chrono::milliseconds level_limit,
                                         const app::MoveQuestion& question);

}  // namespace arbiter::server::engines
