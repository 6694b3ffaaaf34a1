#pragma once
/// \file
/// Why a move is refused, in words a player reads ("a pawn cannot move there", "your king would
/// be in check"). Only the refusal path calls these: move generation and perft never do.

#include <string>
#include <string_view>

#include "common/rules/chess/movegen.hpp"

namespace arbiter::rules::chess {

/// "pawn", "knight", ... "king".
std::string_view piece_name(PieceType type) noexcept;

/// Why the side to move's piece on `from` may not go to `to` (no legal move joins them): the
/// piece does not move that way, castling is not allowed now, or the own king would be left in
/// check.
std::string why_illegal(const Position& position, Square from, Square to);

/// Why no piece of `type` of the side to move (restricted to a file and/or rank, -1 for any)
/// has a legal move to `to`: none can reach it, or every one that can would leave the king in
/// check.
std::string why_none_reaches(const Position& position, PieceType type, Square to, int from_file,
                             int from_rank);

/// Why castling to that side is not legal now.
std::string why_not_castling(const Position& position, bool king_side);

}  // namespace arbiter::rules::chess
