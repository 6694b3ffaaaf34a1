#include "server/app/game_clock.hpp"

#include <algorithm>

namespace arbiter::server::app {

namespace {
std::size_t index(rules::Side side) {
    return side == rules::Side::first ? 0 : 1;
}
}  // namespace

GameClock::GameClock(protocol::ClockSpec spec)
    : spec_(spec), remaining_{spec.initial_ms, spec.initial_ms} {}

void GameClock::start_turn(rules::Side side, TimePoint started, bool running) {
    turn_ = side;
    turn_started_ = started;
    running_ = running;
}

std::int64_t GameClock::elapsed_ms(TimePoint now) const {
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::milliseconds>(now - turn_started_).count();
    return std::max<std::int64_t>(elapsed, 0);
}

GameClock::Charge GameClock::charge(TimePoint now, std::int64_t credit_ms) const {
    Charge result;
    result.think_ms = elapsed_ms(now);
    const std::int64_t before = remaining_[index(turn_)];
    if (!running_) {
        result.remaining_ms = before;
        return result;
    }
    const std::int64_t charged =
        result.think_ms - std::clamp<std::int64_t>(credit_ms, 0, result.think_ms);
    const std::int64_t left = before - charged;
    result.flagged = left <= 0;
    result.remaining_ms = result.flagged ? 0 : left + spec_.increment_ms;
    return result;
}

Clocks GameClock::at(TimePoint now) const {
    Clocks clocks = remaining_;
    if (running_) {
        auto& mover = clocks[index(turn_)];
        mover = std::max<std::int64_t>(mover - elapsed_ms(now), 0);
    }
    return clocks;
}

std::optional<GameClock::TimePoint> GameClock::flag_falls_at(std::int64_t grace_ms) const {
    if (!running_) {
        return std::nullopt;
    }
    return turn_started_ + std::chrono::milliseconds(remaining_[index(turn_)] +
                                                     std::max<std::int64_t>(grace_ms, 0));
}

}  // namespace arbiter::server::app
