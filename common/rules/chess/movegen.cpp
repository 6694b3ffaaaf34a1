#include "common/rules/chess/movegen.hpp"

namespace arbiter::rules::chess {

namespace {

template <Color Us>
constexpr Bitboard push(Bitboard b) noexcept {
    return Us == white ? b << 8 : b >> 8;
}

/// Everything a generator needs to know about the side to move's king safety.
struct KingSafety {
    Square king;
    Bitboard checkers;
    Bitboard pinned;
    /// Destinations that answer a single check (block or capture); every square otherwise.
    Bitboard check_mask;
};

template <Color Us>
KingSafety king_safety(const Position& pos) noexcept {
    constexpr Color kThem = ~Us;
    KingSafety safety{};
    safety.king = pos.king_square(Us);
    const Bitboard occupied = pos.occupied();
    safety.checkers = pos.attackers_to(safety.king, occupied) & pos.pieces(kThem);
    safety.check_mask = safety.checkers ? between(safety.king, lsb(safety.checkers)) : ~Bitboard{0};
    // A piece is pinned when it alone stands between our king and an enemy slider that would
    // otherwise attack the king (FIDE 3.9: a move may not expose one's own king).
    Bitboard snipers =
        (rook_attacks(safety.king, pos.pieces(kThem)) & pos.pieces(kThem, rook, queen)) |
        (bishop_attacks(safety.king, pos.pieces(kThem)) & pos.pieces(kThem, bishop, queen));
    while (snipers) {
        const Square sniper = pop_lsb(snipers);
        const Bitboard blockers = between(safety.king, sniper) & occupied & ~square_bb(sniper);
        if (blockers && !more_than_one(blockers) && (blockers & pos.pieces(Us))) {
            safety.pinned |= blockers;
        }
    }
    return safety;
}

void add_promotions(MoveList& list, Square from, Square to) noexcept {
    list.push(Move(from, to, MoveKind::promotion, queen));
    list.push(Move(from, to, MoveKind::promotion, rook));
    list.push(Move(from, to, MoveKind::promotion, bishop));
    list.push(Move(from, to, MoveKind::promotion, knight));
}

/// Pawn moves of the pawns in `pawns` whose destinations lie in `allowed`.
template <Color Us>
void pawn_moves(const Position& pos, Bitboard pawns, Bitboard allowed, MoveList& list) noexcept {
    constexpr int kUp = Us == white ? 8 : -8;
    constexpr Bitboard kLastRank = rank_bb(Us == white ? 7 : 0);
    constexpr Bitboard kDoubleRank = rank_bb(Us == white ? 3 : 4);
    const Bitboard empty = ~pos.occupied();
    const Bitboard enemies = pos.pieces(~Us) & allowed;

    const Bitboard single = push<Us>(pawns) & empty;
    Bitboard double_step = push<Us>(single) & empty & kDoubleRank & allowed;
    Bitboard single_ok = single & allowed;
    Bitboard left = push<Us>(pawns & ~kFileABB) >> 1 & enemies;
    Bitboard right = push<Us>(pawns & ~kFileHBB) << 1 & enemies;

    for (Bitboard b = single_ok & kLastRank; b;) {
        const Square to = pop_lsb(b);
        add_promotions(list, to - kUp, to);
    }
    for (Bitboard b = left & kLastRank; b;) {
        const Square to = pop_lsb(b);
        add_promotions(list, to - kUp + 1, to);
    }
    for (Bitboard b = right & kLastRank; b;) {
        const Square to = pop_lsb(b);
        add_promotions(list, to - kUp - 1, to);
    }
    for (single_ok &= ~kLastRank; single_ok;) {
        const Square to = pop_lsb(single_ok);
        list.push(Move(to - kUp, to));
    }
    while (double_step) {
        const Square to = pop_lsb(double_step);
        list.push(Move(to - 2 * kUp, to));
    }
    for (left &= ~kLastRank; left;) {
        const Square to = pop_lsb(left);
        list.push(Move(to - kUp + 1, to));
    }
    for (right &= ~kLastRank; right;) {
        const Square to = pop_lsb(right);
        list.push(Move(to - kUp - 1, to));
    }
}

template <Color Us>
void en_passant_moves(const Position& pos, const KingSafety& safety, MoveList& list) noexcept {
    const Square target = pos.en_passant_square();
    if (target == kNoSquare) {
        return;
    }
    const Square captured = target + (Us == white ? -8 : 8);
    Bitboard candidates = pawn_attacks(~Us, target) & pos.pieces(Us, pawn);
    while (candidates) {
        const Square from = pop_lsb(candidates);
        // Two pawns leave their squares at once, which may open a rank or diagonal to our king
        // (the rank-pin case) or fail to answer a check: test the resulting position directly.
        const Bitboard occupied =
            (pos.occupied() ^ square_bb(from) ^ square_bb(captured)) | square_bb(target);
        const Bitboard attackers =
            pos.attackers_to(safety.king, occupied) & pos.pieces(~Us) & ~square_bb(captured);
        if (!attackers) {
            list.push(Move(from, target, MoveKind::en_passant));
        }
    }
}

template <Color Us>
void castling_moves(const Position& pos, MoveList& list) noexcept {
    constexpr int kRank = Us == white ? 0 : 7;
    constexpr int kKingSideRight = Us == white ? white_king_side : black_king_side;
    constexpr int kQueenSideRight = Us == white ? white_queen_side : black_queen_side;
    const Square king = make_square(4, kRank);
    const Bitboard occupied = pos.occupied();
    auto attacked = [&](int file) {
        return (pos.attackers_to(make_square(file, kRank), occupied) & pos.pieces(~Us)) != 0;
    };
    // FIDE 3.8.2: squares between king and rook empty; the king not in check (checked by the
    // caller), not crossing or landing on an attacked square.
    if ((pos.castling_rights() & kKingSideRight) &&
        !(occupied & (square_bb(make_square(5, kRank)) | square_bb(make_square(6, kRank)))) &&
        !attacked(5) && !attacked(6)) {
        list.push(Move(king, make_square(6, kRank), MoveKind::castling));
    }
    if ((pos.castling_rights() & kQueenSideRight) &&
        !(occupied & (square_bb(make_square(1, kRank)) | square_bb(make_square(2, kRank)) |
                      square_bb(make_square(3, kRank)))) &&
        !attacked(3) && !attacked(2)) {
        list.push(Move(king, make_square(2, kRank), MoveKind::castling));
    }
}

template <Color Us>
void generate(const Position& pos, MoveList& list) noexcept {
    const KingSafety safety = king_safety<Us>(pos);
    const Bitboard ours = pos.pieces(Us);
    const Bitboard occupied = pos.occupied();

    // King steps: the destination must not be attacked once the king has left its square.
    const Bitboard without_king = occupied ^ square_bb(safety.king);
    for (Bitboard b = king_attacks(safety.king) & ~ours; b;) {
        const Square to = pop_lsb(b);
        if (!(pos.attackers_to(to, without_king) & pos.pieces(~Us))) {
            list.push(Move(safety.king, to));
        }
    }
    if (more_than_one(safety.checkers)) {
        return;  // double check: only the king may move
    }
    const Bitboard allowed = ~ours & safety.check_mask;
    const Bitboard free = ~safety.pinned;

    pawn_moves<Us>(pos, pos.pieces(Us, pawn) & free, allowed, list);
    for (Bitboard b = pos.pieces(Us, knight) & free; b;) {
        const Square from = pop_lsb(b);
        for (Bitboard t = knight_attacks(from) & allowed; t;) {
            list.push(Move(from, pop_lsb(t)));
        }
    }
    for (Bitboard b = pos.pieces(Us, bishop, queen); b;) {
        const Square from = pop_lsb(b);
        Bitboard targets = bishop_attacks(from, occupied) & allowed;
        if (safety.pinned & square_bb(from)) {
            targets &= line_through(safety.king, from);
        }
        while (targets) {
            list.push(Move(from, pop_lsb(targets)));
        }
    }
    for (Bitboard b = pos.pieces(Us, rook, queen); b;) {
        const Square from = pop_lsb(b);
        Bitboard targets = rook_attacks(from, occupied) & allowed;
        if (safety.pinned & square_bb(from)) {
            targets &= line_through(safety.king, from);
        }
        while (targets) {
            list.push(Move(from, pop_lsb(targets)));
        }
    }
    // A pinned pawn may still move along its pin line (a pinned knight never can).
    for (Bitboard b = pos.pieces(Us, pawn) & safety.pinned; b;) {
        const Square from = pop_lsb(b);
        pawn_moves<Us>(pos, square_bb(from), allowed & line_through(safety.king, from), list);
    }
    en_passant_moves<Us>(pos, safety, list);
    if (!safety.checkers) {
        castling_moves<Us>(pos, list);
    }
}

}  // namespace

void legal_moves(const Position& position, MoveList& list) noexcept {
    list.clear();
    if (position.side_to_move() == white) {
        generate<white>(position, list);
    } else {
        generate<black>(position, list);
    }
}

bool has_legal_move(const Position& position) noexcept {
    MoveList list;
    legal_moves(position, list);
    return !list.empty();
}

std::uint64_t perft(const Position& position, int depth) noexcept {
    if (depth <= 0) {
        return 1;
    }
    MoveList list;
    legal_moves(position, list);
    if (depth == 1) {
        return static_cast<std::uint64_t>(list.size());
    }
    std::uint64_t nodes = 0;
    for (const Move move : list) {
        nodes += perft(position.after(move), depth - 1);
    }
    return nodes;
}

}  // namespace arbiter::rules::chess
