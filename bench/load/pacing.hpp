#pragma once
// When a game's next move may leave under `--rate`: one game's share of the cap is one move per
// interval, from the game's own random phase (the driver draws it).

#include <algorithm>
#include <chrono>

namespace arbiter::bench::load {

using Clock = std::chrono::steady_clock;

enum class Pacing {
    /// Like a player: a game's next move is due one interval after this one leaves. A game whose
    /// answer came late thus takes "now" as its phase, and the games answered by one slow batch
    /// share it from then on, so a run can stay in bursts (bench/load/README.md).
    closed,
    /// Open loop: each game's moves stay due on its own grid. A move whose answer came late
    /// leaves at once and the next is due on the grid; a game more than an interval behind goes
    /// on from the next grid point rather than catching up in a burst.
    grid,
};

struct Pace {
    Clock::time_point leaves;  ///< when this move is sent
    Clock::time_point next;    ///< when the game's next move is due
};

/// `due`: when this move was due (from the game's previous move, or its phase).
inline Pace pace(Clock::time_point now, Clock::time_point due, Clock::duration interval,
                 Pacing pacing) {
    const auto leaves = std::max(now, due);
    if (pacing == Pacing::closed) {
        return {leaves, leaves + interval};
    }
    auto next = due + interval;
    if (next <= now) {
        next += ((now - next) / interval + 1) * interval;
    }
    return {leaves, next};
}

}  // namespace arbiter::bench::load
