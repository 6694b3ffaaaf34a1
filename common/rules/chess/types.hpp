#pragma once
/// \file
/// The small value types of the chess core: squares, pieces, bitboards, moves and the
/// caller-owned move list that the generator fills.

#include <bit>
#include <cstdint>

#include "common/rules/move_list.hpp"

namespace arbiter::rules::chess {

/// A set of squares, bit i = square i (a1 = 0, b1 = 1, ..., h8 = 63).
using Bitboard = std::uint64_t;

/// A square index 0..63 (a1 = 0, h8 = 63); kNoSquare (64) stands for "none".
using Square = int;
inline constexpr Square kNoSquare = 64;

/// The two colours; white moves first.
enum Color : std::uint8_t { white, black };

/// The other colour.
constexpr Color operator~(Color color) noexcept {
    return Color(color ^ 1);
}

/// Kinds of piece. Index 0 doubles as "all pieces" in Position's per-type bitboards.
enum PieceType : std::uint8_t { no_piece_type, pawn, knight, bishop, rook, queen, king };

/// A coloured piece: colour * 8 + type, so no_piece is 0.
enum Piece : std::uint8_t { no_piece = 0 };

constexpr Piece make_piece(Color color, PieceType type) noexcept {
    return Piece(color * 8 + type);
}
constexpr PieceType type_of(Piece piece) noexcept {
    return PieceType(piece & 7);
}
constexpr Color color_of(Piece piece) noexcept {
    return Color(piece >> 3);
}

constexpr Square make_square(int file, int rank) noexcept {
    return rank * 8 + file;
}
constexpr int file_of(Square square) noexcept {
    return square & 7;
}
constexpr int rank_of(Square square) noexcept {
    return square >> 3;
}
/// The rank as seen from `color`'s side (0 = its back rank).
constexpr int relative_rank(Color color, Square square) noexcept {
    return color == white ? rank_of(square) : 7 - rank_of(square);
}
constexpr Bitboard square_bb(Square square) noexcept {
    return Bitboard{1} << square;
}

inline constexpr Bitboard kFileABB = 0x0101010101010101ULL;
inline constexpr Bitboard kFileHBB = kFileABB << 7;
inline constexpr Bitboard kRank1BB = 0xFFULL;
constexpr Bitboard rank_bb(int rank) noexcept {
    return kRank1BB << (8 * rank);
}
constexpr Bitboard file_bb(int file) noexcept {
    return kFileABB << file;
}
inline constexpr Bitboard kDarkSquaresBB = 0xAA55AA55AA55AA55ULL;

constexpr int popcount(Bitboard b) noexcept {
    return std::popcount(b);
}
constexpr Square lsb(Bitboard b) noexcept {
    return std::countr_zero(b);
}
/// Removes and returns the lowest square of a non-empty set.
constexpr Square pop_lsb(Bitboard& b) noexcept {
    const Square square = lsb(b);
    b &= b - 1;
    return square;
}
constexpr bool more_than_one(Bitboard b) noexcept {
    return (b & (b - 1)) != 0;
}

/// Castling rights as a 4-bit set.
enum CastlingRight : std::uint8_t {
    white_king_side = 1,
    white_queen_side = 2,
    black_king_side = 4,
    black_queen_side = 8,
    all_castling = 15,
};

/// What a move does beyond moving one piece.
enum class MoveKind : std::uint8_t { normal, promotion, en_passant, castling };

/// A move in 16 bits: bits 0-5 origin, 6-11 destination, 12-13 promotion piece minus knight,
/// 14-15 MoveKind. Castling is stored as the king's two-square move (e1g1), as in UCI.
class Move {
  public:
    constexpr Move() noexcept = default;
    constexpr Move(Square from, Square to, MoveKind kind = MoveKind::normal,
                   PieceType promotion = knight) noexcept
        : data_(static_cast<std::uint16_t>(from | (to << 6) | ((promotion - knight) << 12) |
                                           (static_cast<int>(kind) << 14))) {}

    constexpr Square from() const noexcept { return data_ & 63; }
    constexpr Square to() const noexcept { return (data_ >> 6) & 63; }
    constexpr MoveKind kind() const noexcept { return MoveKind(data_ >> 14); }
    /// The piece a pawn becomes; meaningful only for MoveKind::promotion.
    constexpr PieceType promotion() const noexcept {
        return PieceType(((data_ >> 12) & 3) + knight);
    }
    constexpr bool is_null() const noexcept { return data_ == 0; }
    friend constexpr bool operator==(Move, Move) noexcept = default;

  private:
    // Left uninitialised by default, as a MoveList's slots are; Move{} is null.
    std::uint16_t data_;
};

/// The fixed-capacity list the generator fills: room for every legal move of any position (the
/// known maximum is 218).
using MoveList = rules::MoveList<Move, 256>;

}  // namespace arbiter::rules::chess
