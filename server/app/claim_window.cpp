#include "server/app/claim_window.hpp"

#include <algorithm>

#include "server/app/speed.hpp"

namespace arbiter::server::app {

std::chrono::milliseconds claim_window(const std::optional<protocol::ClockSpec>& control,
                                       std::chrono::milliseconds upper_bound) noexcept {
    if (!control) {
        return upper_bound;
    }
    return std::min(upper_bound, std::max(kShortestClaimWindow, estimated_duration(*control) / 10));
}

}  // namespace arbiter::server::app
