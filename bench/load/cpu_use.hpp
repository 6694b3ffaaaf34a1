#pragma once
// CPU used by each thread of a process over the measured seconds, from /proc, summed by thread
// name (the server names its threads: arbiter-net, arbiter-writer, arbiter-ckpt, ...). Both
// programs share the machine's cores, so this is where a round trips/s ratio between two modes
// comes from. And the machine's own use over those seconds: how busy its cores were, and how
// much of their time the host took (steal), which moves a run's figures more than most changes.

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace arbiter::bench::load {

/// Clock ticks of user + system time, by thread name.
using CpuTicks = std::map<std::string, long long>;
/// Microseconds per round trip, by thread name, largest first.
using CpuShares = std::vector<std::pair<std::string, double>>;

/// Adds one line of /proc/PID/task/TID/stat ("tid (name) state ppid ..."). The name may hold
/// spaces and parentheses, so the fields are counted from the last ')'; utime and stime are
/// fields 14 and 15. A line that does not parse adds nothing.
inline void add_thread_stat(std::string_view line, CpuTicks& ticks) {
    const auto open = line.find('(');
    const auto close = line.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
        return;
    }
    std::istringstream fields{std::string(line.substr(close + 1))};
    std::string skipped;
    for (int field = 3; field <= 13; ++field) {
        fields >> skipped;
    }
    long long user = 0;
    long long system = 0;
    if (fields >> user >> system) {
        ticks[std::string(line.substr(open + 1, close - open - 1))] += user + system;
    }
}

/// Every thread of `process` (a pid, or "self"). Empty when the process is gone.
inline CpuTicks cpu_ticks_by_thread(const std::string& process) {
    CpuTicks ticks;
    std::error_code error;
    for (const auto& task :
         std::filesystem::directory_iterator("/proc/" + process + "/task", error)) {
        std::ifstream stat(task.path() / "stat");
        std::string line;
        if (std::getline(stat, line)) {
            add_thread_stat(line, ticks);
        }
    }
    return ticks;
}

/// Every thread of each of `processes` (pids), summed by thread name.
inline CpuTicks cpu_ticks_of(const std::vector<std::string>& processes) {
    CpuTicks ticks;
    for (const auto& process : processes) {
        for (const auto& [name, used] : cpu_ticks_by_thread(process)) {
            ticks[name] += used;
        }
    }
    return ticks;
}

/// What each thread name used between two readings, per round trip. A name missing from
/// `before` started since (a thread that ended in between is not counted).
inline CpuShares cpu_per_round_trip(const CpuTicks& before, const CpuTicks& after,
                                    std::uint64_t round_trips) {
    CpuShares shares;
    if (round_trips == 0) {
        return shares;
    }
    const double us_per_tick = 1e6 / static_cast<double>(sysconf(_SC_CLK_TCK));
    for (const auto& [name, ticks] : after) {
        const auto earlier = before.find(name);
        const long long used = ticks - (earlier == before.end() ? 0 : earlier->second);
        shares.emplace_back(
            name, static_cast<double>(used) * us_per_tick / static_cast<double>(round_trips));
    }
    std::stable_sort(shares.begin(), shares.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    return shares;
}

/// The whole machine's time from /proc/stat's first line, in clock ticks, summed over its cores.
struct MachineTicks {
    long long total = 0;  ///< user, nice, system, idle, iowait, irq, softirq, steal
    long long idle = 0;   ///< idle and iowait
    long long steal = 0;  ///< a virtual machine's cores ready to run while the host ran others
};

/// Parses "cpu  user nice system idle iowait irq softirq steal ..." (guest time is already in
/// user). A line that does not parse gives zeros.
inline MachineTicks parse_machine_stat(std::string_view line) {
    if (!line.starts_with("cpu ")) {
        return {};
    }
    std::istringstream fields{std::string(line.substr(4))};
    long long value[8] = {};
    for (long long& field : value) {
        if (!(fields >> field)) {
            return {};
        }
    }
    MachineTicks ticks;
    for (const long long field : value) {
        ticks.total += field;
    }
    ticks.idle = value[3] + value[4];
    ticks.steal = value[7];
    return ticks;
}

inline MachineTicks machine_ticks() {
    std::ifstream stat("/proc/stat");
    std::string line;
    std::getline(stat, line);
    return parse_machine_stat(line);
}

/// What the machine's cores did between two readings, as shares of their time: busy (neither
/// idle nor waiting for the disk) and stolen by the host. On a shared virtual machine a stolen
/// share of more than a few percent means the host, not the code, set that run's pace.
struct MachineUse {
    double busy = 0;
    double steal = 0;
};

inline MachineUse machine_use(const MachineTicks& before, const MachineTicks& after) {
    const long long total = after.total - before.total;
    if (total <= 0) {
        return {};
    }
    const long long idle = after.idle - before.idle;
    const long long steal = after.steal - before.steal;
    return {static_cast<double>(total - idle - steal) / static_cast<double>(total),
            static_cast<double>(steal) / static_cast<double>(total)};
}

inline double total_of(const CpuShares& shares) {
    double total = 0;
    for (const auto& share : shares) {
        total += share.second;
    }
    return total;
}

}  // namespace arbiter::bench::load
