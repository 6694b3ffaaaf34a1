#pragma once
/// \file
/// A time control's speed, by its estimated duration (initial + 40 x increment, Lichess's
/// formula and bounds), and what depends on it.

#include <chrono>
#include <cstdint>
#include <optional>

#include "common/protocol/messages.hpp"

namespace arbiter::server::app {

enum class Speed : std::uint8_t {
    ultra_bullet,  ///< estimated under 30 s
    bullet,        ///< under 3 min
    blitz,         ///< under 8 min
    rapid,         ///< under 25 min
    classical,     ///< 25 min or more
};

/// A game's estimated length per player: initial time plus 40 increments (Lichess's estimate).
std::chrono::milliseconds estimated_duration(const protocol::ClockSpec& clock) noexcept;

/// The speed of a Fischer clock: its estimated duration against Lichess's bounds.
Speed speed_of(const protocol::ClockSpec& clock) noexcept;

/// How long the side to move has for its first move (ply 0 or 1) of a game between two people
/// before the server aborts the game: Lichess's times for casual games (15, 20, 25, 30 and 35 s
/// from ultra-bullet to classical). An untimed game has the classical time.
std::chrono::seconds first_move_time(const std::optional<protocol::ClockSpec>& clock) noexcept;

}  // namespace arbiter::server::app
