// The builtin engine's shared workers are fair to games that are not their heaviest users: the
// search due first runs first, waiting counts against a search's time, and a search due soon
// cuts a long one short rather than waiting for it.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "server/engine/builtin_agent.hpp"

namespace arbiter::server::engines {
namespace {

using Clock = BuiltinPool::Clock;
using std::chrono::milliseconds;

BuiltinPool::Job job_at(Clock::time_point deadline,
                        std::function<void(milliseconds, const std::atomic<std::int64_t>*)> run) {
    return {std::move(run), std::make_shared<std::atomic<bool>>(false), deadline};
}

/// Holds the pool's one worker from construction until release().
class BusyWorker {
  public:
    explicit BusyWorker(BuiltinPool& pool) {
        std::promise<void> started;
        pool.submit(job_at(Clock::now(), [&started, released = released_](
                                             milliseconds, const std::atomic<std::int64_t>*) {
            started.set_value();
            released.wait();
        }));
        started.get_future().wait();
    }
    void release() { release_.set_value(); }

  private:
    std::promise<void> release_;
    std::shared_future<void> released_ = release_.get_future().share();
};

/// Runs as a search does: until its time is up or its cap (ms since its start) is reached.
/// Returns how long it ran.
milliseconds search_like(milliseconds time_left, const std::atomic<std::int64_t>* cap) {
    const auto start = Clock::now();
    for (;;) {
        const auto ran = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
        if (ran >= time_left || ran.count() >= cap->load()) {
            return ran;
        }
        std::this_thread::sleep_for(milliseconds{2});
    }
}

TEST(BuiltinPool, TheSearchDueFirstRunsFirst) {
    BuiltinPool pool(1);
    BusyWorker busy(pool);
    std::mutex mutex;
    std::vector<int> order;
    std::promise<void> all_ran;
    const auto now = Clock::now();
    for (const int seconds : {3, 1, 2}) {
        pool.submit(job_at(now + std::chrono::seconds(seconds),
                           [&, seconds](milliseconds, const std::atomic<std::int64_t>*) {
                               std::lock_guard lock(mutex);
                               order.push_back(seconds);
                               if (order.size() == 3) {
                                   all_ran.set_value();
                               }
                           }));
    }
    busy.release();
    all_ran.get_future().wait();
    EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST(BuiltinPool, TimeSpentWaitingCountsAgainstASearch) {
    BuiltinPool pool(1);
    BusyWorker busy(pool);
    const auto asked = Clock::now();
    std::promise<milliseconds> due_soon;
    std::promise<milliseconds> overdue;
    pool.submit(job_at(
        asked + milliseconds{400},
        [&](milliseconds left, const std::atomic<std::int64_t>*) { due_soon.set_value(left); }));
    pool.submit(job_at(
        asked + milliseconds{100},
        [&](milliseconds left, const std::atomic<std::int64_t>*) { overdue.set_value(left); }));
    std::this_thread::sleep_for(milliseconds{300});
    busy.release();
    // Waited at least 300 ms: 100 ms at most are left of the first budget, and the second is
    // past its deadline, so it gets the floor.
    const milliseconds left = due_soon.get_future().get();
    EXPECT_LE(left, milliseconds{100});
    EXPECT_GE(left, BuiltinPool::kFloor);
    EXPECT_EQ(overdue.get_future().get(), BuiltinPool::kFloor);
}

TEST(BuiltinPool, ASearchDueSoonCutsALongOneShortWhichStillAnswers) {
    BuiltinPool pool(1);
    const auto asked = Clock::now();
    std::promise<milliseconds> long_ran;
    std::promise<void> long_started;
    auto long_job = job_at(asked + std::chrono::seconds{30},
                           [&](milliseconds left, const std::atomic<std::int64_t>* cap) {
                               long_started.set_value();
                               long_ran.set_value(search_like(left, cap));
                           });
    const auto long_stop = long_job.stop;
    pool.submit(std::move(long_job));
    long_started.get_future().wait();
    std::promise<Clock::time_point> urgent_ran;
    pool.submit(job_at(Clock::now(), [&](milliseconds, const std::atomic<std::int64_t>*) {
        urgent_ran.set_value(Clock::now());
    }));
    const milliseconds ran = long_ran.get_future().get();
    // It keeps its fair share, no more: far less than its 30 s.
    EXPECT_GE(ran, BuiltinPool::kFairShare);
    EXPECT_LT(ran, std::chrono::seconds{10});
    EXPECT_FALSE(long_stop->load()) << "cut short, not dropped: its answer is still wanted";
    EXPECT_LT(urgent_ran.get_future().get() - asked, std::chrono::seconds{10});
}

TEST(BuiltinPool, NoSearchIsCutShortForOneDueLaterOrWhenAWorkerIsFree) {
    std::atomic<std::int64_t> seen_cap{0};
    auto observe = [&seen_cap](std::promise<void>& started, std::shared_future<void> release) {
        return [&seen_cap, &started, release](milliseconds, const std::atomic<std::int64_t>* cap) {
            started.set_value();
            release.wait();
            seen_cap.store(cap->load());
        };
    };
    {
        BuiltinPool pool(1);
        std::promise<void> started;
        std::promise<void> release;
        pool.submit(job_at(Clock::now() + std::chrono::seconds{1},
                           observe(started, release.get_future().share())));
        started.get_future().wait();
        pool.submit(job_at(Clock::now() + std::chrono::seconds{5},
                           [](milliseconds, const std::atomic<std::int64_t>*) {}));
        release.set_value();
    }
    EXPECT_EQ(seen_cap.load(), INT64_MAX) << "a search due later waits its turn";
    {
        BuiltinPool pool(2);
        std::promise<void> started;
        std::promise<void> release;
        pool.submit(job_at(Clock::now() + std::chrono::seconds{30},
                           observe(started, release.get_future().share())));
        started.get_future().wait();
        std::promise<void> urgent_ran;
        pool.submit(job_at(Clock::now(), [&](milliseconds, const std::atomic<std::int64_t>*) {
            urgent_ran.set_value();
        }));
        urgent_ran.get_future().wait();
        release.set_value();
    }
    EXPECT_EQ(seen_cap.load(), INT64_MAX) << "a free worker takes the urgent search";
}

}  // namespace
}  // namespace arbiter::server::engines
