#include "common/rules/draughts/movegen.hpp"

#include <array>
#include <bit>

#include "common/core/assert.hpp"

namespace arbiter::rules::draughts {

namespace {

/// The directions a man of `side` steps in without capturing.
constexpr std::array<Direction, 2> forward(Side side) noexcept {
    return side == Side::first ? std::array{Direction::up_left, Direction::up_right}
                               : std::array{Direction::down_left, Direction::down_right};
}

/// Depth-first search of every capture sequence of one piece, keeping only the sequences that
/// take the most pieces (the majority rule) and one entry per (start, end, captured set).
class CaptureSearch {
  public:
    CaptureSearch(const Position& position, MoveList& list) noexcept
        : opponents_(position.pieces(opponent(position.side_to_move()))),
          empty_base_(position.empty()),
          list_(list) {}

    /// Searches from the piece on `from`; `king` selects flying-king captures.
    void search_piece(int from, bool king) noexcept {
        from_ = static_cast<std::uint8_t>(from);
        // The moving piece's start square counts as empty for the whole sequence, so a circular
        // capture may end where it began (CBD rules; perft position B03).
        empty_ = empty_base_ | bit(from);
        if (king) {
            king_step(from, 0, 0, 0);
        } else {
            man_step(from, 0, 0, 0);
        }
    }

  private:
    // Captured pieces stay on the board until the move ends: they are never in empty_, so they
    // block both the landing and the path of a king, and `captured` stops a second jump.
    bool jumpable(int square, Bitboard captured) const noexcept {
        return square >= 0 && (opponents_ & ~captured & bit(square)) != 0;
    }
    bool is_empty(int square) const noexcept { return square >= 0 && (empty_ & bit(square)) != 0; }

    void man_step(int square, Bitboard captured, int depth, std::uint64_t path) noexcept {
        bool extended = false;
        // Men capture forward and backward (CBD rules).
        for (Direction direction : kDirections) {
            const int victim = neighbour(square, direction);
            if (!jumpable(victim, captured)) {
                continue;
            }
            const int landing = neighbour(victim, direction);
            if (!is_empty(landing)) {
                continue;
            }
            extended = true;
            // Passing the far row in mid-capture does not crown: the search goes on as a man.
            man_step(landing, captured | bit(victim), depth + 1, extend(path, depth, square));
        }
        if (!extended && captured != 0) {
            record(square, captured, depth, path);
        }
    }

    void king_step(int square, Bitboard captured, int depth, std::uint64_t path) noexcept {
        bool extended = false;
        for (Direction direction : kDirections) {
            int victim = neighbour(square, direction);
            while (is_empty(victim)) {
                victim = neighbour(victim, direction);
            }
            if (!jumpable(victim, captured)) {
                continue;
            }
            // A flying king may land on any empty square beyond the piece it takes; the majority
            // rule then keeps only the landings from which the sequence goes on the longest.
            for (int landing = neighbour(victim, direction); is_empty(landing);
                 landing = neighbour(landing, direction)) {
                extended = true;
                king_step(landing, captured | bit(victim), depth + 1, extend(path, depth, square));
            }
        }
        if (!extended && captured != 0) {
            record(square, captured, depth, path);
        }
    }

    /// The path with `square` appended as landing number depth - 1 (the start is not stored).
    static std::uint64_t extend(std::uint64_t path, int depth, int square) noexcept {
        return depth == 0 ? path : path | (std::uint64_t(square) << (5 * (depth - 1)));
    }

    void record(int to, Bitboard captured, int depth, std::uint64_t path) noexcept {
        // Brazilian draughts: the sequence that captures the most pieces is compulsory, kings and
        // men counting the same (CBD rules, "lei da maioria").
        if (depth < best_) {
            return;
        }
        if (depth > best_) {
            best_ = depth;
            list_.clear();
        }
        Move move;
        move.from = from_;
        move.to = static_cast<std::uint8_t>(to);
        move.captured = captured;
        move.landing_count = static_cast<std::uint8_t>(depth - 1);
        move.landings = path;
        for (const Move& known : list_) {
            if (known.same_move(move)) {
                return;
            }
        }
        // The capacity is never reached (see MoveList); should untrusted text ever build a
        // position that reaches it, the search keeps the moves it has rather than overflow.
        ARBITER_ASSERT(!list_.full());
        if (!list_.full()) {
            list_.push(move);
        }
    }

    Bitboard opponents_;
    Bitboard empty_base_;
    Bitboard empty_ = 0;
    std::uint8_t from_ = 0;
    int best_ = 0;
    MoveList& list_;
};

/// Squares reachable by a flying king sliding from `kings` in `direction` over empty squares.
Bitboard slide(Bitboard kings, Bitboard empty, Direction direction) noexcept {
    Bitboard reach = 0;
    for (Bitboard front = step(kings, direction) & empty; front != 0;
         front = step(front, direction) & empty) {
        reach |= front;
    }
    return reach;
}

void add_quiet(MoveList& list, int from, int to) noexcept {
    Move move;
    move.from = static_cast<std::uint8_t>(from);
    move.to = static_cast<std::uint8_t>(to);
    list.push(move);
}

void generate_quiet(const Position& position, MoveList& list) noexcept {
    const Bitboard own = position.pieces(position.side_to_move());
    const Bitboard empty = position.empty();
    const Bitboard men = own & ~position.kings();
    for (Direction direction : forward(position.side_to_move())) {
        const Direction back = reverse(direction);
        for (Bitboard targets = step(men, direction) & empty; targets != 0;
             targets &= targets - 1) {
            const int to = std::countr_zero(targets);
            add_quiet(list, neighbour(to, back), to);
        }
    }
    for (Bitboard kings = own & position.kings(); kings != 0; kings &= kings - 1) {
        const int from = std::countr_zero(kings);
        for (Direction direction : kDirections) {
            for (int to = neighbour(from, direction); to >= 0 && (empty & bit(to)) != 0;
                 to = neighbour(to, direction)) {
                add_quiet(list, from, to);
            }
        }
    }
}

/// Number of non-capturing moves, without listing them (bulk counting at the last ply).
int count_quiet(const Position& position) noexcept {
    const Bitboard own = position.pieces(position.side_to_move());
    const Bitboard empty = position.empty();
    const Bitboard men = own & ~position.kings();
    const auto ahead = forward(position.side_to_move());
    int count =
        std::popcount(step(men, ahead[0]) & empty) + std::popcount(step(men, ahead[1]) & empty);
    if (const Bitboard kings = own & position.kings(); kings != 0) {
        for (Bitboard rest = kings; rest != 0; rest &= rest - 1) {
            const Bitboard king = rest & (~rest + 1);
            for (Direction direction : kDirections) {
                count += std::popcount(slide(king, empty, direction));
            }
        }
    }
    return count;
}

}  // namespace

bool has_capture(const Position& position) noexcept {
    const Bitboard own = position.pieces(position.side_to_move());
    const Bitboard opponents = position.pieces(opponent(position.side_to_move()));
    const Bitboard empty = position.empty();
    const Bitboard men = own & ~position.kings();
    const Bitboard kings = own & position.kings();
    for (Direction direction : kDirections) {
        // From each square, a king first slides over empty squares, then jumps like a man.
        const Bitboard origin = men | kings | (kings != 0 ? slide(kings, empty, direction) : 0);
        const Bitboard victims = step(origin, direction) & opponents;
        if ((step(victims, direction) & empty) != 0) {
            return true;
        }
    }
    return false;
}

void legal_moves(const Position& position, MoveList& list) noexcept {
    list.clear();
    if (has_capture(position)) {
        CaptureSearch search(position, list);
        const Bitboard own = position.pieces(position.side_to_move());
        for (Bitboard rest = own; rest != 0; rest &= rest - 1) {
            const int from = std::countr_zero(rest);
            search.search_piece(from, (position.kings() & bit(from)) != 0);
        }
        return;
    }
    generate_quiet(position, list);
}

std::uint64_t perft(const Position& position, int depth) noexcept {
    if (depth <= 0) {
        return 1;
    }
    if (depth == 1 && !has_capture(position)) {
        return static_cast<std::uint64_t>(count_quiet(position));
    }
    MoveList list;
    legal_moves(position, list);
    if (depth == 1) {
        return list.size();
    }
    std::uint64_t nodes = 0;
    for (const Move& move : list) {
        nodes += perft(position.after(move), depth - 1);
    }
    return nodes;
}

}  // namespace arbiter::rules::draughts
