#pragma once
/// \file
/// The built-in engine "builtin": one iterative-deepening alpha-beta search written on the shared
/// rules face (rules::Game), so that it plays chess, xiangqi and Brazilian draughts alike, with an
/// evaluation per game. It never prints and never blocks on anything but its own search: the
/// server calls it on a worker thread and bounds it by depth, nodes, time and a stop flag.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "common/rules/game.hpp"

namespace arbiter::engine {

/// The weakest level: take any capture, else a random move.
inline constexpr int kMinLevel = 1;
/// The strongest level: the deepest and longest search.
inline constexpr int kMaxLevel = 8;

/// How far one search may go; whichever limit is reached first ends it.
struct SearchLimits {
    int max_depth = 64;                        ///< plies of iterative deepening
    std::uint64_t max_nodes = UINT64_MAX;      ///< nodes searched in all
    std::chrono::milliseconds max_time{1000};  ///< wall-time budget, checked every few nodes
    const std::atomic<bool>* stop = nullptr;   ///< set by another thread: return the best so far
    /// Another thread may lower the budget while the search runs: ms from the search's start
    /// (the lower of this and max_time binds). A server's pool uses it to cut a long search
    /// short when a more urgent one waits.
    const std::atomic<std::int64_t>* time_cap_ms = nullptr;
};

/// What a search chose and how far it looked.
struct SearchResult {
    std::string move;         ///< wire form, one of game.legal_moves()
    int depth = 0;            ///< deepest completed iteration (0 for level 1's rule)
    int score = 0;            ///< centipawn-like, from the mover's side
    std::uint64_t nodes = 0;  ///< positions visited
};

/// Limits for a level 1..8 (1: any capture else random; 8: strongest), before the clock caps time.
/// A level outside 1..8 is clamped into it.
SearchLimits limits_for_level(int level);

/// A move for the side to move of an ongoing game (at least one legal move). Never fails;
/// deterministic for a seed when time is not the binding limit. `limits` bound levels 2..8
/// (start from limits_for_level); level 1 takes any capture, else a move picked by the seed.
/// A game that is already over gets an empty move.
SearchResult choose_move(const rules::Game& game, int level, SearchLimits limits,
                         std::uint64_t seed);

}  // namespace arbiter::engine
