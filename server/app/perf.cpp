#include "server/app/perf.hpp"

#include <array>
#include <cmath>

#include "server/app/speed.hpp"

namespace arbiter::server::app {
namespace {

constexpr std::array<std::string_view, 4> kSpeedNames = {"bullet", "blitz", "rapid", "classical"};
constexpr double kMsPerDay = 86'400'000.0;

}  // namespace

std::optional<RatedSpeed> rated_speed(const std::optional<protocol::ClockSpec>& clock) noexcept {
    if (!clock) {
        return std::nullopt;
    }
    switch (speed_of(*clock)) {
        case Speed::ultra_bullet:
        case Speed::bullet:
            return RatedSpeed::bullet;
        case Speed::blitz:
            return RatedSpeed::blitz;
        case Speed::rapid:
            return RatedSpeed::rapid;
        case Speed::classical:
            return RatedSpeed::classical;
    }
    return std::nullopt;
}

std::string_view to_string(RatedSpeed speed) noexcept {
    return kSpeedNames.at(static_cast<std::size_t>(speed));
}

std::optional<RatedSpeed> parse_rated_speed(std::string_view text) noexcept {
    for (std::size_t i = 0; i < kSpeedNames.size(); ++i) {
        if (kSpeedNames.at(i) == text) {
            return static_cast<RatedSpeed>(i);
        }
    }
    return std::nullopt;
}

bool provisional(const glicko2::Rating& rating) noexcept {
    return rating.deviation > kProvisionalDeviation;
}

glicko2::Rating rating_at(const glicko2::Rating& stored, std::int64_t updated_ms,
                          std::int64_t now_ms, const glicko2::Config& config) noexcept {
    if (now_ms <= updated_ms) {
        return stored;
    }
    const double days = static_cast<double>(now_ms - updated_ms) / kMsPerDay;
    return glicko2::after_idle(stored, days * kRatingPeriodsPerDay, config);
}

int shown(double rating) noexcept {
    return static_cast<int>(std::lround(rating));
}

}  // namespace arbiter::server::app
