#pragma once
/// \file
/// A Brazilian draughts position as a small value (three bitboards and the side to move), and
/// its PDN FEN text form.

#include <string>
#include <string_view>

#include "common/core/expected.hpp"
#include "common/rules/draughts/board.hpp"
#include "common/rules/game.hpp"

namespace arbiter::rules::draughts {

/// The standard start: White men on 21-32, Black men on 1-12, White to move.
inline constexpr std::string_view kStartFen =
    "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";

/// Pieces per side at most (CBD: each player starts with 12 and none are ever added).
inline constexpr int kMaxPiecesPerSide = 12;

/// Placement and side to move. White is Side::first.
struct Position {
    Bitboard white = 0;  ///< white men and kings
    Bitboard black = 0;  ///< black men and kings
    Bitboard kings = 0;  ///< kings of both colours
    Side turn = Side::first;

    /// The pieces of `side`.
    Bitboard pieces(Side side) const noexcept { return side == Side::first ? white : black; }
    /// Every occupied square.
    Bitboard occupied() const noexcept { return white | black; }
    /// Every empty playable square.
    Bitboard empty() const noexcept { return ~(white | black); }

    friend bool operator==(const Position&, const Position&) = default;
};

/// The standard start position.
Position start_position() noexcept;

/// Parses a PDN FEN such as `W:W21,22,K23:B1,2`: the side to move (W or B), then one field per
/// colour in either order, each a comma-separated list of squares 1-32 with `K` before a king.
/// A range `21-24` stands for every square from 21 to 24 with the same kind. Refused: unknown
/// letters, missing or repeated fields, squares outside 1-32 or listed twice, a man on its own
/// crowning row (it would already be a king), more than 12 pieces of one colour, no piece of
/// the side not to move (its last piece was taken, so the game is already over).
Expected<Position, RulesError> parse_fen(std::string_view text);

/// The canonical PDN FEN: side to move, then White's field, then Black's, squares ascending,
/// no ranges.
std::string to_fen(const Position& position);

}  // namespace arbiter::rules::draughts
