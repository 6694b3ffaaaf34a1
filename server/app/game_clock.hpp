#pragma once
/// \file
/// The server's game clock: Fischer increment, time charged from the moment the server sent the
/// turn to the moment it received the move, less the lag credited for it (lag_tracker.hpp). Pure
/// logic: every call is given the time.

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>

#include "common/protocol/messages.hpp"
#include "common/rules/game.hpp"

namespace arbiter::server::app {

/// Remaining milliseconds per side, [first, second].
using Clocks = std::array<std::int64_t, 2>;

class GameClock {
  public:
    using TimePoint = std::chrono::steady_clock::time_point;

    explicit GameClock(protocol::ClockSpec spec);

    /// The side to move's turn began at `started` (when the server sent it). `running` is false
    /// until each side has made its first move: those moves are not charged.
    void start_turn(rules::Side side, TimePoint started, bool running);
    /// Stops the running turn (game over, or waiting for a takeback to settle).
    void stop() noexcept { running_ = false; }
    /// Sets both sides' remaining time (restore after a restart or a takeback).
    void set(const Clocks& remaining) noexcept { remaining_ = remaining; }

    /// What charging the side to move at `now` would give.
    struct Charge {
        std::int64_t think_ms = 0;      ///< time since the turn was sent
        std::int64_t remaining_ms = 0;  ///< mover's time after the move, increment included
        bool flagged = false;           ///< the time ran out before the move arrived
    };
    /// `credit_ms` of the time since the turn was sent is not charged (the lag credited for the
    /// move, at most that time).
    Charge charge(TimePoint now, std::int64_t credit_ms = 0) const;
    /// The time since the side to move's turn began (counted whether or not its clock runs).
    std::int64_t elapsed_ms(TimePoint now) const;
    /// Remaining times at `now`, the running turn counted, never below zero.
    Clocks at(TimePoint now) const;
    /// Remaining times as of the last committed move (what the server stores).
    const Clocks& stored() const noexcept { return remaining_; }
    /// The moment the side to move's time runs out, `grace_ms` after its clock reads 0 (charge()
    /// with that credit says flagged from then on); nullopt when the clock is not running.
    std::optional<TimePoint> flag_falls_at(std::int64_t grace_ms = 0) const;

    bool running() const noexcept { return running_; }
    rules::Side turn() const noexcept { return turn_; }
    const protocol::ClockSpec& spec() const noexcept { return spec_; }

  private:
    protocol::ClockSpec spec_;
    Clocks remaining_;
    rules::Side turn_ = rules::Side::first;
    TimePoint turn_started_{};
    bool running_ = false;
};

}  // namespace arbiter::server::app
