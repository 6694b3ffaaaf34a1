#include "server/app/claim_window.hpp"

#include <algorithm>

namespace arbiter::server::app {

std::chrono::milliseconds claim_window(const std::optional<protocol::ClockSpec>& control,
                                       std::chrono::milliseconds upper_bound) noexcept {
    if (!control) {
        return upper_bound;
    }
    constexpr std::int64_t kMovesEstimated = 40;
    const std::chrono::milliseconds estimated{control->initial_ms +
                                              kMovesEstimated * control->increment_ms};
    return std::min(upper_bound, std::max(kShortestClaimWindow, estimated / 10));
}

}  // namespace arbiter::server::app
