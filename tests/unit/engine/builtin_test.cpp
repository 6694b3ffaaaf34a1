// The built-in engine through its public entry point: legal moves everywhere, the level-1 rule,
// levels, determinism and the stop flag.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>

#include "common/engine/builtin.hpp"
#include "tests/unit/engine/positions.hpp"

namespace arbiter::engine {
namespace {

std::unique_ptr<rules::Game> game_at(rules::Variant variant, const std::string& fen) {
    auto game = rules::make_game(variant, fen);
    EXPECT_TRUE(game.has_value()) << fen;
    return std::move(game.value());
}

bool is_legal(const rules::Game& game, const std::string& move) {
    const auto moves = game.legal_moves();
    return std::find(moves.begin(), moves.end(), move) != moves.end();
}

/// A level's limits made small enough for the sanitizer build (the server caps time likewise).
SearchLimits quick_limits(int level) {
    SearchLimits limits = limits_for_level(level);
    limits.max_depth = std::min(limits.max_depth, 3);
    limits.max_nodes = 600;
    return limits;
}

TEST(BuiltinEngine, ReturnsALegalMoveInEveryVariantAtEveryLevel) {
    for (const rules::Variant variant : test::kVariants) {
        for (const std::string& fen : test::sample_positions(variant)) {
            const auto game = game_at(variant, fen);
            for (int level = kMinLevel; level <= kMaxLevel; ++level) {
                const SearchResult result = choose_move(*game, level, quick_limits(level), 11);
                EXPECT_TRUE(is_legal(*game, result.move))
                    << rules::to_string(variant) << " " << fen << " level " << level << ": "
                    << result.move;
            }
        }
    }
}

TEST(BuiltinEngine, LevelsGrowInDepthAndTime) {
    for (int level = kMinLevel + 1; level < kMaxLevel; ++level) {
        const SearchLimits lower = limits_for_level(level);
        const SearchLimits higher = limits_for_level(level + 1);
        EXPECT_LT(lower.max_depth, higher.max_depth) << level;
        EXPECT_LT(lower.max_time, higher.max_time) << level;
    }
    EXPECT_EQ(limits_for_level(0).max_depth, limits_for_level(kMinLevel).max_depth);
    EXPECT_EQ(limits_for_level(99).max_depth, limits_for_level(kMaxLevel).max_depth);
}

TEST(BuiltinEngine, LevelOneTakesACaptureWhenOneExists) {
    // After 1.e4 d5 White has exactly one capture, exd5, among 31 moves.
    const auto game = game_at(rules::Variant::chess,
                              "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
        EXPECT_EQ(choose_move(*game, 1, limits_for_level(1), seed).move, "e4d5") << seed;
    }
}

TEST(BuiltinEngine, LevelOneWithoutCapturePlaysVariedLegalMoves) {
    // No capture at the chess start (the xiangqi start has two: the cannons take the horses).
    const auto game = game_at(rules::Variant::chess, "startpos");
    std::set<std::string> chosen;
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
        const SearchResult result = choose_move(*game, 1, limits_for_level(1), seed);
        EXPECT_TRUE(is_legal(*game, result.move)) << result.move;
        EXPECT_EQ(result.depth, 0);
        chosen.insert(result.move);
    }
    EXPECT_GT(chosen.size(), 5u);
}

TEST(BuiltinEngine, SameSeedSameMoveWhenTimeDoesNotBind) {
    for (const rules::Variant variant : test::kVariants) {
        const auto game = game_at(variant, test::sample_positions(variant)[1]);
        SearchLimits limits = limits_for_level(5);
        limits.max_depth = 3;
        limits.max_time = std::chrono::minutes{10};
        const SearchResult first = choose_move(*game, 5, limits, 42);
        const SearchResult second = choose_move(*game, 5, limits, 42);
        EXPECT_EQ(first.move, second.move) << rules::to_string(variant);
        EXPECT_EQ(first.score, second.score) << rules::to_string(variant);
        EXPECT_EQ(first.nodes, second.nodes) << rules::to_string(variant);
        EXPECT_EQ(first.depth, 3) << rules::to_string(variant);
    }
}

TEST(BuiltinEngine, StopFlagSetBeforehandStillGivesALegalMove) {
    const std::atomic<bool> stop{true};
    for (const rules::Variant variant : test::kVariants) {
        const auto game = game_at(variant, "startpos");
        SearchLimits limits = limits_for_level(kMaxLevel);
        limits.max_time = std::chrono::minutes{10};
        limits.stop = &stop;
        const auto start = std::chrono::steady_clock::now();
        const SearchResult result = choose_move(*game, kMaxLevel, limits, 1);
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds{5});
        EXPECT_TRUE(is_legal(*game, result.move)) << result.move;
        EXPECT_EQ(result.depth, 0);
    }
}

TEST(BuiltinEngine, NodeBudgetEndsTheSearch) {
    const auto game = game_at(rules::Variant::chess, "startpos");
    SearchLimits limits = limits_for_level(kMaxLevel);
    limits.max_time = std::chrono::minutes{10};
    limits.max_nodes = 2000;
    const SearchResult result = choose_move(*game, kMaxLevel, limits, 1);
    EXPECT_TRUE(is_legal(*game, result.move));
    EXPECT_LE(result.nodes, 2000u);
    EXPECT_GE(result.depth, 1);
}

TEST(BuiltinEngine, FinishedGameGetsNoMove) {
    const auto game = game_at(rules::Variant::chess, "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1");
    ASSERT_TRUE(game->status().over());
    EXPECT_EQ(choose_move(*game, 5, quick_limits(5), 1).move, "");
    EXPECT_EQ(choose_move(*game, 1, quick_limits(1), 1).move, "");
}

}  // namespace
}  // namespace arbiter::engine
