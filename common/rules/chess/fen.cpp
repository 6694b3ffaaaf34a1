// FEN in and out. Parsing is strict because the text comes from untrusted clients: every field
// is checked and the position must be one that legal play could have produced as far as simple
// counting can tell (piece counts, pawn ranks, kings, check, castling and en-passant
// consistency). Four fields are accepted and mean clocks "0 1" (the EPD convention).
#include <algorithm>
#include <array>
#include <charconv>
#include <vector>

#include "common/rules/chess/position.hpp"

namespace arbiter::rules::chess {

namespace {

/// The largest fullmove number a FEN may carry.
constexpr int kMaxFullmove = 9999;

constexpr std::string_view kPieceLetters = " PNBRQK  pnbrqk";

Unexpected<RulesError> fail(std::string message) {
    return unexpected(RulesError{"bad FEN: " + std::move(message)});
}

std::vector<std::string_view> split_fields(std::string_view text) {
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(' ', start), text.size());
        fields.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return fields;
}

std::string square_name(Square square) {
    return {static_cast<char>('a' + file_of(square)), static_cast<char>('1' + rank_of(square))};
}

/// Writes `value` in decimal at `out`; returns the end.
char* put_number(char* out, int value) {
    std::array<char, 12> digits{};  // an int's sign and ten digits
    const char* const last = std::to_chars(digits.begin(), digits.end(), value).ptr;
    return std::copy(static_cast<const char*>(digits.data()), last, out);
}

bool parse_number(std::string_view text, int low, int high, int& value) {
    if (text.empty() || text.size() > 5 || (text.size() > 1 && text[0] == '0')) {
        return false;
    }
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc{} && end == text.data() + text.size() && value >= low && value <= high;
}

}  // namespace

/// Fills a Position field by field; a friend so that Position keeps its invariants private.
class FenParser {
  public:
    static Expected<Position, RulesError> parse(std::string_view fen);

  private:
    static Expected<void, RulesError> placement(std::string_view text, Position& pos);
    static Expected<void, RulesError> material(const Position& pos);
    static Expected<void, RulesError> castling(std::string_view text, Position& pos);
    static Expected<void, RulesError> en_passant(std::string_view text, Position& pos);
};

Expected<void, RulesError> FenParser::placement(std::string_view text, Position& pos) {
    int rank = 7;
    int file = 0;
    bool last_was_digit = false;
    for (const char c : text) {
        if (c == '/') {
            if (file != 8) {
                return fail("rank " + std::to_string(rank + 1) + " does not have 8 squares");
            }
            if (--rank < 0) {
                return fail("more than 8 ranks");
            }
            file = 0;
            last_was_digit = false;
        } else if (c >= '1' && c <= '8') {
            if (last_was_digit) {
                return fail("two digits in a row in rank " + std::to_string(rank + 1));
            }
            file += c - '0';
            last_was_digit = true;
        } else {
            const std::size_t index = kPieceLetters.find(c);
            if (c == ' ' || index == std::string_view::npos) {
                return fail(std::string("unknown piece letter '") + c + "'");
            }
            if (file >= 8) {
                return fail("rank " + std::to_string(rank + 1) + " has more than 8 squares");
            }
            pos.put(Piece(index), make_square(file, rank));
            ++file;
            last_was_digit = false;
        }
        if (file > 8) {
            return fail("rank " + std::to_string(rank + 1) + " has more than 8 squares");
        }
    }
    if (rank != 0 || file != 8) {
        return fail("the placement must describe 8 ranks of 8 squares");
    }
    return {};
}

Expected<void, RulesError> FenParser::material(const Position& pos) {
    for (const Color color : {white, black}) {
        const std::string name = color == white ? "white" : "black";
        if (popcount(pos.pieces(color, king)) != 1) {
            return fail(name + " must have exactly one king");
        }
        const int pawns = popcount(pos.pieces(color, pawn));
        if (pawns > 8) {
            return fail(name + " has more than 8 pawns");
        }
        if (popcount(pos.pieces(color)) > 16) {
            return fail(name + " has more than 16 pieces");
        }
        // Each piece beyond the starting set must be a promoted pawn (FIDE 3.7.5). A bishop never
        // leaves its square colour (FIDE 3.2), and a side starts with one bishop on each.
        const Bitboard bishops = pos.pieces(color, bishop);
        const int promoted = std::max(0, popcount(pos.pieces(color, queen)) - 1) +
                             std::max(0, popcount(pos.pieces(color, rook)) - 2) +
                             std::max(0, popcount(bishops & kDarkSquaresBB) - 1) +
                             std::max(0, popcount(bishops & ~kDarkSquaresBB) - 1) +
                             std::max(0, popcount(pos.pieces(color, knight)) - 2);
        if (promoted > 8 - pawns) {
            return fail(name + " has more promoted pieces than missing pawns");
        }
    }
    if (pos.pieces(pawn) & (rank_bb(0) | rank_bb(7))) {
        return fail("a pawn stands on the first or last rank");
    }
    return {};
}

Expected<void, RulesError> FenParser::castling(std::string_view text, Position& pos) {
    if (text == "-") {
        return {};
    }
    if (text.empty()) {
        return fail("castling field must be '-' or a subset of KQkq in that order");
    }
    constexpr std::string_view kOrder = "KQkq";
    std::size_t next = 0;
    for (const char c : text) {
        const std::size_t index = kOrder.find(c);
        if (index == std::string_view::npos || index < next) {
            return fail("castling field must be '-' or a subset of KQkq in that order");
        }
        next = index + 1;
        const Color color = index < 2 ? white : black;
        const int rank = color == white ? 0 : 7;
        const Square rook_home = make_square(index % 2 == 0 ? 7 : 0, rank);
        if (pos.piece_on(make_square(4, rank)) != make_piece(color, king)) {
            return fail(std::string("castling right '") + c +
                        "' needs the king on its home square");
        }
        if (pos.piece_on(rook_home) != make_piece(color, rook)) {
            return fail(std::string("castling right '") + c + "' needs a rook on " +
                        square_name(rook_home));
        }
        pos.castling_ |= static_cast<std::uint8_t>(1U << index);
    }
    return {};
}

Expected<void, RulesError> FenParser::en_passant(std::string_view text, Position& pos) {
    if (text == "-") {
        return {};
    }
    if (text.size() != 2 || text[0] < 'a' || text[0] > 'h' || text[1] < '1' || text[1] > '8') {
        return fail("en-passant field must be '-' or a square");
    }
    const Square target = make_square(text[0] - 'a', text[1] - '1');
    const Color mover = ~pos.side_;  // the side that made the double step
    if (relative_rank(mover, target) != 2) {
        return fail("en-passant square " + std::string(text) + " is not on the " +
                    (pos.side_ == white ? "6th" : "3rd") + " rank");
    }
    const int forward = mover == white ? 8 : -8;
    if (pos.piece_on(target + forward) != make_piece(mover, pawn)) {
        return fail("en-passant square " + std::string(text) +
                    " has no pawn in front of it that could have just moved two squares");
    }
    if (pos.piece_on(target) != no_piece || pos.piece_on(target - forward) != no_piece) {
        return fail("en-passant square " + std::string(text) +
                    " and the square behind it must be empty");
    }
    pos.en_passant_ = static_cast<std::uint8_t>(target);
    return {};
}

Expected<Position, RulesError> FenParser::parse(std::string_view fen) {
    while (!fen.empty() && (fen.front() == ' ' || fen.front() == '\t' || fen.front() == '\n' ||
                            fen.front() == '\r')) {
        fen.remove_prefix(1);
    }
    while (!fen.empty() &&
           (fen.back() == ' ' || fen.back() == '\t' || fen.back() == '\n' || fen.back() == '\r')) {
        fen.remove_suffix(1);
    }
    if (fen.empty() || fen == "startpos") {
        fen = kStartFen;
    }
    const std::vector<std::string_view> fields = split_fields(fen);
    if (fields.size() != 6 && fields.size() != 4) {
        return fail("expected 6 space-separated fields (or 4 without the clocks), got " +
                    std::to_string(fields.size()));
    }
    Position pos;
    if (auto ok = placement(fields[0], pos); !ok) {
        return unexpected(ok.error());
    }
    if (auto ok = material(pos); !ok) {
        return unexpected(ok.error());
    }
    if (fields[1] != "w" && fields[1] != "b") {
        return fail("side to move must be 'w' or 'b'");
    }
    pos.side_ = fields[1] == "w" ? white : black;
    if (auto ok = castling(fields[2], pos); !ok) {
        return unexpected(ok.error());
    }
    if (auto ok = en_passant(fields[3], pos); !ok) {
        return unexpected(ok.error());
    }
    int halfmove = 0;
    int fullmove = 1;
    if (fields.size() == 6) {
        if (!parse_number(fields[4], 0, 9999, halfmove)) {
            return fail("halfmove clock must be a whole number from 0 to 9999");
        }
        if (!parse_number(fields[5], 1, kMaxFullmove, fullmove)) {
            return fail("fullmove number must be a whole number from 1 to 9999");
        }
    }
    if (pos.en_passant_ != kNoSquare && halfmove != 0) {
        return fail("an en-passant square needs a halfmove clock of 0 (a pawn just moved)");
    }
    pos.halfmove_clock_ = static_cast<std::uint16_t>(halfmove);
    pos.fullmove_number_ = static_cast<std::uint16_t>(fullmove);
    const Color waiting = ~pos.side_;
    if (pos.attackers_to(pos.king_square(waiting), pos.occupied()) & pos.pieces(pos.side_)) {
        return fail(std::string("the side not to move (") + (waiting == white ? "white" : "black") +
                    ") is in check");
    }
    if (popcount(pos.checkers()) > 2) {
        return fail("the side to move is in check from more than two pieces");
    }
    // A double check is a move's check and the line it uncovered: one of the two checks is a
    // bishop's, rook's or queen's (two knights, a knight and a pawn, or two pawns never are).
    if (more_than_one(pos.checkers()) &&
        !(pos.checkers() & (pos.pieces(bishop) | pos.pieces(rook) | pos.pieces(queen)))) {
        return fail("the side to move is in double check that no move could have given");
    }
    if (pos.en_passant_ != kNoSquare && pos.in_check()) {
        // The last move was the double step: it gave check with the pawn itself or uncovered a
        // line through the pawn's start square, never both; any other check stood before it,
        // against the side that was not to move (FIDE 3.9).
        const int forward = waiting == white ? 8 : -8;
        const Square pushed_to = pos.en_passant_ + forward;
        Position before = pos;
        before.move_piece(pushed_to, pos.en_passant_ - forward);
        const Bitboard checkers = pos.checkers();
        if (more_than_one(checkers) || (checkers != square_bb(pushed_to) && before.in_check())) {
            return fail("en-passant square " + square_name(pos.en_passant_) +
                        ": the double step could not have given this check");
        }
    }
    return pos;
}

Expected<Position, RulesError> Position::from_fen(std::string_view fen) {
    return FenParser::parse(fen);
}

std::string Position::fen() const {
    // Written into a buffer and copied once: appending char by char to a std::string is a call
    // per character, and the server writes this text for every move it stores.
    std::array<char, 128> text{};  // placement <= 71, the rest <= 32 (two ints, at most 11 each)
    char* out = text.data();
    for (int rank = 7; rank >= 0; --rank) {
        int empty = 0;
        for (int file = 0; file < 8; ++file) {
            const Piece piece = board_[make_square(file, rank)];
            if (piece == no_piece) {
                ++empty;
                continue;
            }
            if (empty) {
                *out++ = static_cast<char>('0' + empty);
                empty = 0;
            }
            *out++ = kPieceLetters[piece];
        }
        if (empty) {
            *out++ = static_cast<char>('0' + empty);
        }
        if (rank) {
            *out++ = '/';
        }
    }
    *out++ = ' ';
    *out++ = side_ == white ? 'w' : 'b';
    *out++ = ' ';
    if (!castling_) {
        *out++ = '-';
    }
    for (int index = 0; index < 4; ++index) {
        if (castling_ & (1 << index)) {
            *out++ = "KQkq"[index];
        }
    }
    *out++ = ' ';
    if (en_passant_ == kNoSquare) {
        *out++ = '-';
    } else {
        *out++ = static_cast<char>('a' + file_of(en_passant_));
        *out++ = static_cast<char>('1' + rank_of(en_passant_));
    }
    // Play may count past the largest number a FEN may carry (a game set up at move 9998); the
    // text stops there, so that every position written reads back.
    *out++ = ' ';
    out = put_number(out, halfmove_clock_);
    *out++ = ' ';
    out = put_number(out, std::min<int>(fullmove_number_, kMaxFullmove));
    return std::string(text.data(), out);
}

}  // namespace arbiter::rules::chess
