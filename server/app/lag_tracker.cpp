#include "server/app/lag_tracker.hpp"

#include <algorithm>

namespace arbiter::server::app {

namespace {
// scalachess LagTracker.maxQuotaGainFor, in ms: 0.4 % of (initial + 40 increments) + 150 ms, at
// most 1 s. The 150 ms is lichess's allowance for the client's own frame and CPU time.
constexpr std::int64_t kRefillFloorMs = 150;
constexpr std::int64_t kRefillCapMs = 1'000;
constexpr std::int64_t kExpectedMoves = 40;
constexpr std::int64_t kRefillPerMilli = 250;  // 1/250 = 0.4 %
constexpr std::int64_t kInitialRefills = 3;
constexpr std::int64_t kMaxRefills = 7;
// The jitter allowance over a measured round trip (explained_by).
constexpr std::int64_t kJitterFloorMs = 10;
constexpr std::int64_t kJitterShare = 4;  // a quarter
}  // namespace

LagQuota LagQuota::for_clock(const protocol::ClockSpec& spec) noexcept {
    const std::int64_t expected_ms = std::max<std::int64_t>(spec.initial_ms, 0) +
                                     kExpectedMoves * std::max<std::int64_t>(spec.increment_ms, 0);
    const std::int64_t refill =
        std::min(kRefillCapMs, expected_ms / kRefillPerMilli + kRefillFloorMs);
    return LagQuota{kInitialRefills * refill, refill, kMaxRefills * refill};
}

std::int64_t LagTracker::explained_by(std::int64_t round_trip_ms) noexcept {
    const std::int64_t round_trip = std::max<std::int64_t>(round_trip_ms, 0);
    return round_trip + round_trip / kJitterShare + kJitterFloorMs;
}

std::int64_t LagTracker::credit_for(const MoveTiming& timing) const noexcept {
    if (!timing.round_trip_ms) {
        return 0;  // nothing measured: nothing is explained
    }
    const std::int64_t elapsed = std::max<std::int64_t>(timing.elapsed_ms, 0);
    const std::int64_t claimed =
        timing.reported_think_ms ? elapsed - std::max<std::int64_t>(*timing.reported_think_ms, 0)
                                 : std::max<std::int64_t>(*timing.round_trip_ms, 0);
    const std::int64_t credit =
        std::min({claimed, explained_by(*timing.round_trip_ms), available_ms_, elapsed});
    return std::max<std::int64_t>(credit, 0);
}

LagTracker LagTracker::after(std::int64_t credited_ms,
                             std::optional<std::int64_t> round_trip_ms) const noexcept {
    LagTracker next = *this;
    // A stored credit is trusted to be one this rule gave, but a hand-edited row must not make
    // the quota grow or go negative.
    const std::int64_t credited = std::clamp<std::int64_t>(credited_ms, 0, available_ms_);
    next.available_ms_ = std::min(available_ms_ - credited + quota_.refill_ms, quota_.max_ms);
    next.last_round_trip_ms_ = round_trip_ms;
    return next;
}

std::int64_t LagTracker::flag_grace_ms() const noexcept {
    if (!last_round_trip_ms_) {
        return 0;
    }
    return std::min(std::max<std::int64_t>(*last_round_trip_ms_, 0), available_ms_);
}

}  // namespace arbiter::server::app
