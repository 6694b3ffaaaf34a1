#pragma once
/// \file
/// Why a xiangqi move is refused, in words a player reads ("a horse cannot move there", "the
/// general would face the general"). Only the refusal path calls these: move generation and perft
/// never do.

#include <string>
#include <string_view>

#include "common/rules/xiangqi/position.hpp"

namespace arbiter::rules::xiangqi {

/// Why `move`, written in wire form, is not legal for the side to move: no own piece on its
/// start, the piece does not move that way, or the own general would be attacked or face the
/// other general.
std::string why_illegal(const Position& position, Move move);

/// Whether `wxf` (as normalise_wxf writes it: uppercase, `.` sideways) has the shape of a WXF
/// move, legal or not.
bool is_wxf_shaped(std::string_view wxf) noexcept;

/// Why no legal move of the side to move is written `wxf` (a WXF-shaped text).
std::string why_no_wxf_move(const Position& position, std::string_view wxf);

}  // namespace arbiter::rules::xiangqi
