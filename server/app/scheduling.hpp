#pragma once
/// \file
/// How the server's threads ask the Linux scheduler for their share of the cores.
///
/// Live threads (network loops, the storage writer, live games' engines) wake for a move, work
/// tens of microseconds and sleep again. Background work (the analysis pool's engines, a
/// compiler beside the server) runs for seconds. With the kernel's default time slice (0.7 ms
/// times 1 + log2 of the cores), a live thread that wakes onto a core shared with such work, or
/// with another live thread, can wait most of a slice before it runs. Linux 6.12 and later let
/// a thread ask for a shorter slice (sched_setattr's sched_runtime, for SCHED_OTHER): its wakeup
/// then preempts a thread with a longer one. The server asks it for every thread at start-up
/// (they inherit it), and the analysis pool gives it back (run_in_background).
/// bench/load/README.md, "Live games under analysis load", has the measurements.

#include <chrono>
#include <optional>
#include <string>

#include "common/core/expected.hpp"

namespace arbiter::server::app {

/// The shortest and longest slice the kernel accepts (it clamps to these).
inline constexpr std::chrono::microseconds kMinTimeSlice{100};
inline constexpr std::chrono::microseconds kMaxTimeSlice{100'000};

/// Asks a time slice of `slice` for the calling thread and every thread and process it starts
/// later, keeping its policy (SCHED_OTHER) and nice value. Refused, changing nothing, for a
/// thread that runs a real-time policy (chrt -f: it preempts ordinary threads anyway) or when the
/// system refuses. On a kernel before 6.12 the call succeeds and changes nothing:
/// time_slice() then tells.
Expected<void, std::string> shorten_time_slice(std::chrono::microseconds slice);

/// The calling thread's time slice as the kernel reports it (/proc/thread-self/sched), or
/// nothing when it does not (kernels before 6.6).
std::optional<std::chrono::nanoseconds> time_slice();

/// Lowers the calling thread, and the processes it will start, below every other thread:
/// SCHED_OTHER at nice 19 with the kernel's default time slice, whatever it inherited
/// (SCHED_FIFO under chrt, a short slice from the server). False when the system refused.
bool run_in_background();

}  // namespace arbiter::server::app
