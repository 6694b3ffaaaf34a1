#pragma once
/// \file
/// Legal moves of Brazilian draughts: bitboard generation into a caller-owned fixed list,
/// applying a move, and perft.
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

#include <array>
#include <cstddef>
#include <cstdint>

#include "common/core/assert.hpp"
#include "common/rules/draughts/position.hpp"

namespace arbiter::rules::draughts {

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

/// A fixed-capacity list of moves, filled by generate_moves().
class MoveList {
  public:
    /// Room for every legal move of any position: without captures at most 12 kings x 13
    /// squares = 156 moves; with captures the list holds distinct maximal sequences only, and
    /// random positions with up to 12 kings a side never came near 30.
    static constexpr std::size_t kCapacity = 512;

    /// Empties the list.
    void clear() noexcept { size_ = 0; }
    /// Appends a move (the capacity is never reached, see kCapacity).
    void push(const Move& move) noexcept {
        ARBITER_ASSERT(size_ < kCapacity);
        if (size_ < kCapacity) {
            storage_.moves[size_++] = move;
        }
    }
    /// Number of moves held.
    std::size_t size() const noexcept { return size_; }
    /// Whether no move is held.
    bool empty() const noexcept { return size_ == 0; }
    /// The i-th move, i < size().
    const Move& operator[](std::size_t i) const noexcept { return storage_.moves[i]; }
    Move& operator[](std::size_t i) noexcept { return storage_.moves[i]; }
    /// Iteration over the held moves.
    const Move* begin() const noexcept { return storage_.moves; }
    const Move* end() const noexcept { return storage_.moves + size_; }

  private:
    // Left uninitialised: a list is built at every node of a perft, and clearing 8 KB there
    // would cost more than generating the moves.
    union Storage {
        Storage() noexcept {}  // NOLINT(modernize-use-equals-default): must not initialise
        Move moves[kCapacity];
    };
    Storage storage_;
    std::size_t size_ = 0;
};

/// Fills `list` with every legal move of the side to move (cleared first).
void generate_moves(const Position& position, MoveList& list);

/// Whether the side to move has a capture (then every legal move is a capture).
bool has_capture(const Position& position) noexcept;

/// The position after `move`, which must be legal in `position`.
Position apply_move(const Position& position, const Move& move) noexcept;

/// Leaf nodes `depth` plies below `position`, counting the last ply in bulk.
std::uint64_t perft(const Position& position, int depth);

}  // namespace arbiter::rules::draughts
