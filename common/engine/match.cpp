// Self-play matches through the shared face: each side asks choose_move, the game applies it.

#include "common/engine/match.hpp"

#include "common/core/assert.hpp"

namespace arbiter::engine {
namespace {

enum class GameEnd { a_wins, b_wins, draw, capped };

GameEnd play_one(const MatchConfig& config, const std::string& opening, bool a_first,
                 std::uint64_t seed) {
    auto made = rules::make_game(config.variant, opening);
    if (!made.has_value()) {
        return GameEnd::draw;
    }
    rules::Game& game = *made.value();
    for (int ply = 0; ply < config.max_plies && !game.status().over(); ++ply) {
        const bool a_to_move = (game.turn() == rules::Side::first) == a_first;
        const MatchPlayer& player = a_to_move ? config.a : config.b;
        const SearchResult chosen =
            choose_move(game, player.level, player.limits, seed + static_cast<std::uint64_t>(ply));
        const auto played = game.play(chosen.move);
        ARBITER_ASSERT(played.has_value());  // the engine only returns legal moves
    }
    const rules::Outcome outcome = game.status().outcome;
    if (outcome == rules::Outcome::ongoing) {
        return GameEnd::capped;
    }
    if (outcome == rules::Outcome::draw) {
        return GameEnd::draw;
    }
    const bool first_won = outcome == rules::Outcome::first_wins;
    return first_won == a_first ? GameEnd::a_wins : GameEnd::b_wins;
}

}  // namespace

MatchResult play_match(const MatchConfig& config) {
    MatchResult result;
    if (config.openings.empty()) {
        return result;
    }
    for (int index = 0; index < config.games; ++index) {
        const std::string& opening =
            config.openings[static_cast<std::size_t>(index / 2) % config.openings.size()];
        const std::uint64_t seed =
            config.seed * 1000003u + static_cast<std::uint64_t>(index) * 7919u;
        switch (play_one(config, opening, index % 2 == 0, seed)) {
            case GameEnd::a_wins:
                ++result.a_wins;
                break;
            case GameEnd::b_wins:
                ++result.b_wins;
                break;
            case GameEnd::draw:
                ++result.draws;
                break;
            case GameEnd::capped:
                ++result.draws;
                ++result.capped;
                break;
        }
    }
    return result;
}

}  // namespace arbiter::engine
