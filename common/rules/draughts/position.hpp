#pragma once
/// \file
/// A Brazilian draughts position as a small value (three bitboards and the side to move), its
/// PDN FEN text form, the Move value and the fixed-capacity move list.

#include <cstdint>
#include <string>
#include <string_view>

#include "common/core/expected.hpp"
#include "common/rules/draughts/board.hpp"
#include "common/rules/game.hpp"
#include "common/rules/move_list.hpp"

namespace arbiter::rules::draughts {

/// The standard start: White men on 21-32, Black men on 1-12, White to move.
inline constexpr std::string_view kStartFen =
    "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";

/// Pieces per side at most (CBD: each player starts with 12 and none are ever added).
inline constexpr int kMaxPiecesPerSide = 12;

/// Intermediate landing squares a Move can record: at most 12 pieces can be taken, so at most
/// 11 landings lie between the start and the end.
inline constexpr int kMaxLandings = 11;

/// A move: 16 bytes. `from`/`to` are bit indices 0-31 (square - 1). `captured` is the set of
/// pieces taken. `landings` packs the intermediate landing squares of the capture path, five
/// bits each, first landing in the lowest bits; `landing_count` says how many.
struct Move {
    Bitboard captured = 0;
    std::uint8_t from = 0;
    std::uint8_t to = 0;
    std::uint8_t landing_count = 0;
    std::uint64_t landings = 0;

    /// Whether the move takes pieces.
    bool is_capture() const noexcept { return captured != 0; }
    /// The i-th intermediate landing (bit index), 0 <= i < landing_count.
    int landing(int i) const noexcept { return static_cast<int>((landings >> (5 * i)) & 31u); }
    /// Same start, end and captured set: the same move whatever the path.
    bool same_move(const Move& other) const noexcept {
        return from == other.from && to == other.to && captured == other.captured;
    }
};

/// The fixed-capacity list the generator fills. Room for every legal move of any position:
/// without captures at most 12 kings x 13 squares = 156 moves; with captures the list holds
/// distinct maximal sequences only, and random positions with up to 12 kings a side never came
/// near 30. The capture search stops adding at the capacity all the same (see movegen.cpp).
using MoveList = rules::MoveList<Move, 512>;

/// Placement and side to move. White is Side::first. Build one with from_fen(); play with
/// after().
class Position {
  public:
    /// An empty board, White to move.
    constexpr Position() noexcept = default;
    /// The position with these pieces. The caller vouches that a game can reach it (the pieces
    /// of each side apart, kings among them, no man on its own crowning row); text from outside
    /// goes through from_fen(), which checks all of that.
    constexpr Position(Bitboard white, Bitboard black, Bitboard kings, Side side_to_move) noexcept
        : white_(white), black_(black), kings_(kings), side_(side_to_move) {}

    /// Parses a PDN FEN such as `W:W21,22,K23:B1,2`: the side to move (W or B), then one field
    /// per colour in either order, each a comma-separated list of squares 1-32 with `K` before a
    /// king. A range `21-24` stands for every square from 21 to 24 with the same kind. Empty
    /// text or "startpos" is the standard start. Refused: unknown letters, missing or repeated
    /// fields, squares outside 1-32 or listed twice, a man on its own crowning row (it would
    /// already be a king), more than 12 pieces of one colour, no piece of the side not to move
    /// (its last piece was taken, so the game is already over).
    static Expected<Position, RulesError> from_fen(std::string_view fen);
    /// The canonical PDN FEN: side to move, then White's field, then Black's, squares
    /// ascending, no ranges.
    std::string fen() const;

    /// White's men and kings.
    Bitboard white() const noexcept { return white_; }
    /// Black's men and kings.
    Bitboard black() const noexcept { return black_; }
    /// The kings of both colours.
    Bitboard kings() const noexcept { return kings_; }
    /// The pieces of `side`.
    Bitboard pieces(Side side) const noexcept { return side == Side::first ? white_ : black_; }
    /// Every occupied square.
    Bitboard occupied() const noexcept { return white_ | black_; }
    /// Every empty playable square.
    Bitboard empty() const noexcept { return ~(white_ | black_); }
    /// The side to move.
    Side side_to_move() const noexcept { return side_; }

    /// The position after `move`, which must be legal here.
    Position after(const Move& move) const noexcept;

    friend bool operator==(const Position&, const Position&) = default;

  private:
    Bitboard white_ = 0;
    Bitboard black_ = 0;
    Bitboard kings_ = 0;
    Side side_ = Side::first;
};

// In the header so that perft (movegen.cpp) inlines it: a move is applied at every node.
inline Position Position::after(const Move& move) const noexcept {
    Position next = *this;
    const Bitboard travel = bit(move.from) ^ bit(move.to);  // empty for a circular capture
    Bitboard& own = side_ == Side::first ? next.white_ : next.black_;
    Bitboard& theirs = side_ == Side::first ? next.black_ : next.white_;
    own ^= travel;
    theirs &= ~move.captured;
    if (kings_ & bit(move.from)) {
        next.kings_ ^= travel;
    } else {
        // A man is crowned only when its move ends on the far row.
        const Bitboard crown = side_ == Side::first ? kWhiteCrownRow : kBlackCrownRow;
        next.kings_ |= bit(move.to) & crown;
    }
    next.kings_ &= ~move.captured;
    next.side_ = opponent(side_);
    return next;
}

}  // namespace arbiter::rules::draughts
