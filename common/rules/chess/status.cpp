#include "common/rules/chess/status.hpp"

#include "common/rules/chess/movegen.hpp"

namespace arbiter::rules::chess {

namespace {

/// Bishops only (besides kings), all on light squares or all on dark squares; true for none.
bool only_same_coloured_bishops(Bitboard non_king_pieces, Bitboard bishops) noexcept {
    return non_king_pieces == bishops &&
           ((bishops & kDarkSquaresBB) == 0 || (bishops & ~kDarkSquaresBB) == 0);
}

}  // namespace

bool insufficient_material(const Position& position) noexcept {
    const Bitboard others = position.occupied() & ~position.pieces(king);
    if (only_same_coloured_bishops(others, position.pieces(bishop))) {
        return true;  // K v K, K+B v K, and bishops on one colour only
    }
    return others == position.pieces(knight) && popcount(others) == 1;  // K+N v K
}

bool can_mate(const Position& position, Color color) noexcept {
    const Bitboard ours = position.pieces(color) & ~position.pieces(king);
    const Bitboard theirs = position.pieces(~color) & ~position.pieces(king);
    if (ours == 0) {
        return false;
    }
    if (ours == position.pieces(color, knight) && popcount(ours) == 1) {
        // K+N mates only with help of an enemy piece that blocks its own king's escape.
        return theirs != 0;
    }
    const Bitboard all_bishops = position.pieces(bishop);
    if (ours == position.pieces(color, bishop) &&
        only_same_coloured_bishops(ours | theirs, all_bishops)) {
        // Bishops of one colour never attack the other colour's squares; a mate needs an enemy
        // blocker on one of those, and the opponent has none to offer.
        return false;
    }
    return true;
}

Square legal_en_passant_square(const Position& position) noexcept {
    const Square target = position.en_passant_square();
    if (target == kNoSquare || !(pawn_attacks(~position.side_to_move(), target) &
                                 position.pieces(position.side_to_move(), pawn))) {
        return kNoSquare;
    }
    MoveList legal;
    legal_moves(position, legal);
    for (const Move move : legal) {
        if (move.kind() == MoveKind::en_passant) {
            return target;
        }
    }
    return kNoSquare;
}

}  // namespace arbiter::rules::chess
