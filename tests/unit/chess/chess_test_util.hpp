#pragma once
// Helpers shared by the chess unit tests: build games from FEN and look at their moves.

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "common/rules/game.hpp"

namespace arbiter::rules::chess_test {

/// A game from `fen`; fails the test when the FEN is refused.
inline std::unique_ptr<Game> game_from(std::string_view fen) {
    auto game = make_game(Variant::chess, fen);
    EXPECT_TRUE(game.has_value()) << fen << ": " << (game ? "" : game.error().message);
    return game ? std::move(*game) : nullptr;
}

inline bool has_move(const Game& game, std::string_view uci) {
    const auto moves = game.legal_moves();
    return std::find(moves.begin(), moves.end(), uci) != moves.end();
}

/// Plays every move, failing the test on the first refusal.
inline void play_all(Game& game, std::initializer_list<std::string_view> moves) {
    for (const std::string_view move : moves) {
        const auto played = game.play(move);
        ASSERT_TRUE(played.has_value()) << move << ": " << played.error().message;
    }
}

/// The castling field of the game's current FEN.
inline std::string castling_field(const Game& game) {
    const std::string fen = game.position();
    const std::size_t first = fen.find(' ', fen.find(' ') + 1) + 1;
    return fen.substr(first, fen.find(' ', first) - first);
}

}  // namespace arbiter::rules::chess_test
