// Xiangqi FEN as Fairy-Stockfish and pychess write it: ten ranks of nine points from black's back
// rank (rank 10) down to red's (rank 1), uppercase red, side `w` (red) or `b`, then "- -" and
// the halfmove (plies since the last capture) and fullmove counters. Untrusted text: every
// malformed or impossible position is refused with a message.
#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "common/rules/xiangqi/position.hpp"
#include "common/rules/xiangqi/tables.hpp"

namespace arbiter::rules::xiangqi {

namespace {

/// The largest fullmove number a FEN may carry.
constexpr int kMaxFullmove = 100000;

constexpr std::string_view kLetters = " kabnrcp";

RulesError error(std::string message) {
    return RulesError{"invalid FEN: " + std::move(message)};
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = text.find(separator, start);
        parts.push_back(text.substr(start, end - start));
        if (end == std::string_view::npos) {
            return parts;
        }
        start = end + 1;
    }
}

Kind kind_from_letter(char letter) {
    switch (letter) {
        case 'k':
            return Kind::general;
        case 'a':
            return Kind::advisor;
        case 'b':
        case 'e':  // some sources (CPW's "rheakaehr") write e for elephant and h for horse
            return Kind::elephant;
        case 'n':
        case 'h':
            return Kind::horse;
        case 'r':
            return Kind::chariot;
        case 'c':
            return Kind::cannon;
        case 'p':
            return Kind::soldier;
        default:
            return Kind::none;
    }
}

constexpr std::array<const char*, 8> kKindNames = {"",      "general", "advisor", "elephant",
                                                   "horse", "chariot", "cannon",  "soldier"};
constexpr std::array<int, 8> kMaxCount = {0, 1, 2, 2, 2, 2, 2, 5};

std::string point_name(Square square) {
    return std::string(1, static_cast<char>('a' + file_of(square))) +
           std::to_string(rank_of(square) + 1);
}

// Whether a piece of this colour and kind can ever stand on `square` in a game from the start.
bool reachable(Color color, Kind kind, Square square) {
    const int file = file_of(square);
    // Ranks counted from the piece's own side: 0 = its back rank.
    const int rank = color == Color::red ? rank_of(square) : 9 - rank_of(square);
    switch (kind) {
        case Kind::general:
            return file >= 3 && file <= 5 && rank <= 2;
        case Kind::advisor:  // d1 f1 e2 d3 f3
            return (rank == 1 && file == 4) ||
                   ((rank == 0 || rank == 2) && (file == 3 || file == 5));
        case Kind::elephant:  // c1 g1 a3 e3 i3 c5 g5
            return ((rank == 0 || rank == 4) && (file == 2 || file == 6)) ||
                   (rank == 2 && (file == 0 || file == 4 || file == 8));
        case Kind::soldier:
            // Never behind the start rank; before the river only straight up the five start files.
            return rank >= 5 || ((rank == 3 || rank == 4) && file % 2 == 0);
        default:
            return true;
    }
}

}  // namespace

/// Builds a Position from FEN text, with access to its internals.
class FenParser {
  public:
    static Expected<Position, RulesError> parse(std::string_view fen);

  private:
    static Expected<void, RulesError> parse_board(std::string_view board, Position& position);
    static Expected<void, RulesError> parse_counters(const std::vector<std::string_view>& fields,
                                                     Position& position);
};

Expected<void, RulesError> FenParser::parse_board(std::string_view board, Position& position) {
    const auto ranks = split(board, '/');
    if (ranks.size() != 10) {
        return unexpected(error("the board needs 10 ranks separated by '/', found " +
                                std::to_string(ranks.size())));
    }
    std::array<std::array<int, 8>, 2> counts{};
    std::array<std::array<bool, 9>, 2> soldier_before_river{};
    std::array<int, 2> next_id = {1, 17};  // id 0 / 16: the general
    for (std::size_t row = 0; row < ranks.size(); ++row) {
        const int rank = 9 - static_cast<int>(row);
        int file = 0;
        bool last_was_digit = false;
        for (char c : ranks[row]) {
            const std::string where = "rank " + std::to_string(rank + 1);
            if (c >= '1' && c <= '9') {
                if (last_was_digit) {
                    return unexpected(error(where + " has two digits in a row"));
                }
                file += c - '0';
                last_was_digit = true;
                if (file > 9) {
                    return unexpected(error(where + " has more than 9 points"));
                }
                continue;
            }
            last_was_digit = false;
            const bool upper = c >= 'A' && c <= 'Z';
            const Kind kind = kind_from_letter(upper ? static_cast<char>(c - 'A' + 'a') : c);
            if (kind == Kind::none) {
                return unexpected(
                    error(where + " has an unknown piece letter '" + std::string(1, c) + "'"));
            }
            if (file >= 9) {
                return unexpected(error(where + " has more than 9 points"));
            }
            const Color color = upper ? Color::red : Color::black;
            const Square square = make_square(file, rank);
            const char* side = color == Color::red ? "red" : "black";
            if (!reachable(color, kind, square)) {
                return unexpected(error(std::string("a ") + side + " " +
                                        kKindNames[static_cast<int>(kind)] +
                                        " can never stand on " + point_name(square)));
            }
            // A soldier steps sideways only after crossing and never back: each start file holds
            // at most one soldier of its side before the river.
            if (kind == Kind::soldier && tables::kOwnHalf[static_cast<int>(color)][square]) {
                bool& seen = soldier_before_river[static_cast<std::size_t>(color)]
                                                 [static_cast<std::size_t>(file)];
                if (seen) {
                    return unexpected(error(std::string(side) + " has two soldiers on the " +
                                            std::string(1, static_cast<char>('a' + file)) +
                                            "-file before the river"));
                }
                seen = true;
            }
            int& count = counts[static_cast<int>(color)][static_cast<int>(kind)];
            if (++count > kMaxCount[static_cast<int>(kind)]) {
                return unexpected(error(std::string(side) + " has more than " +
                                        std::to_string(kMaxCount[static_cast<int>(kind)]) + " " +
                                        kKindNames[static_cast<int>(kind)] +
                                        (kind == Kind::general ? "" : "s")));
            }
            const int id = kind == Kind::general ? static_cast<int>(color) * 16
                                                 : next_id[static_cast<int>(color)]++;
            position.put(square, make_piece(color, kind), id);
            ++file;
        }
        if (file != 9) {
            return unexpected(error("rank " + std::to_string(rank + 1) + " has " +
                                    std::to_string(file) + " points instead of 9"));
        }
    }
    for (Color color : {Color::red, Color::black}) {
        if (counts[static_cast<int>(color)][static_cast<int>(Kind::general)] != 1) {
            return unexpected(
                error(std::string(color == Color::red ? "red" : "black") + " has no general"));
        }
    }
    return {};
}

Expected<void, RulesError> FenParser::parse_counters(const std::vector<std::string_view>& fields,
                                                     Position& position) {
    if (fields.size() >= 4 && (fields[2] != "-" || fields[3] != "-")) {
        return unexpected(
            error("xiangqi has no castling or en passant: fields 3 and 4 must be '-'"));
    }
    if (fields.size() < 6) {
        return {};
    }
    auto number = [](std::string_view text, int& value) {
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        return ec == std::errc{} && end == text.data() + text.size() && !text.empty();
    };
    if (!number(fields[4], position.plies_since_capture_) || position.plies_since_capture_ < 0 ||
        position.plies_since_capture_ > 1000) {
        return unexpected(
            error("the halfmove counter must be a whole number from 0 to 1000, not '" +
                  std::string(fields[4]) + "'"));
    }
    if (!number(fields[5], position.fullmove_) || position.fullmove_ < 1 ||
        position.fullmove_ > kMaxFullmove) {
        return unexpected(error("the fullmove number must be a whole number from 1, not '" +
                                std::string(fields[5]) + "'"));
    }
    return {};
}

Expected<Position, RulesError> FenParser::parse(std::string_view fen) {
    if (fen.empty() || fen == "startpos") {
        fen = kStartFen;
    }
    const auto fields = split(fen, ' ');
    if (fields.size() != 2 && fields.size() != 4 && fields.size() != 6) {
        return unexpected(
            error("expected 2, 4 or 6 fields separated by single spaces (board side - - halfmove "
                  "fullmove)"));
    }
    Position position;
    for (int cell = 0; cell < kBoardCells; ++cell) {
        position.board_[static_cast<std::size_t>(cell)] = kOffBoard;
    }
    for (int rank = 0; rank < 10; ++rank) {
        for (int file = 0; file < 9; ++file) {
            position.board_[make_square(file, rank)] = kEmpty;
        }
    }
    if (auto board = parse_board(fields[0], position); !board) {
        return unexpected(board.error());
    }
    if (fields[1] == "b") {
        position.side_ = Color::black;
        position.hash_ ^= tables::kZobrist.black_to_move;
    } else if (fields[1] != "w") {
        return unexpected(error("the side to move must be 'w' (red) or 'b' (black), not '" +
                                std::string(fields[1]) + "'"));
    }
    if (auto counters = parse_counters(fields, position); !counters) {
        return unexpected(counters.error());
    }
    const Square red = position.general(Color::red);
    const Square black = position.general(Color::black);
    if (file_of(red) == file_of(black)) {
        bool open = true;
        for (Square square = static_cast<Square>(red + 16); square != black; square += 16) {
            open = open && position.at(square) == kEmpty;
        }
        if (open) {
            return unexpected(error("the generals face each other on an open file"));
        }
    }
    if (position.general_attacked(other(position.side_))) {
        return unexpected(error(std::string("the side not to move (") +
                                (position.side_ == Color::red ? "black" : "red") +
                                ") is in check"));
    }
    return position;
}

Expected<Position, RulesError> Position::from_fen(std::string_view fen) {
    return FenParser::parse(fen);
}

std::string Position::fen() const {
    std::string text;
    for (int rank = 9; rank >= 0; --rank) {
        int empty = 0;
        for (int file = 0; file < 9; ++file) {
            const Piece piece = board_[make_square(file, rank)];
            if (piece == kEmpty) {
                ++empty;
                continue;
            }
            if (empty > 0) {
                text += static_cast<char>('0' + empty);
                empty = 0;
            }
            const char letter = kLetters[static_cast<std::size_t>(kind_of(piece))];
            text += color_of(piece) == Color::red ? static_cast<char>(letter - 'a' + 'A') : letter;
        }
        if (empty > 0) {
            text += static_cast<char>('0' + empty);
        }
        if (rank > 0) {
            text += '/';
        }
    }
    text += side_ == Color::red ? " w - - " : " b - - ";
    // Play may count past the largest number a FEN may carry; the text stops there, so that every
    // position written reads back.
    text += std::to_string(plies_since_capture_) + " " +
            std::to_string(std::min(fullmove_, kMaxFullmove));
    return text;
}

}  // namespace arbiter::rules::xiangqi
