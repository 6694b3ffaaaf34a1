#include "common/rules/chess/position.hpp"

namespace arbiter::rules::chess {

namespace {

/// Rights that survive a move touching each square: moving or capturing on a king or rook home
/// square loses the matching rights (FIDE 3.8.2.1: the king and that rook must not have moved).
constexpr std::array<std::uint8_t, 64> make_castling_masks() {
    std::array<std::uint8_t, 64> masks{};
    for (auto& mask : masks) {
        mask = all_castling;
    }
    masks[make_square(4, 0)] = all_castling & ~(white_king_side | white_queen_side);
    masks[make_square(7, 0)] = all_castling & ~white_king_side;
    masks[make_square(0, 0)] = all_castling & ~white_queen_side;
    masks[make_square(4, 7)] = all_castling & ~(black_king_side | black_queen_side);
    masks[make_square(7, 7)] = all_castling & ~black_king_side;
    masks[make_square(0, 7)] = all_castling & ~black_queen_side;
    return masks;
}

constexpr std::array<std::uint8_t, 64> kCastlingMasks = make_castling_masks();

}  // namespace

void Position::put(Piece piece, Square square) noexcept {
    const Bitboard bit = square_bb(square);
    board_[square] = piece;
    by_type_[no_piece_type] |= bit;
    by_type_[type_of(piece)] |= bit;
    by_color_[color_of(piece)] |= bit;
}

void Position::remove(Square square) noexcept {
    const Bitboard bit = square_bb(square);
    const Piece piece = board_[square];
    board_[square] = no_piece;
    by_type_[no_piece_type] ^= bit;
    by_type_[type_of(piece)] ^= bit;
    by_color_[color_of(piece)] ^= bit;
}

void Position::move_piece(Square from, Square to) noexcept {
    const Bitboard both = square_bb(from) | square_bb(to);
    const Piece piece = board_[from];
    board_[from] = no_piece;
    board_[to] = piece;
    by_type_[no_piece_type] ^= both;
    by_type_[type_of(piece)] ^= both;
    by_color_[color_of(piece)] ^= both;
}

Position Position::after(Move move) const noexcept {
    Position next = *this;
    const Square from = move.from();
    const Square to = move.to();
    const Color us = side_;
    const PieceType moving = type_of(board_[from]);
    const bool capture = board_[to] != no_piece || move.kind() == MoveKind::en_passant;

    next.en_passant_ = kNoSquare;
    next.halfmove_clock_ = (capture || moving == pawn) ? 0 : halfmove_clock_ + 1;
    next.castling_ = castling_ & kCastlingMasks[from] & kCastlingMasks[to];
    if (board_[to] != no_piece) {
        next.remove(to);
    }
    switch (move.kind()) {
        case MoveKind::normal:
            next.move_piece(from, to);
            if (moving == pawn && (from ^ to) == 16) {
                // FEN records the square behind every double step (PGN standard 16.1.3.4).
                next.en_passant_ = static_cast<std::uint8_t>((from + to) / 2);
            }
            break;
        case MoveKind::promotion:
            next.remove(from);
            next.put(make_piece(us, move.promotion()), to);
            break;
        case MoveKind::en_passant:
            next.move_piece(from, to);
            next.remove(make_square(file_of(to), rank_of(from)));
            break;
        case MoveKind::castling: {
            next.move_piece(from, to);
            const bool king_side = to > from;
            const int rank = rank_of(from);
            next.move_piece(make_square(king_side ? 7 : 0, rank),
                            make_square(king_side ? 5 : 3, rank));
            break;
        }
    }
    next.side_ = ~us;
    if (us == black) {
        ++next.fullmove_number_;
    }
    return next;
}

}  // namespace arbiter::rules::chess
