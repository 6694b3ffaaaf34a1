#pragma once
/// \file
/// Glicko-2, as Mark Glickman's paper "Example of the Glicko-2 system" (2013) defines it: a
/// rating, its deviation (how sure the system is of it) and its volatility (how much it is
/// expected to move), updated once per rating period from the games played in it. Pure
/// arithmetic, no clock: the caller says how many periods passed.

#include <span>

namespace arbiter::server::app::glicko2 {

/// One player's rating on the Glicko (1500-centred) scale.
struct Rating {
    double rating = 1500.0;
    double deviation = 350.0;  ///< RD
    double volatility = 0.06;  ///< sigma
    friend bool operator==(const Rating&, const Rating&) = default;
};

/// The system's constants (the paper's suggestions as defaults).
struct Config {
    /// tau: constrains the change in volatility over time (the paper: 0.3 to 1.2).
    double tau = 0.5;
    /// A new player's rating; also the ceiling of a deviation that grows with time away.
    Rating initial{};
    /// The convergence tolerance of the volatility iteration (the paper's epsilon).
    double epsilon = 0.000001;
};

/// One game of the period, from the player's side.
struct GameResult {
    Rating opponent;
    double score = 0.5;  ///< 1 a win, 0.5 a draw, 0 a loss
};

/// The player's rating after one rating period in which they played `games` (step 1-8 of the
/// paper). With no games, only the deviation grows (step 6), as after_idle(player, 1).
Rating rate(const Rating& player, std::span<const GameResult> games, const Config& config);

/// The rating after `periods` rating periods without a game (fractional periods allowed): the
/// deviation grows as sqrt(phi^2 + periods x sigma^2), never past the initial deviation.
Rating after_idle(const Rating& player, double periods, const Config& config);

}  // namespace arbiter::server::app::glicko2
