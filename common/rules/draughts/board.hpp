#pragma once
/// \file
/// The 8x8 draughts board as 32-bit bitboards: one bit per playable (dark) square.
///
/// Bit layout: bit i is PDN square i + 1. Squares are numbered row by row from the top as White
/// sees the board: 1 = b8, 2 = d8, 3 = f8, 4 = h8, 5 = a7, ..., 29 = a1, 30 = c1, 31 = e1,
/// 32 = g1 (a1 is dark). Row r (0 = rank 8) holds bits 4r..4r+3. On even rows the squares sit on
/// files b, d, f, h; on odd rows on a, c, e, g. White moves "up" (towards row 0, squares 1-4).
///
/// Because rows alternate their offset, a diagonal step is a shift by 4 on one row parity and by
/// 3 or 5 on the other; each step below masks the two parities apart and drops squares that
/// would leave the board at the a- or h-file edge.

#include <array>
#include <bit>
#include <cstdint>

namespace arbiter::rules::draughts {

/// A set of squares, bit i = square i + 1.
using Bitboard = std::uint32_t;

/// Number of playable squares.
inline constexpr int kSquares = 32;

/// The four diagonal directions, as White sees the board.
enum class Direction : std::uint8_t { up_left, up_right, down_left, down_right };

inline constexpr std::array<Direction, 4> kDirections = {
    Direction::up_left, Direction::up_right, Direction::down_left, Direction::down_right};

/// Bitboard with only `index` (0-31) set.
constexpr Bitboard bit(int index) noexcept {
    return Bitboard{1} << index;
}

inline constexpr Bitboard kEvenRows = 0x0F0F0F0Fu;       ///< rows 0, 2, 4, 6 (files b d f h)
inline constexpr Bitboard kOddRows = 0xF0F0F0F0u;        ///< rows 1, 3, 5, 7 (files a c e g)
inline constexpr Bitboard kFileA = 0x10101010u;          ///< 5, 13, 21, 29
inline constexpr Bitboard kFileH = 0x08080808u;          ///< 4, 12, 20, 28
inline constexpr Bitboard kWhiteCrownRow = 0x0000000Fu;  ///< squares 1-4
inline constexpr Bitboard kBlackCrownRow = 0xF0000000u;  ///< squares 29-32
/// The long a1-h8 diagonal: 4, 8, 11, 15, 18, 22, 25, 29.
inline constexpr Bitboard kLongDiagonal =
    bit(3) | bit(7) | bit(10) | bit(14) | bit(17) | bit(21) | bit(24) | bit(28);

/// Every square of `squares` moved one step in `direction`; steps off the board vanish.
constexpr Bitboard step(Bitboard squares, Direction direction) noexcept {
    switch (direction) {
        case Direction::up_left:
            return ((squares & kEvenRows) >> 4) | ((squares & kOddRows & ~kFileA) >> 5);
        case Direction::up_right:
            return ((squares & kEvenRows & ~kFileH) >> 3) | ((squares & kOddRows) >> 4);
        case Direction::down_left:
            return ((squares & kEvenRows) << 4) | ((squares & kOddRows & ~kFileA) << 3);
        case Direction::down_right:
            return ((squares & kEvenRows & ~kFileH) << 5) | ((squares & kOddRows) << 4);
    }
    return 0;
}

/// The opposite direction.
constexpr Direction reverse(Direction direction) noexcept {
    return static_cast<Direction>(3 - static_cast<int>(direction));
}

/// neighbour[d][i]: the index one step from index i in direction d, or -1 off the board.
inline constexpr auto kNeighbour = [] {
    std::array<std::array<std::int8_t, kSquares>, 4> table{};
    for (Direction direction : kDirections) {
        for (int index = 0; index < kSquares; ++index) {
            const Bitboard next = step(bit(index), direction);
            table[static_cast<int>(direction)][index] =
                next == 0 ? std::int8_t{-1} : static_cast<std::int8_t>(std::countr_zero(next));
        }
    }
    return table;
}();

/// The index one step from `index` towards `direction`, or -1 off the board.
constexpr int neighbour(int index, Direction direction) noexcept {
    return kNeighbour[static_cast<int>(direction)][index];
}

}  // namespace arbiter::rules::draughts
