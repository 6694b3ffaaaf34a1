#include "server/app/read_worker.hpp"

#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace arbiter::server::app {
namespace {

/// A read that holds the worker until released, so that the queue behind it can be filled.
class Gate {
  public:
    std::function<void()> read() {
        return [this] {
            entered_.set_value();
            released_.get_future().wait();
        };
    }
    void wait_entered() { entered_.get_future().wait(); }
    void release() { released_.set_value(); }

  private:
    std::promise<void> entered_;
    std::promise<void> released_;
};

TEST(ReadWorker, RunsReadsInTheOrderPosted) {
    std::mutex mutex;
    std::vector<int> ran;
    {
        ReadWorker worker(16);
        for (int i = 0; i < 10; ++i) {
            ASSERT_TRUE(worker.try_post([&, i] {
                std::lock_guard lock(mutex);
                ran.push_back(i);
            }));
        }
        worker.stop();
    }
    EXPECT_EQ(ran, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(ReadWorker, RefusesAReadBeyondCapacityAndDropsIt) {
    ReadWorker worker(2);
    Gate gate;
    ASSERT_TRUE(worker.try_post(gate.read()));
    gate.wait_entered();  // running, so no longer waiting
    std::vector<std::string> ran;
    ASSERT_TRUE(worker.try_post([&] { ran.push_back("first"); }));
    ASSERT_TRUE(worker.try_post([&] { ran.push_back("second"); }));
    auto held = std::make_shared<int>(0);
    EXPECT_FALSE(worker.try_post([&, held] { ran.push_back("refused"); }));
    EXPECT_EQ(held.use_count(), 1) << "a refused read is not kept";
    gate.release();
    worker.stop();
    EXPECT_EQ(ran, (std::vector<std::string>{"first", "second"}));
    const ReadStats stats = worker.stats();
    EXPECT_EQ(stats.done, 3u);
    EXPECT_EQ(stats.refused, 1u);
    EXPECT_EQ(stats.waiting, 0u);
}

TEST(ReadWorker, TakesReadsAgainOnceTheQueueDrains) {
    ReadWorker worker(1);
    Gate gate;
    ASSERT_TRUE(worker.try_post(gate.read()));
    gate.wait_entered();
    ASSERT_TRUE(worker.try_post([] {}));
    EXPECT_FALSE(worker.try_post([] {}));
    gate.release();
    std::promise<void> done;
    // The queue empties as the worker runs; a post is taken as soon as it has room.
    while (!worker.try_post([&] { done.set_value(); })) {
        std::this_thread::yield();
    }
    done.get_future().wait();
}

TEST(ReadWorker, StopRunsWhatIsQueuedThenRefuses) {
    ReadWorker worker(8);
    Gate gate;
    ASSERT_TRUE(worker.try_post(gate.read()));
    gate.wait_entered();
    int ran = 0;
    ASSERT_TRUE(worker.try_post([&] { ++ran; }));
    ASSERT_TRUE(worker.try_post([&] { ++ran; }));
    std::thread stopper([&] { worker.stop(); });
    gate.release();
    stopper.join();
    EXPECT_EQ(ran, 2);
    EXPECT_FALSE(worker.try_post([&] { ++ran; }));
    worker.stop();  // a second stop does nothing
    EXPECT_EQ(ran, 2);
}

TEST(ReadWorker, AReadThatThrowsDoesNotStopTheOthers) {
    ReadWorker worker(4);
    bool after = false;
    ASSERT_TRUE(worker.try_post([] { throw std::runtime_error("disk on fire"); }));
    ASSERT_TRUE(worker.try_post([&] { after = true; }));
    worker.stop();
    EXPECT_TRUE(after);
}

// A flood of background reads (the REST API, replays) fills their queue; a player's read is
// still taken, and runs as soon as the read running now is done, ahead of every one queued.
TEST(ReadWorker, APlayersReadGoesAheadOfAFullBackgroundQueueAndIsNotRefused) {
    ReadWorker worker(3);
    Gate gate;
    ASSERT_TRUE(worker.try_post(gate.read()));
    gate.wait_entered();
    std::mutex mutex;
    std::vector<std::string> ran;
    const auto note = [&](std::string what) {
        return [&, what] {
            std::lock_guard lock(mutex);
            ran.push_back(what);
        };
    };
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(worker.try_post(note("api" + std::to_string(i))));
    }
    EXPECT_FALSE(worker.try_post(note("api refused"))) << "the background queue is full";
    EXPECT_TRUE(worker.try_post(note("resume"), ReadPriority::player));
    EXPECT_TRUE(worker.try_post(note("watch"), ReadPriority::player));
    EXPECT_EQ(worker.stats().waiting, 5u);
    gate.release();
    worker.stop();
    EXPECT_EQ(ran, (std::vector<std::string>{"resume", "watch", "api0", "api1", "api2"}));
    EXPECT_EQ(worker.stats().refused, 1u);
}

// Players' reads have a bound of their own: a flood of them is refused beyond it too.
TEST(ReadWorker, PlayersReadsBeyondTheirCapacityAreRefused) {
    ReadWorker worker(1);
    Gate gate;
    ASSERT_TRUE(worker.try_post(gate.read()));
    gate.wait_entered();
    EXPECT_TRUE(worker.try_post([] {}, ReadPriority::player));
    EXPECT_FALSE(worker.try_post([] {}, ReadPriority::player));
    EXPECT_TRUE(worker.try_post([] {})) << "the background queue has its own room";
    gate.release();
    worker.stop();
    EXPECT_EQ(worker.stats().refused, 1u);
}

}  // namespace
}  // namespace arbiter::server::app
