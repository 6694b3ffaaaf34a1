// The time slice the server's threads ask of the scheduler, and the pool thread that gives it
// back (scheduling.hpp). Each case runs on a thread of its own: the test's thread keeps its own
// scheduling. The kernel reports a thread's slice in /proc/thread-self/sched (Linux 6.6) and
// honours a thread's own (6.12); on an older kernel the cases that need it are skipped.
#include "server/app/scheduling.hpp"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <thread>

#include <gtest/gtest.h>

namespace arbiter::server::app {
namespace {

using std::chrono::microseconds;
using std::chrono::nanoseconds;

int this_threads_nice() {
    return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)));
}

struct Seen {
    std::optional<nanoseconds> before;
    bool shortened = false;
    std::optional<nanoseconds> after;
    std::optional<nanoseconds> in_child;
    int nice_before = -100;
    int nice_after = -100;
};

// On a thread of its own at nice 5: asks `slice`, and starts a thread of its own after.
Seen ask_slice(microseconds slice) {
    Seen seen;
    std::thread([&] {
        ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 5);
        seen.nice_before = this_threads_nice();
        seen.before = time_slice();
        seen.shortened = shorten_time_slice(slice).has_value();
        seen.after = time_slice();
        seen.nice_after = this_threads_nice();
        std::thread([&] { seen.in_child = time_slice(); }).join();
    }).join();
    return seen;
}

TEST(TimeSlice, AThreadGetsTheSliceItAsksKeepsItsNiceAndPassesTheSliceOn) {
    const Seen seen = ask_slice(microseconds(100));
    ASSERT_TRUE(seen.shortened);
    EXPECT_EQ(seen.nice_after, seen.nice_before);
    EXPECT_EQ(seen.nice_after, 5);
    if (!seen.before) {
        GTEST_SKIP() << "this kernel does not report a thread's slice (Linux 6.6)";
    }
    if (seen.after == seen.before) {
        GTEST_SKIP() << "this kernel has no per-thread slice (Linux 6.12)";
    }
    EXPECT_EQ(seen.after, nanoseconds(100'000));
    EXPECT_EQ(seen.in_child, nanoseconds(100'000)) << "a thread started later inherits it";
}

TEST(TimeSlice, ASliceOutsideTheKernelsBoundsIsRefusedAndChangesNothing) {
    for (const microseconds slice : {microseconds(99), microseconds(100'001), microseconds(0)}) {
        const Seen seen = ask_slice(slice);
        EXPECT_FALSE(seen.shortened) << slice.count();
        EXPECT_EQ(seen.after, seen.before) << slice.count();
    }
}

TEST(TimeSlice, ARealTimeThreadIsLeftAsItIs) {
    bool real_time = false;
    bool shortened = true;
    int policy_after = -1;
    std::thread([&] {
        sched_param param{};
        param.sched_priority = sched_get_priority_min(SCHED_FIFO);
        real_time = ::sched_setscheduler(0, SCHED_FIFO, &param) == 0;
        if (real_time) {
            shortened = shorten_time_slice(microseconds(100)).has_value();
            policy_after = ::sched_getscheduler(0);
        }
    }).join();
    if (!real_time) {
        GTEST_SKIP() << "this user may not run SCHED_FIFO";
    }
    EXPECT_FALSE(shortened);
    EXPECT_EQ(policy_after, SCHED_FIFO);
}

// The analysis pool's thread, started by a server whose threads asked a short slice, takes the
// kernel's default again: a search that runs for seconds is not what the short slice is for.
TEST(TimeSlice, APoolThreadGivesTheServersShortSliceBack) {
    std::optional<nanoseconds> kernels;
    std::optional<nanoseconds> shortened;
    std::optional<nanoseconds> background;
    int nice = -100;
    std::thread([&] {
        kernels = time_slice();
        if (!shorten_time_slice(microseconds(100))) {
            return;
        }
        shortened = time_slice();
        std::thread([&] {
            EXPECT_TRUE(run_in_background());
            background = time_slice();
            nice = this_threads_nice();
        }).join();
    }).join();
    EXPECT_EQ(nice, 19);
    if (!kernels || shortened == kernels) {
        GTEST_SKIP() << "this kernel has no per-thread slice (Linux 6.12)";
    }
    EXPECT_EQ(background, kernels);
}

}  // namespace
}  // namespace arbiter::server::app
