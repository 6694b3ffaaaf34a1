// The strand-backed Executor the game logic runs on: order, delays, cancellation, faults.

#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <future>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "net_fixture.hpp"
#include "raw_client.hpp"

namespace arbiter::test {
namespace {

using namespace std::chrono_literals;
using NetRuntime = NetTest;

TEST_F(NetRuntime, PostedTasksRunInOrderOneAtATime) {
    start(4);
    const auto executor = network_->make_strand();
    std::vector<int> order;
    std::atomic<int> running{0};
    std::atomic<bool> overlapped{false};
    std::promise<void> done;
    constexpr int kTasks = 2000;
    for (int i = 0; i < kTasks; ++i) {
        executor->post([&, i] {
            if (running.fetch_add(1) != 0) {
                overlapped = true;
            }
            order.push_back(i);  // unsynchronised on purpose: the strand must serialise it
            running.fetch_sub(1);
            if (i == kTasks - 1) {
                done.set_value();
            }
        });
    }
    ASSERT_EQ(done.get_future().wait_for(10s), std::future_status::ready);
    EXPECT_FALSE(overlapped);
    ASSERT_EQ(order.size(), static_cast<std::size_t>(kTasks));
    for (int i = 0; i < kTasks; ++i) {
        ASSERT_EQ(order[static_cast<std::size_t>(i)], i);
    }
}

// Each network thread runs an io_context of its own: the strands are spread over the threads in
// turn, and each strand's tasks always run on its one thread (no hand-off between threads that
// share a queue).
TEST_F(NetRuntime, StrandsAreSpreadOverTheThreadsAndEachKeepsItsThread) {
    start(2);
    constexpr int kStrands = 4;
    constexpr int kTasks = 50;
    std::mutex mutex;
    std::vector<std::set<std::thread::id>> ran_on(kStrands);
    std::atomic<int> left{kStrands * kTasks};
    std::promise<void> done;
    std::vector<std::shared_ptr<server::Executor>> strands;
    for (int s = 0; s < kStrands; ++s) {
        strands.push_back(network_->make_strand());
    }
    for (int i = 0; i < kTasks; ++i) {
        for (int s = 0; s < kStrands; ++s) {
            strands[static_cast<std::size_t>(s)]->post([&, s] {
                {
                    const std::lock_guard lock(mutex);
                    ran_on[static_cast<std::size_t>(s)].insert(std::this_thread::get_id());
                }
                if (left.fetch_sub(1) == 1) {
                    done.set_value();
                }
            });
        }
    }
    ASSERT_EQ(done.get_future().wait_for(10s), std::future_status::ready);
    const std::lock_guard lock(mutex);
    std::set<std::thread::id> threads;
    for (const auto& used : ran_on) {
        ASSERT_EQ(used.size(), 1U);  // a strand never moves between threads
        threads.insert(*used.begin());
    }
    EXPECT_EQ(threads.size(), 2U);  // and the strands use both
}

TEST_F(NetRuntime, PostAfterRunsTheTaskAfterTheDelay) {
    start();
    const auto executor = network_->make_strand();
    std::promise<std::chrono::steady_clock::time_point> fired;
    const auto armed = std::chrono::steady_clock::now();
    const auto timer =
        executor->post_after(50ms, [&] { fired.set_value(std::chrono::steady_clock::now()); });
    auto future = fired.get_future();
    ASSERT_EQ(future.wait_for(10s), std::future_status::ready);
    EXPECT_GE(future.get() - armed, 50ms);
    timer->cancel();  // after it fired: does nothing
}

TEST_F(NetRuntime, CancelledTimerNeverRuns) {
    start();
    const auto executor = network_->make_strand();
    std::atomic<bool> ran{false};
    // Deadlines far apart enough that a stalled machine cannot reach the first before cancel().
    const auto timer = executor->post_after(1s, [&] { ran = true; });
    timer->cancel();
    timer->cancel();
    // A later timer on the same strand fires, so the cancelled one had its chance to run.
    std::promise<void> later;
    executor->post_after(1200ms, [&] { later.set_value(); });
    ASSERT_EQ(later.get_future().wait_for(10s), std::future_status::ready);
    EXPECT_FALSE(ran);
}

TEST_F(NetRuntime, TimersRunOnTheirStrandInDeadlineOrder) {
    start(4);
    const auto executor = network_->make_strand();
    std::vector<int> order;
    std::promise<void> done;
    std::vector<std::shared_ptr<server::Timer>> timers;
    // Armed latest-first, 200 ms apart: a stall while arming them cannot swap their deadlines.
    timers.push_back(executor->post_after(600ms, [&] {
        order.push_back(3);
        done.set_value();
    }));
    timers.push_back(executor->post_after(200ms, [&] { order.push_back(1); }));
    timers.push_back(executor->post_after(400ms, [&] { order.push_back(2); }));
    ASSERT_EQ(done.get_future().wait_for(10s), std::future_status::ready);
    EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST_F(NetRuntime, TaskExceptionIsContained) {
    start();
    const auto executor = network_->make_strand();
    executor->post([] { throw std::runtime_error("room bug"); });
    std::promise<void> after;
    executor->post([&] { after.set_value(); });
    ASSERT_EQ(after.get_future().wait_for(10s), std::future_status::ready);
    EXPECT_EQ(network_->stats().handler_errors, 1u);
    std::lock_guard lock(logged_mutex_);
    ASSERT_EQ(logged_.size(), 1u);
    EXPECT_NE(logged_[0].find("room bug"), std::string::npos);
}

TEST_F(NetRuntime, SigtermCallsOnSignalOnceAndItsStopEndsRun) {
    std::atomic<int> signals{0};
    start(2, [&] {
        ++signals;
        network_->stop();
    });
    // A request answered means run() is running, and it registers the signals before that.
    ASSERT_EQ(http_request(port(), "GET", "/hello")->status, 200);
    ASSERT_EQ(::kill(::getpid(), SIGTERM), 0);
    auto joined = std::async(std::launch::async, [this] { runner_.join(); });
    ASSERT_EQ(joined.wait_for(10s), std::future_status::ready);
    EXPECT_EQ(signals, 1);
}

TEST_F(NetRuntime, StopIsIdempotentAndRunReturns) {
    start();
    network_->stop();
    network_->stop();
    EXPECT_TRUE(stop_and_join());
}

}  // namespace
}  // namespace arbiter::test
