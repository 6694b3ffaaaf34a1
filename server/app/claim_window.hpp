#pragma once
/// \file
/// How long a player may be away before the opponent may claim: a function of the time control,
/// so that a bullet game does not end on time while the opponent still waits for the window.

#include <chrono>
#include <optional>

#include "common/protocol/messages.hpp"

namespace arbiter::server::app {

/// The shortest window: a link that drops for the liveness timeout (8 s by default) and comes
/// back still has a few seconds to `resume` before the opponent may claim.
inline constexpr std::chrono::milliseconds kShortestClaimWindow{10'000};

/// The claim window of a game with `control` (nullopt: untimed): a tenth of the game's estimated
/// length per player, initial time plus 40 increments (Lichess estimates a game so), at least
/// kShortestClaimWindow and never over `upper_bound` (--disconnect-timeout). 1+0: 10 s; 3+2:
/// 26 s; 5+3: 42 s; 10+0 and slower, and untimed games: the upper bound (60 s by default).
std::chrono::milliseconds claim_window(const std::optional<protocol::ClockSpec>& control,
                                       std::chrono::milliseconds upper_bound) noexcept;

}  // namespace arbiter::server::app
