#pragma once
/// \file
/// Legal move generation into a caller-owned MoveList, and perft.

#include <cstdint>

#include "common/rules/chess/position.hpp"

namespace arbiter::rules::chess {

/// Fills `list` with every legal move of the side to move (the list is cleared first).
void legal_moves(const Position& position, MoveList& list) noexcept;

/// Whether the side to move has at least one legal move.
bool has_legal_move(const Position& position) noexcept;

/// Leaf nodes `depth` plies below `position`, counting the last ply in bulk.
std::uint64_t perft(const Position& position, int depth) noexcept;

}  // namespace arbiter::rules::chess
