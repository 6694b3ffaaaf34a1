#include "common/rules/xiangqi/position.hpp"

#include "common/core/assert.hpp"
#include "common/rules/xiangqi/tables.hpp"

namespace arbiter::rules::xiangqi {

namespace {

constexpr std::array<int, 4> kOrthogonal = {16, -16, 1, -1};
constexpr std::array<int, 4> kDiagonal = {17, 15, -15, -17};
// For each orthogonal leg step, the two horse destinations beyond it (the leg is the first,
// orthogonal point of the horse's move: "hobbling the horse's leg").
constexpr std::array<std::array<int, 2>, 4> kHorseTargets = {
    {{33, 31}, {-33, -31}, {18, -14}, {-18, 14}}};
// For each diagonal neighbour of a general, the two points from which a horse attacks the
// general through that neighbour (the attacking horse's leg is the diagonal neighbour).
constexpr std::array<std::array<int, 2>, 4> kHorseAttackers = {
    {{18, 33}, {14, 31}, {-14, -31}, {-18, -33}}};

constexpr int forward(Color color) noexcept {
    return color == Color::red ? 16 : -16;
}

constexpr bool crossed_river(Color color, Square square) noexcept {
    return color == Color::red ? rank_of(square) >= 5 : rank_of(square) <= 4;
}

// Whether a move from or to `square` can change the attacks on the general at `general`: the
// general's rank and file (chariot, cannon screen, flying general) and its four diagonal
// neighbours (horse legs). Any other move of a non-general piece is legal unless in check.
constexpr bool near_general(Square square, Square general) noexcept {
    const int delta = square - general;
    return (square >> 4) == (general >> 4) || (square & 15) == (general & 15) || delta == 15 ||
           delta == 17 || delta == -15 || delta == -17;
}

}  // namespace

void Position::put(Square square, Piece piece, int id) noexcept {
    board_[square] = piece;
    ids_[square] = static_cast<std::uint8_t>(id);
    squares_[static_cast<std::size_t>(id)] = square;
    hash_ ^= tables::kZobrist.pieces[piece][square];
    if (kind_of(piece) == Kind::general) {
        generals_[static_cast<int>(color_of(piece))] = square;
    }
}

bool Position::general_attacked(Color color) const noexcept {
    const Square general = generals_[static_cast<int>(color)];
    const Color enemy = other(color);
    const Piece chariot = make_piece(enemy, Kind::chariot);
    const Piece cannon = make_piece(enemy, Kind::cannon);
    const Piece soldier = make_piece(enemy, Kind::soldier);
    const Piece enemy_general = make_piece(enemy, Kind::general);
    const Piece horse = make_piece(enemy, Kind::horse);
    // An enemy soldier attacks forward and, once across the river (always so next to this
    // general), sideways; it never attacks backward, i.e. from this general's own side.
    const int toward_own_side = -forward(color);
    for (int direction : kOrthogonal) {
        int square = general + direction;
        Piece piece = board_[square];
        if (piece == soldier && direction != toward_own_side) {
            return true;
        }
        while (piece == kEmpty) {
            square += direction;
            piece = board_[square];
        }
        if (piece == kOffBoard) {
            continue;
        }
        // Flying general: the generals may not face each other on an open file.
        if (piece == chariot || (piece == enemy_general && (direction & 15) == 0)) {
            return true;
        }
        // A cannon attacks by jumping exactly one piece (the screen) of either colour.
        do {
            square += direction;
            piece = board_[square];
        } while (piece == kEmpty);
        if (piece == cannon) {
            return true;
        }
    }
    for (std::size_t i = 0; i < kDiagonal.size(); ++i) {
        if (board_[general + kDiagonal[i]] != kEmpty) {
            continue;
        }
        if (board_[general + kHorseAttackers[i][0]] == horse ||
            board_[general + kHorseAttackers[i][1]] == horse) {
            return true;
        }
    }
    return false;
}

bool Position::has_attacking_material(Color color) const noexcept {
    const int first = static_cast<int>(color) * 16;
    for (int id = first; id < first + 16; ++id) {
        const Square square = squares_[static_cast<std::size_t>(id)];
        if (square == 0) {
            continue;
        }
        const Kind kind = kind_of(board_[square]);
        if (kind == Kind::chariot || kind == Kind::horse || kind == Kind::cannon ||
            kind == Kind::soldier) {
            return true;
        }
    }
    return false;
}

void Position::generate_pseudo(MoveList& list) const noexcept {
    const Color us = side_;
    const auto& lands = tables::kCanLand[static_cast<int>(us)];
    const auto& palace = tables::kPalace[static_cast<int>(us)];
    const auto& own_half = tables::kOwnHalf[static_cast<int>(us)];
    const int first = static_cast<int>(us) * 16;
    for (int id = first; id < first + 16; ++id) {
        const Square from = squares_[static_cast<std::size_t>(id)];
        if (from == 0) {
            continue;
        }
        auto add = [&](int to) { list.push(Move(from, static_cast<Square>(to))); };
        switch (kind_of(board_[from])) {
            case Kind::chariot:
                for (int direction : kOrthogonal) {
                    int to = from + direction;
                    for (; board_[to] == kEmpty; to += direction) {
                        add(to);
                    }
                    if (lands[board_[to]]) {
                        add(to);
                    }
                }
                break;
            case Kind::cannon:
                for (int direction : kOrthogonal) {
                    int to = from + direction;
                    for (; board_[to] == kEmpty; to += direction) {
                        add(to);
                    }
                    if (board_[to] == kOffBoard) {
                        continue;
                    }
                    do {
                        to += direction;
                    } while (board_[to] == kEmpty);
                    if (lands[board_[to]]) {
                        add(to);
                    }
                }
                break;
            case Kind::horse:
                for (std::size_t i = 0; i < kOrthogonal.size(); ++i) {
                    if (board_[from + kOrthogonal[i]] != kEmpty) {
                        continue;
                    }
                    for (int jump : kHorseTargets[i]) {
                        if (lands[board_[from + jump]]) {
                            add(from + jump);
                        }
                    }
                }
                break;
            case Kind::soldier: {
                const int ahead = from + forward(us);
                if (lands[board_[ahead]]) {
                    add(ahead);
                }
                // Only after crossing the river may a soldier also step sideways.
                if (crossed_river(us, from)) {
                    if (lands[board_[from + 1]]) {
                        add(from + 1);
                    }
                    if (lands[board_[from - 1]]) {
                        add(from - 1);
                    }
                }
                break;
            }
            case Kind::elephant:
                // Two points diagonally, never across the river, blocked by the "elephant eye".
                for (int direction : kDiagonal) {
                    const int to = from + 2 * direction;
                    if (own_half[to] && board_[from + direction] == kEmpty && lands[board_[to]]) {
                        add(to);
                    }
                }
                break;
            case Kind::advisor:
                for (int direction : kDiagonal) {
                    if (palace[from + direction] && lands[board_[from + direction]]) {
                        add(from + direction);
                    }
                }
                break;
            case Kind::general:
                for (int direction : kOrthogonal) {
                    if (palace[from + direction] && lands[board_[from + direction]]) {
                        add(from + direction);
                    }
                }
                break;
            case Kind::none:
                break;
        }
    }
}

bool Position::move_is_safe(Move move) const noexcept {
    // Play the move on the board, look from the general outward, and restore the two cells.
    const Square from = move.from();
    const Square to = move.to();
    const Piece moved = board_[from];
    const Piece captured = board_[to];
    const int us = static_cast<int>(side_);
    const Square general = generals_[us];
    board_[to] = moved;
    board_[from] = kEmpty;
    if (from == general) {
        generals_[us] = to;
    }
    const bool safe = !general_attacked(side_);
    generals_[us] = general;
    board_[from] = moved;
    board_[to] = captured;
    return safe;
}

bool Position::keeps_general_safe(Move move, Square general, bool in_check) const noexcept {
    // Out of check, only a move of the general or one from or to a square near it can expose it
    // (near_general); every other move is legal without a probe.
    return (!in_check && move.from() != general && !near_general(move.from(), general) &&
            !near_general(move.to(), general)) ||
           move_is_safe(move);
}

void legal_moves(const Position& position, MoveList& list) noexcept {
    MoveList pseudo;
    position.generate_pseudo(pseudo);
    list.clear();
    const Square general = position.general(position.side_);
    const bool checked = position.general_attacked(position.side_);
    for (Move move : pseudo) {
        if (position.keeps_general_safe(move, general, checked)) {
            list.push(move);
        }
    }
}

void legal_moves_to(const Position& position, Square to, MoveList& list) noexcept {
    MoveList pseudo;
    position.generate_pseudo(pseudo);
    list.clear();
    const Square general = position.general(position.side_);
    const bool checked = position.general_attacked(position.side_);
    for (Move move : pseudo) {
        if (move.to() == to && position.keeps_general_safe(move, general, checked)) {
            list.push(move);
        }
    }
}

bool has_legal_move(const Position& position) noexcept {
    MoveList pseudo;
    position.generate_pseudo(pseudo);
    const Square general = position.general(position.side_);
    const bool checked = position.general_attacked(position.side_);
    for (Move move : pseudo) {
        if (position.keeps_general_safe(move, general, checked)) {
            return true;
        }
    }
    return false;
}

bool is_legal(const Position& position, Move move) noexcept {
    MoveList pseudo;
    position.generate_pseudo(pseudo);
    for (Move candidate : pseudo) {
        if (candidate == move) {
            return position.keeps_general_safe(move, position.general(position.side_),
                                               position.general_attacked(position.side_));
        }
    }
    return false;
}

bool is_pseudo_legal(const Position& position, Move move) noexcept {
    MoveList pseudo;
    position.generate_pseudo(pseudo);
    for (Move candidate : pseudo) {
        if (candidate == move) {
            return true;
        }
    }
    return false;
}

Position::Undo Position::play(Move move) noexcept {
    const Square from = move.from();
    const Square to = move.to();
    const Piece captured = board_[to];
    const Undo undo{captured, ids_[to], plies_since_capture_, hash_};
    const Piece piece = board_[from];
    const int id = ids_[from];
    const auto& keys = tables::kZobrist.pieces;
    if (captured != kEmpty) {
        squares_[ids_[to]] = 0;
        hash_ ^= keys[captured][to];
        plies_since_capture_ = 0;
    } else {
        ++plies_since_capture_;
    }
    board_[to] = piece;
    ids_[to] = static_cast<std::uint8_t>(id);
    board_[from] = kEmpty;
    squares_[static_cast<std::size_t>(id)] = to;
    hash_ ^= keys[piece][from] ^ keys[piece][to] ^ tables::kZobrist.black_to_move;
    if (kind_of(piece) == Kind::general) {
        generals_[static_cast<int>(side_)] = to;
    }
    if (side_ == Color::black) {
        ++fullmove_;
    }
    side_ = other(side_);
    return undo;
}

void Position::take_back(Move move, const Undo& undo) noexcept {
    const Square from = move.from();
    const Square to = move.to();
    side_ = other(side_);
    if (side_ == Color::black) {
        --fullmove_;
    }
    const Piece piece = board_[to];
    const int id = ids_[to];
    board_[from] = piece;
    ids_[from] = static_cast<std::uint8_t>(id);
    squares_[static_cast<std::size_t>(id)] = from;
    board_[to] = undo.captured;
    ids_[to] = undo.captured_id;  // what play() found there, a capture's id or a stale byte
    if (undo.captured != kEmpty) {
        squares_[undo.captured_id] = to;
    }
    if (kind_of(piece) == Kind::general) {
        generals_[static_cast<int>(side_)] = from;
    }
    plies_since_capture_ = undo.plies_since_capture;
    hash_ = undo.hash;
}

Position Position::after(Move move) const noexcept {
    Position next = *this;
    next.play(move);
    return next;
}

Position Position::with_side_to_move(Color color) const noexcept {
    Position copy = *this;
    if (copy.side_ != color) {
        copy.side_ = color;
        copy.hash_ ^= tables::kZobrist.black_to_move;
    }
    return copy;
}

std::uint64_t perft_in_place(Position& position, int depth) noexcept {
    if (depth <= 0) {
        return 1;
    }
    MoveList list;
    legal_moves(position, list);
    if (depth == 1) {
        return static_cast<std::uint64_t>(list.size());
    }
    std::uint64_t nodes = 0;
    for (Move move : list) {
        const Position::Undo undo = position.play(move);
        nodes += perft_in_place(position, depth - 1);
        position.take_back(move, undo);
    }
    return nodes;
}

std::uint64_t perft(const Position& position, int depth) noexcept {
    Position walked = position;
    const std::uint64_t nodes = perft_in_place(walked, depth);
    // Every take_back undid its play exactly (hash, counters and identities too).
    ARBITER_ASSERT(walked == position);
    return nodes;
}

}  // namespace arbiter::rules::xiangqi
