#include "server/app/speed.hpp"

namespace arbiter::server::app {

std::chrono::milliseconds estimated_duration(const protocol::ClockSpec& clock) noexcept {
    constexpr std::int64_t kMovesEstimated = 40;
    return std::chrono::milliseconds(clock.initial_ms + kMovesEstimated * clock.increment_ms);
}

Speed speed_of(const protocol::ClockSpec& clock) noexcept {
    const std::int64_t estimated_ms = estimated_duration(clock).count();
    if (estimated_ms < 30'000) {
        return Speed::ultra_bullet;
    }
    if (estimated_ms < 180'000) {
        return Speed::bullet;
    }
    if (estimated_ms < 480'000) {
        return Speed::blitz;
    }
    if (estimated_ms < 1'500'000) {
        return Speed::rapid;
    }
    return Speed::classical;
}

std::chrono::seconds first_move_time(const std::optional<protocol::ClockSpec>& clock) noexcept {
    switch (clock ? speed_of(*clock) : Speed::classical) {
        case Speed::ultra_bullet:
            return std::chrono::seconds(15);
        case Speed::bullet:
            return std::chrono::seconds(20);
        case Speed::blitz:
            return std::chrono::seconds(25);
        case Speed::rapid:
            return std::chrono::seconds(30);
        case Speed::classical:
            return std::chrono::seconds(35);
    }
    return std::chrono::seconds(35);
}

}  // namespace arbiter::server::app
