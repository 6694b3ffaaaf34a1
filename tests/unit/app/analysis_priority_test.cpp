#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <thread>

#include <gtest/gtest.h>

#include "server/app/scheduling.hpp"

namespace arbiter::server::app {
namespace {

struct ThreadPriority {
    int policy = -1;
    int nice = -100;
    bool lowered = false;
};

// run_in_background() on a thread of its own (the test's thread keeps its priority), started
// with `policy` as a server's thread would have inherited it.
ThreadPriority background_thread(int policy) {
    ThreadPriority seen;
    std::thread([&] {
        if (policy != SCHED_OTHER) {
            sched_param param{};
            param.sched_priority = sched_get_priority_min(policy);
            if (::sched_setscheduler(0, policy, &param) != 0) {
                return;  // seen.policy stays -1: the caller skips
            }
        }
        seen.lowered = run_in_background();
        seen.policy = ::sched_getscheduler(0);
        seen.nice = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)));
    }).join();
    return seen;
}

// Not SCHED_IDLE: a core running only SCHED_IDLE work counts as idle, and live threads woken
// onto it tripled the players' p99 at 1,000 moves/s (bench/load/README.md).
TEST(AnalysisPriority, APoolThreadRunsAtNiceNineteen) {
    const ThreadPriority seen = background_thread(SCHED_OTHER);
    EXPECT_TRUE(seen.lowered);
    EXPECT_EQ(seen.policy, SCHED_OTHER);
    EXPECT_EQ(seen.nice, 19);
}

// A server run under chrt -f (bench/load --rt) starts its threads SCHED_FIFO, where a nice value
// changes nothing: the pool and its engines would then run ahead of every ordinary thread.
TEST(AnalysisPriority, APoolThreadOfARealTimeServerRunsAsAnOrdinaryThread) {
    const ThreadPriority seen = background_thread(SCHED_FIFO);
    if (seen.policy == -1) {
        GTEST_SKIP() << "this user may not run SCHED_FIFO";
    }
    EXPECT_TRUE(seen.lowered);
    EXPECT_EQ(seen.policy, SCHED_OTHER);
    EXPECT_EQ(seen.nice, 19);
}

}  // namespace
}  // namespace arbiter::server::app
