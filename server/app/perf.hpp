#pragma once
/// \file
/// What a rating is kept for (issue 40): one Glicko-2 rating per variant and speed, its
/// deviation's growth with the time since the player's last rated game, and when it is shown
/// as provisional. Pure functions; storage keeps the ratings (migration 0010).
///
/// Speeds: Lichess's bounds on the estimated duration (speed.hpp), with ultra-bullet counted as
/// bullet (the issue names four speeds, and a separate ultra-bullet pool would stay provisional
/// on a club's server). Untimed games are not rated: without a clock nothing ends a game whose
/// loser stops moving, and there is no speed to pool it with.

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/protocol/messages.hpp"
#include "common/rules/game.hpp"
#include "server/app/glicko2.hpp"

namespace arbiter::server::app {

enum class RatedSpeed : std::uint8_t { bullet, blitz, rapid, classical };

/// A rating pool: a variant at a speed.
struct Perf {
    rules::Variant variant = rules::Variant::chess;
    RatedSpeed speed = RatedSpeed::blitz;
    friend bool operator==(const Perf&, const Perf&) = default;
};

/// The rated speed of a time control; nullopt for an untimed game (never rated).
std::optional<RatedSpeed> rated_speed(const std::optional<protocol::ClockSpec>& clock) noexcept;
/// "bullet", "blitz", "rapid", "classical" (storage and wire).
std::string_view to_string(RatedSpeed speed) noexcept;
/// The speed named `text`, or nullopt.
std::optional<RatedSpeed> parse_rated_speed(std::string_view text) noexcept;

/// A rating is provisional (shown with a `?`, kept off leaderboards) while its deviation is above
/// this (Lichess's bound).
inline constexpr double kProvisionalDeviation = 110.0;
/// Rating periods per day of time away (Lichess's constant): the deviation after d idle days is
/// glicko2::after_idle(rating, d x this).
inline constexpr double kRatingPeriodsPerDay = 0.21436;

bool provisional(const glicko2::Rating& rating) noexcept;

/// The rating as it stands at `now_ms`: `stored` was last updated at `updated_ms` (Unix ms), and
/// its deviation has grown with the time since (never shrinks; a clock that went back changes
/// nothing).
glicko2::Rating rating_at(const glicko2::Rating& stored, std::int64_t updated_ms,
                          std::int64_t now_ms, const glicko2::Config& config = {}) noexcept;

/// A rating as shown: rounded to the nearest integer.
int shown(double rating) noexcept;

}  // namespace arbiter::server::app
