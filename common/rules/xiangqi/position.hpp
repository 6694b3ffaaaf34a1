#pragma once
/// \file
/// The xiangqi rules core: a 9x10 board as a padded 16-wide mailbox, tiny Move values, legal move
/// generation into a caller-owned fixed array, the position after a move, check detection from the
/// general outward, strict FEN parsing and perft. No strings on the hot path.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/core/expected.hpp"
#include "common/rules/game.hpp"
#include "common/rules/move_list.hpp"

namespace arbiter::rules::xiangqi {

/// Red moves first (Side::first), black second.
enum class Color : std::uint8_t { red = 0, black = 1 };

/// The opponent colour.
constexpr Color other(Color color) noexcept {
    return color == Color::red ? Color::black : Color::red;
}

/// Piece kinds; the numbering is part of the Piece code below.
enum class Kind : std::uint8_t {
    none = 0,
    general = 1,
    advisor = 2,
    elephant = 3,
    horse = 4,
    chariot = 5,
    cannon = 6,
    soldier = 7,
};

/// A board cell: bits 0-2 the Kind, bit 3 set for black, value 16 for the padding around the
/// board, 0 for an empty point.
using Piece = std::uint8_t;
/// An empty point.
inline constexpr Piece kEmpty = 0;
/// A padding cell outside the board.
inline constexpr Piece kOffBoard = 16;

/// The cell value of a piece.
constexpr Piece make_piece(Color color, Kind kind) noexcept {
    return static_cast<Piece>((static_cast<int>(color) << 3) | static_cast<int>(kind));
}
/// The kind of a piece (Kind::none for an empty cell).
constexpr Kind kind_of(Piece piece) noexcept {
    return static_cast<Kind>(piece & 7);
}
/// The colour of a piece (meaningless for empty and padding cells).
constexpr Color color_of(Piece piece) noexcept {
    return static_cast<Color>((piece >> 3) & 1);
}

/// A point: index (rank + 2) * 16 + file + 2 into a 16x14 mailbox whose two-cell padding
/// stops horse and elephant jumps at the edge. Files 0-8 are a-i from red's left, ranks 0-9 are
/// 1-10 from red's side.
using Square = std::uint8_t;
/// Cells of the mailbox, padding included.
inline constexpr int kBoardCells = 256;

/// The cell of file 0-8 and rank 0-9.
constexpr Square make_square(int file, int rank) noexcept {
    return static_cast<Square>((rank + 2) * 16 + file + 2);
}
/// File 0-8 (a-i) of an on-board cell.
constexpr int file_of(Square square) noexcept {
    return (square & 15) - 2;
}
/// Rank 0-9 (1-10) of an on-board cell.
constexpr int rank_of(Square square) noexcept {
    return (square >> 4) - 2;
}

/// A move in 16 bits: from-square in the low byte, to-square in the high byte. 0 is "no move".
struct Move {
    std::uint16_t bits = 0;

    constexpr Move() = default;
    constexpr Move(Square from, Square to) noexcept
        : bits(static_cast<std::uint16_t>(from | (to << 8))) {}
    /// Origin and destination.
    constexpr Square from() const noexcept { return static_cast<Square>(bits & 0xFF); }
    constexpr Square to() const noexcept { return static_cast<Square>(bits >> 8); }
    friend constexpr bool operator==(Move, Move) = default;
};

/// The fixed-capacity list the generator fills; 128 exceeds the most pseudo-legal moves one side
/// can have (2x17 chariot + 2x17 cannon + 2x8 horse + 2x4 elephant + 2x4 advisor + 4 general +
/// 5x3 soldier = 119).
using MoveList = rules::MoveList<Move, 128>;

/// The standard start.
inline constexpr std::string_view kStartFen =
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// A xiangqi position. Build one with from_fen(); play with after(). Each piece has a stable
/// identity (0-15 red, 16-31 black) kept through its moves, which the perpetual-chase rule uses
/// to tell "the same piece".
class Position {
  public:
    /// Parses a xiangqi FEN strictly (see fen.cpp for every check); "" or "startpos" = start.
    static Expected<Position, RulesError> from_fen(std::string_view fen);
    /// The position as FEN: uppercase red, `w` for red to move, halfmove = plies since capture.
    std::string fen() const;

    /// The side to move.
    Color side_to_move() const noexcept { return side_; }
    /// The cell value at `square` (kOffBoard on padding).
    Piece at(Square square) const noexcept { return board_[square]; }
    /// Where `color`'s general stands.
    Square general(Color color) const noexcept { return generals_[static_cast<int>(color)]; }
    /// The identity (0-31) of the piece on an occupied square.
    int id_at(Square square) const noexcept { return ids_[square]; }
    /// The square of piece `id`, 0 once captured.
    Square square_of(int id) const noexcept { return squares_[static_cast<std::size_t>(id)]; }
    /// Plies since the last capture (the FEN halfmove field).
    int plies_since_capture() const noexcept { return plies_since_capture_; }
    /// The FEN fullmove number.
    int fullmove() const noexcept { return fullmove_; }
    /// Zobrist key of placement and side to move (not the counters): equal keys = same position
    /// for the repetition rule.
    std::uint64_t hash() const noexcept { return hash_; }

    /// Whether `color`'s general is attacked (by any piece, or by the facing general).
    bool general_attacked(Color color) const noexcept;
    /// Whether the side to move is in check.
    bool in_check() const noexcept { return general_attacked(side_); }
    /// Whether `color` has a piece able to cross the river (chariot, horse, cannon, soldier).
    bool has_attacking_material(Color color) const noexcept;

    /// The position after `move`, which must be legal here.
    Position after(Move move) const noexcept;
    /// Same board, identities, side, counters and hash.
    friend bool operator==(const Position&, const Position&) = default;
    /// The same position with the other side to move (for threat analysis; never for play).
    Position with_side_to_move(Color color) const noexcept;

  private:
    void put(Square square, Piece piece, int id) noexcept;
    /// What play() changed beyond the moved piece, for take_back().
    struct Undo {
        Piece captured = kEmpty;
        std::uint8_t captured_id = 0;
        int plies_since_capture = 0;
        std::uint64_t hash = 0;
    };
    /// Plays `move` on this position (after() on a copy).
    Undo play(Move move) noexcept;
    /// Takes `move` back, given what play() returned for it: perft walks its tree on one
    /// position this way, as a copy per node (~560 bytes) would cost it ~10 %.
    void take_back(Move move, const Undo& undo) noexcept;
    void generate_pseudo(MoveList& list) const noexcept;
    bool move_is_safe(Move move) const noexcept;
    /// Whether a pseudo-legal move of the side to move is legal, given where its general stands
    /// and whether it is in check now (the filter of legal_moves()).
    bool keeps_general_safe(Move move, Square general, bool in_check) const noexcept;

    friend class FenParser;
    friend std::uint64_t perft_in_place(Position& position, int depth) noexcept;
    friend void legal_moves(const Position& position, MoveList& list) noexcept;
    friend void legal_moves_to(const Position& position, Square to, MoveList& list) noexcept;
    friend bool has_legal_move(const Position& position) noexcept;
    friend bool is_legal(const Position& position, Move move) noexcept;
    friend bool is_pseudo_legal(const Position& position, Move move) noexcept;

    // The legality probe (move_is_safe) plays a move on these two and restores them before
    // returning, so that legal_moves() can take a const position without copying it.
    mutable std::array<Piece, kBoardCells> board_{};
    std::array<std::uint8_t, kBoardCells> ids_{};
    std::array<Square, 32> squares_{};
    mutable std::array<Square, 2> generals_{};
    Color side_ = Color::red;
    int plies_since_capture_ = 0;
    int fullmove_ = 1;
    std::uint64_t hash_ = 0;
};

/// Fills `list` with every legal move of the side to move (the list is cleared first).
void legal_moves(const Position& position, MoveList& list) noexcept;
/// Fills `list` with the legal moves that end on `to` (legal_moves() filtered, probing only
/// those).
void legal_moves_to(const Position& position, Square to, MoveList& list) noexcept;
/// Whether the side to move has at least one legal move (it stops at the first).
bool has_legal_move(const Position& position) noexcept;
/// Whether `move` is among legal_moves() (probing that one move only).
bool is_legal(const Position& position, Move move) noexcept;
/// Whether `move` follows the movement rules for the side to move, whether or not it would leave
/// the own general attacked (the repetition rule asks what was threatened apart from a check
/// that had to be answered first).
bool is_pseudo_legal(const Position& position, Move move) noexcept;

/// Leaf nodes `depth` plies below `position`, counting the last ply in bulk.
std::uint64_t perft(const Position& position, int depth) noexcept;

}  // namespace arbiter::rules::xiangqi
