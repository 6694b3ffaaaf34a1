#include "server/app/scheduling.hpp"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string_view>

namespace arbiter::server::app {

namespace {

id_t this_thread() {
    return static_cast<id_t>(::syscall(SYS_gettid));
}

/// The kernel's struct sched_attr (linux/sched/types.h, SCHED_ATTR_SIZE_VER1), which cannot be
/// included beside glibc's <sched.h>: both define struct sched_param.
struct SchedAttr {
    std::uint32_t size = 0;
    std::uint32_t sched_policy = 0;
    std::uint64_t sched_flags = 0;
    std::int32_t sched_nice = 0;
    std::uint32_t sched_priority = 0;
    std::uint64_t sched_runtime = 0;  ///< SCHED_OTHER: the slice asked for, in ns (Linux 6.12)
    std::uint64_t sched_deadline = 0;
    std::uint64_t sched_period = 0;
    std::uint32_t sched_util_min = 0;
    std::uint32_t sched_util_max = 0;
};
static_assert(sizeof(SchedAttr) == 56, "SCHED_ATTR_SIZE_VER1");

/// sched_setattr for the calling thread as SCHED_OTHER at `nice`; a `slice` of zero asks for the
/// kernel's default. glibc 2.36 has no wrapper.
bool set_ordinary(int nice, std::chrono::nanoseconds slice) {
    SchedAttr attributes;
    attributes.size = sizeof attributes;
    attributes.sched_policy = SCHED_OTHER;
    attributes.sched_nice = nice;
    attributes.sched_runtime = static_cast<std::uint64_t>(slice.count());
    return ::syscall(SYS_sched_setattr, 0, &attributes, 0U) == 0;
}

}  // namespace

Expected<void, std::string> shorten_time_slice(std::chrono::microseconds slice) {
    if (slice < kMinTimeSlice || slice > kMaxTimeSlice) {
        return unexpected(std::string("a time slice is between 100 and 100000 microseconds"));
    }
    const int policy = ::sched_getscheduler(0);
    if (policy != SCHED_OTHER) {
        return unexpected(std::string("the server runs a real-time or batch policy (") +
                          std::to_string(policy) + "): left as it is");
    }
    errno = 0;
    const int nice = ::getpriority(PRIO_PROCESS, this_thread());
    if (errno != 0) {
        return unexpected(std::string("getpriority: ") + std::strerror(errno));
    }
    if (!set_ordinary(nice, slice)) {
        return unexpected(std::string("sched_setattr: ") + std::strerror(errno));
    }
    return {};
}

std::optional<std::chrono::nanoseconds> time_slice() {
    // One line per field: "se.slice                                     :               100000".
    std::ifstream in("/proc/thread-self/sched");
    std::string line;
    constexpr std::string_view kField = "se.slice";
    while (std::getline(in, line)) {
        if (!line.starts_with(kField) || line.size() == kField.size() ||
            (line[kField.size()] != ' ' && line[kField.size()] != ':')) {
            continue;
        }
        const auto colon = line.find(':');
        if (colon == std::string::npos) {
            return std::nullopt;
        }
        try {
            return std::chrono::nanoseconds(std::stoll(line.substr(colon + 1)));
        } catch (const std::exception&) {
            return std::nullopt;
        }
    }
    return std::nullopt;
}

bool run_in_background() {
    // Linux: a thread's policy, nice value and slice are its own (pid 0 here is the calling
    // thread), and a child started from it inherits them. SCHED_OTHER: a thread started by a
    // server that runs SCHED_FIFO (bench --rt, chrt) is SCHED_FIFO too, where a nice value means
    // nothing. The default slice: the server's short one is for threads that wake and sleep,
    // not for a search that runs for seconds. Not SCHED_IDLE: the scheduler takes a core running
    // only SCHED_IDLE work for an idle one and wakes live threads onto it, which tripled the live
    // games' p99 at 1,000 moves/s (bench/load/README.md, "Live games under analysis load"); at
    // nice 19 it did not.
    constexpr int kBackgroundNice = 19;
    if (set_ordinary(kBackgroundNice, std::chrono::nanoseconds::zero())) {
        return true;
    }
    // A kernel without sched_setattr (before 3.14): policy and nice one at a time.
    const sched_param none{};
    const bool ordinary = ::sched_setscheduler(0, SCHED_OTHER, &none) == 0;
    const bool niced = ::setpriority(PRIO_PROCESS, this_thread(), kBackgroundNice) == 0;
    return ordinary && niced;
}

}  // namespace arbiter::server::app
