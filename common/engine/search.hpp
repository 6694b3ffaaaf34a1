#pragma once
/// \file
/// The search behind levels 2..8: iterative-deepening negamax with alpha-beta, a transposition
/// table, quiescence on captures, and move ordering (previous best, captures by value, killers).

#include <cstdint>

#include "common/engine/builtin.hpp"
#include "common/rules/game.hpp"

namespace arbiter::engine {

/// The score of a win on the board; a win n plies away scores kMateScore - n.
inline constexpr int kMateScore = 100000;
/// Scores at or beyond this magnitude announce a forced win (or, negated, a forced loss).
inline constexpr int kMateBound = kMateScore - 1000;

/// The best move of `game` (ongoing, at least one legal move) within `limits`. `seed` decides
/// the order in which equally good root moves are tried, hence which one is chosen.
SearchResult search(const rules::Game& game, const SearchLimits& limits, std::uint64_t seed);

}  // namespace arbiter::engine
