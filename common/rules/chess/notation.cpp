#include "common/rules/chess/notation.hpp"

#include "common/rules/chess/refusal.hpp"

namespace arbiter::rules::chess {

namespace {

constexpr std::string_view kSanPieces = "  NBRQK";

Unexpected<RulesError> fail(std::string_view text, std::string_view why) {
    return unexpected(RulesError{std::string(text) + ": " + std::string(why)});
}

bool is_file(char c) {
    return c >= 'a' && c <= 'h';
}
bool is_rank(char c) {
    return c >= '1' && c <= '8';
}

PieceType promotion_from_letter(char c) {
    switch (c) {
        case 'q':
            return queen;
        case 'r':
            return rook;
        case 'b':
            return bishop;
        case 'n':
            return knight;
        default:
            return no_piece_type;
    }
}

/// The text without trailing check, mate and annotation marks.
std::string_view without_suffixes(std::string_view text) {
    while (!text.empty() &&
           (text.back() == '+' || text.back() == '#' || text.back() == '!' || text.back() == '?')) {
        text.remove_suffix(1);
    }
    return text;
}

}  // namespace

std::string square_text(Square square) {
    return {static_cast<char>('a' + file_of(square)), static_cast<char>('1' + rank_of(square))};
}

std::string to_uci(Move move) {
    // One string, its characters set in place: the server names every legal move this way for
    // each `moved` (square_text() twice and a concatenation cost three strings a move).
    const bool promotion = move.kind() == MoveKind::promotion;
    std::string text(promotion ? 5 : 4, ' ');
    text[0] = static_cast<char>('a' + file_of(move.from()));
    text[1] = static_cast<char>('1' + rank_of(move.from()));
    text[2] = static_cast<char>('a' + file_of(move.to()));
    text[3] = static_cast<char>('1' + rank_of(move.to()));
    if (promotion) {
        text[4] = " pnbrqk"[move.promotion()];
    }
    return text;
}

bool is_uci_shaped(std::string_view text) noexcept {
    return (text.size() == 4 || text.size() == 5) && is_file(text[0]) && is_rank(text[1]) &&
           is_file(text[2]) && is_rank(text[3]);
}

Expected<Move, RulesError> parse_uci(const Position& position, std::string_view text,
                                     const MoveList& legal) {
    if (text.size() != 4 && text.size() != 5) {
        return fail(text, "not a UCI move (expected e.g. e2e4 or e7e8q)");
    }
    if (!is_file(text[0]) || !is_rank(text[1]) || !is_file(text[2]) || !is_rank(text[3])) {
        return fail(text, "not a UCI move (expected e.g. e2e4 or e7e8q)");
    }
    const PieceType promotion = text.size() == 5 ? promotion_from_letter(text[4]) : no_piece_type;
    if (text.size() == 5 && promotion == no_piece_type) {
        return fail(text, "the promotion letter must be one of q, r, b, n (lowercase)");
    }
    const Square from = make_square(text[0] - 'a', text[1] - '1');
    const Square to = make_square(text[2] - 'a', text[3] - '1');
    if (position.piece_on(from) == no_piece) {
        return fail(text, "there is no piece on " + square_text(from));
    }
    if (color_of(position.piece_on(from)) != position.side_to_move()) {
        return fail(text, "the piece on " + square_text(from) + " belongs to the opponent");
    }
    for (const Move move : legal) {
        if (move.from() != from || move.to() != to) {
            continue;
        }
        if (move.kind() != MoveKind::promotion) {
            if (promotion != no_piece_type) {
                return fail(text, "only a pawn reaching the last rank promotes");
            }
            return move;
        }
        if (promotion == no_piece_type) {
            return fail(text, "a promotion must name its piece (q, r, b or n)");
        }
        if (move.promotion() == promotion) {
            return move;
        }
    }
    return fail(text, why_illegal(position, from, to));
}

std::string to_san(const Position& position, Move move) {
    const Square from = move.from();
    const Square to = move.to();
    const PieceType type = type_of(position.piece_on(from));
    std::string san;
    if (move.kind() == MoveKind::castling) {
        san = to > from ? "O-O" : "O-O-O";
    } else {
        const bool capture =
            position.piece_on(to) != no_piece || move.kind() == MoveKind::en_passant;
        if (type == pawn) {
            if (capture) {
                san += static_cast<char>('a' + file_of(from));
            }
        } else {
            san += kSanPieces[type];
            // Disambiguate by file, else by rank, else by both (PGN standard 8.2.3.4).
            MoveList legal;
            legal_moves(position, legal);
            bool clash = false;
            bool same_file = false;
            bool same_rank = false;
            for (const Move other : legal) {
                if (other.to() != to || other.from() == from ||
                    type_of(position.piece_on(other.from())) != type) {
                    continue;
                }
                clash = true;
                same_file |= file_of(other.from()) == file_of(from);
                same_rank |= rank_of(other.from()) == rank_of(from);
            }
            if (clash) {
                if (!same_file) {
                    san += static_cast<char>('a' + file_of(from));
                } else if (!same_rank) {
                    san += static_cast<char>('1' + rank_of(from));
                } else {
                    san += square_text(from);
                }
            }
        }
        if (capture) {
            san += 'x';
        }
        san += square_text(to);
        if (move.kind() == MoveKind::promotion) {
            san += '=';
            san += kSanPieces[move.promotion()];
        }
    }
    const Position next = position.after(move);
    if (next.in_check()) {
        san += has_legal_move(next) ? '+' : '#';
    }
    return san;
}

Expected<Move, RulesError> parse_san(const Position& position, std::string_view text) {
    std::string_view core = without_suffixes(text);
    // FIDE Appendix C.9.3: "e.p." may be appended to an en-passant capture ("exd6 e.p.").
    const bool en_passant_mark = core.ends_with("e.p.");
    if (en_passant_mark) {
        core.remove_suffix(4);
        if (core.ends_with(' ')) {
            core.remove_suffix(1);
        }
        core = without_suffixes(core);
    }
    MoveList legal;
    legal_moves(position, legal);
    if (core == "O-O" || core == "0-0" || core == "O-O-O" || core == "0-0-0") {
        const bool king_side = core.size() == 3;
        for (const Move move : legal) {
            if (move.kind() == MoveKind::castling && (move.to() > move.from()) == king_side) {
                return move;
            }
        }
        return fail(text, why_not_castling(position, king_side));
    }
    PieceType type = pawn;
    if (!core.empty() && kSanPieces.find(core.front()) != std::string_view::npos &&
        core.front() != ' ') {
        type = PieceType(kSanPieces.find(core.front()));
        core.remove_prefix(1);
    }
    PieceType promotion = no_piece_type;
    if (type == pawn && core.size() >= 2) {
        const char last = core.back();
        const std::size_t index = kSanPieces.find(last);
        if (last != ' ' && last != 'K' && index != std::string_view::npos) {
            promotion = PieceType(index);
            core.remove_suffix(core[core.size() - 2] == '=' ? 2 : 1);
        }
    }
    if (core.size() < 2 || !is_file(core[core.size() - 2]) || !is_rank(core.back())) {
        return fail(text, "not a move in any notation");
    }
    const Square to = make_square(core[core.size() - 2] - 'a', core.back() - '1');
    core.remove_suffix(2);
    const bool capture_mark = !core.empty() && core.back() == 'x';
    if (capture_mark) {
        core.remove_suffix(1);
    }
    int from_file = -1;
    int from_rank = -1;
    if (!core.empty() && is_file(core.front())) {
        from_file = core.front() - 'a';
        core.remove_prefix(1);
    }
    if (!core.empty() && is_rank(core.front())) {
        from_rank = core.front() - '1';
        core.remove_prefix(1);
    }
    if (!core.empty()) {
        return fail(text, "not a move in any notation");
    }
    if (type == pawn && from_file < 0) {
        from_file = file_of(to);  // a pawn capture must name its file ("exd5")
    }
    if (capture_mark && position.piece_on(to) == no_piece &&
        !(type == pawn && to == position.en_passant_square())) {
        return fail(text, "there is nothing to capture on " + square_text(to));
    }
    Move found{};
    int matches = 0;
    std::string candidates;
    for (const Move move : legal) {
        // "x" claims a capture (FIDE Appendix C.9): on a move that takes nothing it is an error,
        // though a capture written without it is tolerated.
        const bool capture =
            position.piece_on(to) != no_piece || move.kind() == MoveKind::en_passant;
        if (move.to() != to || type_of(position.piece_on(move.from())) != type ||
            move.kind() == MoveKind::castling || (capture_mark && !capture) ||
            (en_passant_mark && move.kind() != MoveKind::en_passant) ||
            (from_file >= 0 && file_of(move.from()) != from_file) ||
            (from_rank >= 0 && rank_of(move.from()) != from_rank)) {
            continue;
        }
        const PieceType promoted =
            move.kind() == MoveKind::promotion ? move.promotion() : no_piece_type;
        if (promoted == promotion || (promotion == no_piece_type && promoted == queen)) {
            if (promoted != promotion) {
                return fail(text, "a promotion must name its piece (=Q, =R, =B or =N)");
            }
            found = move;
            ++matches;
            candidates += (candidates.empty() ? "" : " or ") + to_san(position, move);
        }
    }
    if (matches > 1) {
        return fail(text, "ambiguous: " + candidates);
    }
    if (matches == 0) {
        return fail(text, why_none_reaches(position, type, to, from_file, from_rank));
    }
    return found;
}

}  // namespace arbiter::rules::chess
