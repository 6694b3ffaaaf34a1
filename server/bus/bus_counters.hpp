#pragma once
/// \file
/// BusCounters that any thread may bump and read. Internal to arbiter_bus.

#include <atomic>
#include <cstdint>

#include "server/bus/bus.hpp"

namespace arbiter::server::bus::detail {

/// Lock-free counters; relaxed order is enough for numbers that are only ever read whole.
class AtomicBusCounters {
  public:
    void published(std::uint64_t n = 1) noexcept { published_.fetch_add(n, kOrder); }
    void received() noexcept { received_.fetch_add(1, kOrder); }
    void dropped(std::uint64_t n = 1) noexcept { dropped_.fetch_add(n, kOrder); }
    void reconnected() noexcept { reconnects_.fetch_add(1, kOrder); }

    BusCounters snapshot() const noexcept {
        return {published_.load(kOrder), received_.load(kOrder), dropped_.load(kOrder),
                reconnects_.load(kOrder)};
    }

  private:
    static constexpr auto kOrder = std::memory_order_relaxed;
    std::atomic<std::uint64_t> published_{0};
    std::atomic<std::uint64_t> received_{0};
    std::atomic<std::uint64_t> dropped_{0};
    std::atomic<std::uint64_t> reconnects_{0};
};

}  // namespace arbiter::server::bus::detail
