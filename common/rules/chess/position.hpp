#pragma once
/// \file
/// chess::Position: a small copyable value (about 140 bytes) holding the board, the side to
/// move, castling rights, the en-passant square and the clocks. Applying a move yields the next
/// position (copy-make); nothing here allocates.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/core/expected.hpp"
#include "common/rules/chess/attacks.hpp"
#include "common/rules/chess/types.hpp"
#include "common/rules/game.hpp"

namespace arbiter::rules::chess {

/// The standard start position in FEN.
inline constexpr std::string_view kStartFen =
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A chess position. Build one with from_fen(); play with after().
class Position {
  public:
    /// Parses and strictly validates a FEN (see fen.cpp for every rule it enforces).
    /// Empty text or "startpos" is the standard start. Surrounding whitespace is ignored; fields
    /// are separated by single spaces; four fields (no clocks) mean clocks "0 1".
    static Expected<Position, RulesError> from_fen(std::string_view fen);
    /// The position as a six-field FEN.
    std::string fen() const;

    Piece piece_on(Square square) const noexcept { return board_[square]; }
    Bitboard occupied() const noexcept { return by_type_[no_piece_type]; }
    Bitboard pieces(Color color) const noexcept { return by_color_[color]; }
    Bitboard pieces(PieceType type) const noexcept { return by_type_[type]; }
    Bitboard pieces(Color color, PieceType type) const noexcept {
        return by_color_[color] & by_type_[type];
    }
    Bitboard pieces(Color color, PieceType a, PieceType b) const noexcept {
        return by_color_[color] & (by_type_[a] | by_type_[b]);
    }
    Square king_square(Color color) const noexcept { return lsb(pieces(color, king)); }
    /// The side to move.
    Color side_to_move() const noexcept { return side_; }
    /// CastlingRight bits still held.
    int castling_rights() const noexcept { return castling_; }
    /// The square behind a pawn that just advanced two squares, or kNoSquare.
    Square en_passant_square() const noexcept { return en_passant_; }
    /// Plies since the last capture or pawn move (FIDE 9.3).
    int halfmove_clock() const noexcept { return halfmove_clock_; }
    int fullmove_number() const noexcept { return fullmove_number_; }

    /// Pieces of either colour attacking `square` given the occupancy `occupied`.
    Bitboard attackers_to(Square square, Bitboard occupied) const noexcept {
        return (pawn_attacks(black, square) & pieces(white, pawn)) |
               (pawn_attacks(white, square) & pieces(black, pawn)) |
               (knight_attacks(square) & by_type_[knight]) |
               (king_attacks(square) & by_type_[king]) |
               (rook_attacks(square, occupied) & (by_type_[rook] | by_type_[queen])) |
               (bishop_attacks(square, occupied) & (by_type_[bishop] | by_type_[queen]));
    }
    /// Enemy pieces giving check to the side to move.
    Bitboard checkers() const noexcept {
        return attackers_to(king_square(side_), occupied()) & by_color_[~side_];
    }
    bool in_check() const noexcept { return checkers() != 0; }

    /// The position after `move`, which must be legal here.
    Position after(Move move) const noexcept;

    /// Equality of everything but the clocks: what FIDE 9.2 calls "the same position", except
    /// that the en-passant square counts only when a capture there is legal (see game code).
    bool same_placement_and_rights(const Position& other) const noexcept {
        return by_type_ == other.by_type_ && by_color_ == other.by_color_ && side_ == other.side_ &&
               castling_ == other.castling_;
    }

  private:
    Position() = default;
    void put(Piece piece, Square square) noexcept;
    void remove(Square square) noexcept;
    void move_piece(Square from, Square to) noexcept;
    friend class FenParser;

    std::array<Bitboard, 7> by_type_{};  ///< [0] = every piece; [type] by PieceType
    std::array<Bitboard, 2> by_color_{};
    std::array<Piece, 64> board_{};
    Color side_ = white;
    std::uint8_t castling_ = 0;
    std::uint8_t en_passant_ = kNoSquare;
    std::uint16_t halfmove_clock_ = 0;
    std::uint16_t fullmove_number_ = 1;
};

}  // namespace arbiter::rules::chess
