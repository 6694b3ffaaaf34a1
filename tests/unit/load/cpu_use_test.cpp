#include "bench/load/cpu_use.hpp"

#include <gtest/gtest.h>

#include <pthread.h>

#include <chrono>
#include <ctime>
#include <thread>

namespace arbiter::bench::load {
namespace {

TEST(CpuUse, ReadsUserAndSystemTimeByThreadName) {
    CpuTicks ticks;
    // Fields 3..13, then utime 7 and stime 5, then more that are ignored.
    add_thread_stat("41 (arbiter-net) S 1 41 41 0 -1 4194368 100 0 0 0 7 5 0 0 20 0", ticks);
    add_thread_stat("42 (arbiter-net) R 1 41 41 0 -1 4194368 100 0 0 0 30 10 0 0 20 0", ticks);
    // A name with a space and parentheses: the fields follow the last ')'.
    add_thread_stat("43 (odd (name) x) S 1 41 41 0 -1 4194368 100 0 0 0 2 1 0 0 20 0", ticks);
    add_thread_stat("44 (cut short) S 1 41", ticks);
    add_thread_stat("not a stat line", ticks);
    EXPECT_EQ(ticks, (CpuTicks{{"arbiter-net", 52}, {"odd (name) x", 3}}));
}

TEST(CpuUse, SharesPerRoundTripLargestFirst) {
    const double us_per_tick = 1e6 / static_cast<double>(sysconf(_SC_CLK_TCK));
    const CpuTicks before{{"arbiter-net", 100}, {"arbiter-writer", 40}, {"gone", 9}};
    const CpuTicks after{{"arbiter-net", 300}, {"arbiter-writer", 140}, {"new", 50}};
    const auto shares = cpu_per_round_trip(before, after, 1000);
    ASSERT_EQ(shares.size(), 3U);
    EXPECT_EQ(shares[0].first, "arbiter-net");
    EXPECT_DOUBLE_EQ(shares[0].second, 200 * us_per_tick / 1000);
    EXPECT_EQ(shares[1].first, "arbiter-writer");
    EXPECT_EQ(shares[2].first, "new");  // started since the first reading: all of it counts
    EXPECT_DOUBLE_EQ(shares[2].second, 50 * us_per_tick / 1000);
    EXPECT_DOUBLE_EQ(total_of(shares), 350 * us_per_tick / 1000);
    EXPECT_TRUE(cpu_per_round_trip(before, after, 0).empty());
}

// CPU time this thread has used: a busy loop counts this, not the wall clock, so a thread that
// the scheduler keeps waiting on a loaded machine still uses what the test needs.
std::chrono::nanoseconds thread_cpu_time() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

TEST(CpuUse, ReadsThisProcessThreadsByName) {
    std::thread busy([] {
        pthread_setname_np(pthread_self(), "cpu-use-test");
        const auto until = thread_cpu_time() + std::chrono::milliseconds(50);
        volatile unsigned sink = 0;
        while (thread_cpu_time() < until) {
            sink = sink + 1;
        }
        const CpuTicks ticks = cpu_ticks_by_thread("self");
        const auto it = ticks.find("cpu-use-test");
        ASSERT_NE(it, ticks.end());
        EXPECT_GT(it->second, 0);  // 50 ms of CPU is several 10 ms ticks
    });
    busy.join();
    EXPECT_TRUE(cpu_ticks_by_thread("no-such-process").empty());
}

TEST(CpuUse, ReadsTheMachineLineOfProcStat) {
    // user nice system idle iowait irq softirq steal guest guest_nice
    const MachineTicks ticks = parse_machine_stat("cpu  100 5 40 800 20 3 7 25 10 0");
    EXPECT_EQ(ticks.total, 1000);  // guest (10) is already in user
    EXPECT_EQ(ticks.idle, 820);
    EXPECT_EQ(ticks.steal, 25);
    // One core's line, a short line and a stranger are not the machine's.
    EXPECT_EQ(parse_machine_stat("cpu0 100 5 40 800 20 3 7 25 10 0").total, 0);
    EXPECT_EQ(parse_machine_stat("cpu  100 5 40").total, 0);
    EXPECT_EQ(parse_machine_stat("intr 1 2 3").total, 0);
    EXPECT_GT(machine_ticks().total, 0);  // this machine's /proc/stat
}

TEST(CpuUse, MachineSharesBusyAndStolen) {
    const MachineTicks before{1000, 820, 25};
    // 400 ticks later: 100 idle, 60 stolen, the other 240 busy.
    const MachineUse use = machine_use(before, MachineTicks{1400, 920, 85});
    EXPECT_DOUBLE_EQ(use.busy, 0.6);
    EXPECT_DOUBLE_EQ(use.steal, 0.15);
    const MachineUse none = machine_use(before, before);  // no time between the readings
    EXPECT_DOUBLE_EQ(none.busy, 0);
    EXPECT_DOUBLE_EQ(none.steal, 0);
}

}  // namespace
}  // namespace arbiter::bench::load
