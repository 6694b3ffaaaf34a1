#pragma once
// Helpers shared by the draughts tests: games from a FEN and sorted move lists.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/rules/game.hpp"

namespace arbiter::rules::draughts::testing {

/// A draughts game from `fen`; fails the test when the FEN is refused.
inline std::unique_ptr<Game> game_from(std::string_view fen) {
    auto game = make_game(Variant::draughts, fen);
    EXPECT_TRUE(game.has_value()) << (game ? "" : game.error().message);
    return game ? std::move(*game) : nullptr;
}

/// The legal moves of `game`, sorted.
inline std::vector<std::string> sorted_moves(const Game& game) {
    auto moves = game.legal_moves();
    std::sort(moves.begin(), moves.end());
    return moves;
}

/// Plays `moves` in order, failing the test at the first refusal.
inline void play_all(Game& game, const std::vector<std::string>& moves) {
    for (const auto& move : moves) {
        const auto played = game.play(move);
        ASSERT_TRUE(played.has_value()) << move << ": " << played.error().message;
    }
}

}  // namespace arbiter::rules::draughts::testing
