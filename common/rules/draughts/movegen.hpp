#pragma once
/// \file
/// Legal moves of Brazilian draughts: bitboard generation into a caller-owned fixed list, and
/// perft.
///
/// Rules implemented (CBD official rules; the same on the FMJD 8x8 Brazilian board):
/// - men step one square diagonally forward; men capture forward and backward;
/// - kings fly: they move, and capture a piece, at any distance along a diagonal, landing on any
///   empty square beyond the captured piece;
/// - capture is compulsory and only the sequences taking the most pieces are legal (kings and
///   men count the same);
/// - captured pieces leave the board only when the move ends: until then they block and can not
///   be jumped again; the moving piece's own start square counts as empty;
/// - a man is crowned only if its move ends on the far row.
///
/// Moves are unique by (start, end, set of captured pieces): two jump orders that take the same
/// pieces between the same squares are one move (the counting convention of the published perft
/// tables); the first path found is kept for notation.

#include <cstdint>

#include "common/rules/draughts/position.hpp"

namespace arbiter::rules::draughts {

/// Fills `list` with every legal move of the side to move (the list is cleared first).
void legal_moves(const Position& position, MoveList& list) noexcept;

/// Whether the side to move has a capture (then every legal move is a capture).
bool has_capture(const Position& position) noexcept;

/// Leaf nodes `depth` plies below `position`, counting the last ply in bulk.
std::uint64_t perft(const Position& position, int depth) noexcept;

}  // namespace arbiter::rules::draughts
