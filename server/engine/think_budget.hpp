#pragma once
/// \file
/// How long an engine seat may think about one move, for the builtin engine and UCI engines
/// alike: the level's think time, capped from the mover's clock.

#include <chrono>

#include "server/app/seat_agent.hpp"

namespace arbiter::server::engines {

/// The level's limit, capped from the clock in a timed game: about 1/30 of the mover's remaining
/// time plus half the increment, never more than half the remaining time (the increment comes
/// after the move), at least 20 ms (or the level's limit if lower). Untimed: the level's limit.
std::chrono::milliseconds think_budget(std::chrono::milliseconds level_limit,
                                       const app::MoveQuestion& question);

}  // namespace arbiter::server::engines
