// Strength: the search beats the level-1 rule in a short draughts match. The full match at the
// top level runs in Release with arbiter-engine-match (bench/); this one uses small fixed node
// budgets so that it is quick under the sanitizers and its result does not depend on speed.

#include <gtest/gtest.h>

#include <cstdio>

#include "common/engine/match.hpp"
#include "tests/unit/engine/positions.hpp"

namespace arbiter::engine {
namespace {

TEST(EngineMatch, SearchingDraughtsBeatsLevelOne) {
    MatchConfig config;
    config.variant = rules::Variant::draughts;
    config.openings = {test::sample_positions(rules::Variant::draughts)[0],
                       test::sample_positions(rules::Variant::draughts)[1]};
    config.games = 6;
    config.max_plies = 120;
    config.a.level = 4;
    config.a.limits = limits_for_level(4);
    config.a.limits.max_time = std::chrono::minutes{10};
    config.a.limits.max_nodes = 400;
    config.b.level = 1;
    config.b.limits = limits_for_level(1);
    const MatchResult result = play_match(config);
    std::printf("draughts, level 4 (400 nodes) vs level 1, %d games: %.1f-%.1f (+%d -%d =%d)\n",
                config.games, result.a_score(), result.b_score(), result.a_wins, result.b_wins,
                result.draws);
    EXPECT_EQ(result.a_wins + result.b_wins + result.draws, config.games);
    EXPECT_GT(result.a_score(), result.b_score());
    EXPECT_GE(result.a_wins, config.games - 1)
        << "wins " << result.a_wins << " losses " << result.b_wins << " draws " << result.draws;
}

}  // namespace
}  // namespace arbiter::engine
