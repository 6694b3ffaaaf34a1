#pragma once
/// \file
/// What the search needs to know of one game beyond the shared face: a static evaluation and the
/// value of what a move captures (for move ordering). Each game reads its position from the FEN
/// that rules::Game::position() writes, with that game's own public parser.

#include <memory>
#include <string_view>

#include "common/rules/game.hpp"

namespace arbiter::engine {

/// Piece values in centipawn-like units; a draughts man is 100 like a chess pawn.
inline constexpr int kPawnValue = 100;

/// One game's view of a position for the search. load() a position, then ask about it.
class PositionModel {
  public:
    virtual ~PositionModel() = default;

    /// Reads the current position of `game` (a game of this model's variant).
    virtual void load(const rules::Game& game) = 0;
    /// Static score of the loaded position from the side to move's view.
    virtual int evaluate() const = 0;
    /// The value of what `wire` (a legal move of the loaded position) captures, or promotes to,
    /// for ordering; 0 for a quiet move.
    virtual int capture_value(std::string_view wire) const = 0;
};

/// The model of `variant`.
std::unique_ptr<PositionModel> make_model(rules::Variant variant);

/// Chess: material, mobility, pawn advancement, centralisation (model_chess.cpp).
std::unique_ptr<PositionModel> make_chess_model();
/// Xiangqi: material, mobility of both sides, crossed soldiers (model_xiangqi.cpp).
std::unique_ptr<PositionModel> make_xiangqi_model();
/// Brazilian draughts: men and kings, advancement, back-rank guard (model_draughts.cpp).
std::unique_ptr<PositionModel> make_draughts_model();

}  // namespace arbiter::engine
