#pragma once
// CPU used by each thread of a process over the measured seconds, from /proc, summed by thread
// name (the server names its threads: arbiter-net, arbiter-writer, arbiter-ckpt, ...). Both
// programs share the machine's cores, so this is where a round trips/s ratio between two modes
// comes from.

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

inline double total_of(const CpuShares& shares) {
    double total = 0;
    for (const auto& share : shares) {
        total += share.second;
    }
    return total;
}

}  // namespace arbiter::bench::load
