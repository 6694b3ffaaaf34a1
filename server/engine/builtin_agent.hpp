#pragma once
/// \file
/// The builtin engine (common/engine) as a seat agent. Searches run on a small pool of worker
/// threads, never on network threads or a room's strand; each search is bounded by its level's
/// limits, by a time budget taken from the game clock, and by a stop flag that is set when the
/// answer is no longer wanted (cancel, game over) or the server stops.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "server/app/seat_agent.hpp"

namespace arbiter::server::engines {

/// Worker threads for builtin searches, shared by every game.
///
/// Fair to games that are not this pool's heaviest users:
/// - each search is due at a deadline, the time of asking plus its budget, and the queue runs
///   the earliest deadline first, so a short search is not stuck behind long ones;
/// - the time a search waited counts against it: it runs for what is left until its deadline
///   (at least `kFloor`), so waiting does not push its game's clock past the budget;
/// - a search due sooner than one running, when every worker is busy, cuts the running one
///   short once that one has searched `kFairShare` (it then answers with its best so far).
class BuiltinPool {
  public:
    using Clock = std::chrono::steady_clock;
    /// The shortest time a search is given, however late it starts.
    static constexpr std::chrono::milliseconds kFloor{20};
    /// What a running search keeps when a more urgent one cuts it short.
    static constexpr std::chrono::milliseconds kFairShare{200};

    /// A search to run: `run(time_left, time_cap_ms)` searches for at most `time_left` and
    /// stops early when `*time_cap_ms` (ms since it started) falls below that.
    struct Job {
        std::function<void(std::chrono::milliseconds time_left,
                           const std::atomic<std::int64_t>* time_cap_ms)>
            run;
        std::shared_ptr<std::atomic<bool>> stop;  ///< set on stop(): the answer is not wanted
        Clock::time_point deadline;
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
    struct Running {
        std::shared_ptr<std::atomic<bool>> stop;
        std::shared_ptr<std::atomic<std::int64_t>> time_cap_ms;
        Clock::time_point started;
        Clock::time_point deadline;
    };

    void work();
    /// With every worker busy, cuts short the running search due last if `deadline` is sooner.
    void make_way_for(Clock::time_point deadline, Clock::time_point now);

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Job> queue_;
    std::vector<Running> running_;
    bool stopping_ = false;
    std::size_t size_ = 0;
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

}  // namespace arbiter::server::engines
