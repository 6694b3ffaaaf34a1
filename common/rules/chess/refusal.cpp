#include "common/rules/chess/refusal.hpp"

#include <array>

#include "common/rules/chess/attacks.hpp"
#include "common/rules/chess/notation.hpp"

namespace arbiter::rules::chess {

namespace {

/// Whether the piece on `from` moves to `to` by its own movement rules (FIDE 3.2-3.7), the
/// pieces in between blocking, whether or not its king would then be in check. Castling is
/// judged apart (why_not_castling).
bool reaches(const Position& position, Square from, Square to) {
    const Piece piece = position.piece_on(from);
    const Color us = color_of(piece);
    const Bitboard target = square_bb(to);
    const Bitboard occupied = position.occupied();
    if (position.pieces(us) & target) {
        return false;
    }
    switch (type_of(piece)) {
        case pawn: {
            const int up = us == white ? 8 : -8;
            if (pawn_attacks(us, from) & target) {
                return (position.pieces(~us) & target) != 0 || to == position.en_passant_square();
            }
            if (to == from + up) {
                return (occupied & target) == 0;
            }
            const int start_rank = us == white ? 1 : 6;
            return rank_of(from) == start_rank && to == from + 2 * up &&
                   (occupied & (square_bb(from + up) | target)) == 0;
        }
        case knight:
            return (knight_attacks(from) & target) != 0;
        case bishop:
            return (bishop_attacks(from, occupied) & target) != 0;
        case rook:
            return (rook_attacks(from, occupied) & target) != 0;
        case queen:
            return (queen_attacks(from, occupied) & target) != 0;
        case king:
            return (king_attacks(from) & target) != 0;
        default:
            return false;
    }
}

/// Whether the mover's king stands attacked once the piece on `from` has gone to `to` (a move
/// that reaches()).
bool leaves_king_attacked(const Position& position, Square from, Square to) {
    const Color us = position.side_to_move();
    const Piece piece = position.piece_on(from);
    const int last_rank = us == white ? 7 : 0;
    Move move(from, to);
    if (type_of(piece) == pawn && to == position.en_passant_square()) {
        move = Move(from, to, MoveKind::en_passant);
    } else if (type_of(piece) == pawn && rank_of(to) == last_rank) {
        move = Move(from, to, MoveKind::promotion, queen);
    }
    const Position next = position.after(move);
    return (next.attackers_to(next.king_square(us), next.occupied()) & next.pieces(~us)) != 0;
}

std::string check_reason(const Position& position, PieceType moving) {
    // A king that moves is never "still" in check: it walks into one.
    return position.in_check() && moving != king ? "your king is in check"
                                                 : "your king would be in check";
}

}  // namespace

std::string_view piece_name(PieceType type) noexcept {
    static constexpr std::array<std::string_view, 7> kNames = {"",     "pawn",  "knight", "bishop",
                                                               "rook", "queen", "king"};
    return kNames[type];
}

std::string why_not_castling(const Position& position, bool king_side) {
    const Color us = position.side_to_move();
    const int rank = us == white ? 0 : 7;
    const int right = us == white ? (king_side ? white_king_side : white_queen_side)
                                  : (king_side ? black_king_side : black_queen_side);
    if ((position.castling_rights() & right) == 0) {
        return "castling is no longer allowed there (the king or that rook has moved)";
    }
    // FIDE 3.8.2: the squares between king and rook empty; the king not in check, not crossing
    // or landing on an attacked square.
    Bitboard between_squares = 0;
    for (int file = king_side ? 5 : 1; file <= (king_side ? 6 : 3); ++file) {
        between_squares |= square_bb(make_square(file, rank));
    }
    if (position.occupied() & between_squares) {
        return "the squares between the king and the rook must be empty to castle";
    }
    if (position.in_check()) {
        return "you cannot castle out of check";
    }
    const auto attacked = [&](int file) {
        return (position.attackers_to(make_square(file, rank), position.occupied()) &
                position.pieces(~us)) != 0;
    };
    if (attacked(king_side ? 5 : 3)) {
        return "the king cannot castle through an attacked square";
    }
    if (attacked(king_side ? 6 : 2)) {
        return "your king would be in check";
    }
    return "castling is not legal here";
}

std::string why_illegal(const Position& position, Square from, Square to) {
    const Piece piece = position.piece_on(from);
    const PieceType type = type_of(piece);
    const Color us = color_of(piece);
    if (position.pieces(us) & square_bb(to)) {
        return "your own piece stands on " + square_text(to);
    }
    const int home = us == white ? 0 : 7;
    if (type == king && from == make_square(4, home) && rank_of(to) == home &&
        (file_of(to) == 6 || file_of(to) == 2)) {
        return why_not_castling(position, file_of(to) == 6);
    }
    if (!reaches(position, from, to)) {
        return "a " + std::string(piece_name(type)) + " cannot move there";
    }
    if (leaves_king_attacked(position, from, to)) {
        return check_reason(position, type);
    }
    return "not a legal move here";
}

std::string why_none_reaches(const Position& position, PieceType type, Square to, int from_file,
                             int from_rank) {
    const std::string square = square_text(to);
    if (position.pieces(position.side_to_move()) & square_bb(to)) {
        return "your own piece stands on " + square;
    }
    for (Bitboard b = position.pieces(position.side_to_move(), type); b;) {
        const Square from = pop_lsb(b);
        if ((from_file >= 0 && file_of(from) != from_file) ||
            (from_rank >= 0 && rank_of(from) != from_rank)) {
            continue;
        }
        if (reaches(position, from, to)) {
            // It reaches the square, and still no legal move does: its king would be in check.
            return check_reason(position, type);
        }
    }
    return "no " + std::string(piece_name(type)) + " can reach " + square;
}

}  // namespace arbiter::rules::chess
