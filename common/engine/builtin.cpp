// Levels and the entry point of the built-in engine: level 1 follows a simple rule, levels
// 2..8 search deeper and longer.

#include "common/engine/builtin.hpp"

#include <algorithm>
#include <array>
#include <random>
#include <vector>

#include "common/engine/model.hpp"
#include "common/engine/search.hpp"

namespace arbiter::engine {
namespace {

struct LevelLimits {
    int depth;
    std::chrono::milliseconds time;
};

/// Levels 1..8; level 1's entry is unused (it does not search).
constexpr std::array<LevelLimits, kMaxLevel> kLevels = {{
    {0, std::chrono::milliseconds{0}},
    {1, std::chrono::milliseconds{100}},
    {2, std::chrono::milliseconds{250}},
    {3, std::chrono::milliseconds{500}},
    {4, std::chrono::milliseconds{1000}},
    {6, std::chrono::milliseconds{1500}},
    {8, std::chrono::milliseconds{2500}},
    {64, std::chrono::milliseconds{5000}},
}};

/// Level 1: any capture if there is one, else any legal move, picked by the seed.
SearchResult capture_or_random(const rules::Game& game, std::uint64_t seed) {
    const std::vector<std::string> moves = game.legal_moves();
    SearchResult result;
    if (moves.empty()) {
        return result;
    }
    std::vector<std::size_t> captures;
    for (std::size_t i = 0; i < moves.size(); ++i) {
        auto child = game.clone();
        const auto played = child->play(moves[i]);
        if (played.has_value() && played.value().capture) {
            captures.push_back(i);
        }
    }
    std::mt19937_64 random(seed);
    const std::size_t pick =
        captures.empty() ? random() % moves.size() : captures[random() % captures.size()];
    result.move = moves[pick];
    result.nodes = moves.size();
    return result;
}

}  // namespace

std::unique_ptr<PositionModel> make_model(rules::Variant variant) {
    switch (variant) {
        case rules::Variant::chess:
            return make_chess_model();
        case rules::Variant::xiangqi:
            return make_xiangqi_model();
        case rules::Variant::draughts:
            return make_draughts_model();
    }
    return make_chess_model();
}

SearchLimits limits_for_level(int level) {
    const LevelLimits& entry =
        kLevels[static_cast<std::size_t>(std::clamp(level, kMinLevel, kMaxLevel) - 1)];
    SearchLimits limits;
    limits.max_depth = entry.depth;
    limits.max_time = entry.time;
    return limits;
}

SearchResult choose_move(const rules::Game& game, int level, SearchLimits limits,
                         std::uint64_t seed) {
    if (level <= kMinLevel) {
        return capture_or_random(game, seed);
    }
    return search(game, limits, seed);
}

}  // namespace arbiter::engine
