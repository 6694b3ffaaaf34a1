#pragma once
/// \file
/// Engine-against-engine matches of the built-in engine: how a level's strength is measured
/// (the match test and the arbiter-engine-match tool).

#include <cstdint>
#include <string>
#include <vector>

#include "common/engine/builtin.hpp"
#include "common/rules/game.hpp"

namespace arbiter::engine {

/// One side of a match: a level and the limits its searches get.
struct MatchPlayer {
    int level = 1;
    SearchLimits limits;
};

/// A match of `games` games between `a` and `b`, alternating colours: game i starts from
/// openings[(i / 2) % size] ("" = the standard start), with `a` moving first in even games.
struct MatchConfig {
    rules::Variant variant = rules::Variant::draughts;
    std::vector<std::string> openings = {""};
    int games = 10;
    MatchPlayer a;
    MatchPlayer b;
    int max_plies = 200;     ///< a game still going after this many plies counts as a draw
    std::uint64_t seed = 1;  ///< each move's seed derives from it
};

/// How a match ended, from a's side.
struct MatchResult {
    int a_wins = 0;
    int b_wins = 0;
    int draws = 0;
    int capped = 0;  ///< draws by reaching max_plies (included in draws)

    /// Points: 1 a win, 1/2 a draw.
    double a_score() const { return a_wins + 0.5 * draws; }
    double b_score() const { return b_wins + 0.5 * draws; }
};

/// Plays the match. An opening that is not a valid position of the variant counts as no game.
MatchResult play_match(const MatchConfig& config);

}  // namespace arbiter::engine
