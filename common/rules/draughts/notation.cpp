#include "common/rules/draughts/notation.hpp"

#include <charconv>
#include <optional>
#include <vector>

namespace arbiter::rules::draughts {

namespace {

RulesError move_error(std::string_view text, std::string_view why) {
    return RulesError{std::string(text) + ": " + std::string(why)};
}

/// The written move split into squares (bit indices) and its separator.
struct WrittenMove {
    std::vector<int> squares;
    char separator = '-';
};

Expected<WrittenMove, RulesError> split(std::string_view text) {
    WrittenMove written;
    std::size_t i = 0;
    while (true) {
        int square = 0;
        const auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), square);
        const auto length = static_cast<std::size_t>(end - (text.data() + i));
        if (ec != std::errc{} || length == 0 || length > 2) {
            return unexpected(move_error(text, "not a move in any notation"));
        }
        if (square < 1 || square > kSquares) {
            return unexpected(move_error(text, "the squares are numbered 1 to 32"));
        }
        written.squares.push_back(square - 1);
        i += length;
        if (i == text.size()) {
            break;
        }
        const char separator = text[i];
        if (separator != '-' && separator != 'x') {
            return unexpected(move_error(text, "squares are separated by '-' or 'x'"));
        }
        if (written.squares.size() > 1 && separator != written.separator) {
            return unexpected(move_error(text, "mixes '-' and 'x'"));
        }
        written.separator = separator;
        ++i;
    }
    if (written.squares.size() < 2) {
        return unexpected(move_error(text, "a move names at least a start and an end square"));
    }
    if (written.squares.size() > static_cast<std::size_t>(kMaxLandings) + 2) {
        return unexpected(move_error(text, "too many squares for one move"));
    }
    return written;
}

/// The piece taken by one capture leg from `from` to `to`, or nullopt when the leg is not a
/// legal jump: straight along a diagonal, exactly one opponent piece not yet taken in between,
/// every other square in between and `to` empty, and a man jumping only the adjacent square.
std::optional<int> leg_victim(int from, int to, bool king, Bitboard opponents, Bitboard empty,
                              Bitboard captured) {
    for (Direction direction : kDirections) {
        int victim = -1;
        int distance = 1;
        int square = neighbour(from, direction);
        for (; square >= 0 && square != to; square = neighbour(square, direction), ++distance) {
            if (empty & bit(square)) {
                continue;
            }
            if (victim >= 0 || (opponents & ~captured & bit(square)) == 0) {
                break;
            }
            victim = square;
        }
        if (square != to) {
            continue;
        }
        if (victim < 0 || (empty & bit(to)) == 0 || (!king && distance != 2)) {
            return std::nullopt;
        }
        return victim;
    }
    return std::nullopt;
}

/// The captured set of a written capture path, or nullopt when a leg is not a legal jump.
std::optional<Bitboard> path_captures(const std::vector<int>& squares, const Position& position) {
    const int from = squares.front();
    const bool king = (position.kings() & bit(from)) != 0;
    const Bitboard opponents = position.pieces(opponent(position.side_to_move()));
    // The moving piece's start square counts as empty; taken pieces stay until the move ends.
    const Bitboard empty = position.empty() | bit(from);
    Bitboard captured = 0;
    for (std::size_t i = 0; i + 1 < squares.size(); ++i) {
        const auto victim =
            leg_victim(squares[i], squares[i + 1], king, opponents, empty, captured);
        if (!victim) {
            return std::nullopt;
        }
        captured |= bit(*victim);
    }
    return captured;
}

std::string square_text(int index) {
    return std::to_string(index + 1);
}

/// The legal moves, listed for a refusal: "22x13, 26x17" (at most six, then "...").
std::string listed(const MoveList& legal) {
    constexpr std::size_t kShown = 6;
    std::string list;
    std::size_t shown = 0;
    for (const Move& move : legal) {
        if (shown++ == kShown) {
            return list + ", ...";
        }
        list += (list.empty() ? "" : ", ") + canonical_text(move, legal);
    }
    return list;
}

/// Why no legal move goes from `from` to `to` as written (start and end or the whole path).
std::string why_no_move(const Position& position, const std::vector<int>& squares,
                        bool capture_written, const MoveList& legal) {
    const int from = squares.front();
    const int to = squares.back();
    const bool king = (position.kings() & bit(from)) != 0;
    if (!capture_written) {
        if ((position.empty() & bit(to)) == 0) {
            return "square " + square_text(to) + " is occupied";
        }
        return king ? "a king moves along a free diagonal; it cannot move there"
                    : "a man moves one square diagonally forward; it cannot move there";
    }
    // A written path whose every leg is a jump, that is still not legal: it takes fewer pieces
    // than the longest capture (CBD rules: the capture taking the most pieces is compulsory).
    if (path_captures(squares, position)) {
        return "the capture taking the most pieces is compulsory: " + listed(legal);
    }
    return "no capture of yours goes there; the captures are " + listed(legal);
}

}  // namespace

std::string short_text(const Move& move) {
    return square_text(move.from) + (move.is_capture() ? "x" : "-") + square_text(move.to);
}

std::string full_text(const Move& move) {
    std::string text = square_text(move.from);
    for (int i = 0; i < move.landing_count; ++i) {
        text += 'x';
        text += square_text(move.landing(i));
    }
    text += move.is_capture() ? 'x' : '-';
    text += square_text(move.to);
    return text;
}

std::string canonical_text(const Move& move, const MoveList& legal) {
    for (const Move& other : legal) {
        if (other.from == move.from && other.to == move.to && !other.same_move(move)) {
            return full_text(move);
        }
    }
    return short_text(move);
}

Expected<Move, RulesError> parse_move(const Position& position, std::string_view text,
                                      const MoveList& legal) {
    auto written = split(text);
    if (!written) {
        return unexpected(written.error());
    }
    const auto& squares = written->squares;
    const int from = squares.front();
    const int to = squares.back();
    const bool capture_written = written->separator == 'x';
    if (!capture_written && squares.size() > 2) {
        return unexpected(move_error(text, "a plain move names only its start and end"));
    }
    if ((position.pieces(position.side_to_move()) & bit(from)) == 0) {
        return unexpected(
            move_error(text, "no piece of the side to move on square " + square_text(from)));
    }
    if (!legal.empty() && legal[0].is_capture() != capture_written) {
        return unexpected(move_error(
            text, capture_written ? "there is no capture here (a plain move is written 21-17)"
                                  : "a capture is compulsory: " + listed(legal)));
    }
    std::vector<const Move*> candidates;
    for (const Move& move : legal) {
        if (move.from == from && move.to == to) {
            candidates.push_back(&move);
        }
    }
    if (candidates.empty()) {
        return unexpected(move_error(text, why_no_move(position, squares, capture_written, legal)));
    }
    if (squares.size() == 2) {
        if (candidates.size() == 1) {
            return *candidates.front();
        }
        std::string list;
        for (const Move* move : candidates) {
            list += (list.empty() ? "" : ", ") + full_text(*move);
        }
        return unexpected(move_error(text, "ambiguous: give the landing squares, one of " + list));
    }
    const auto captured = path_captures(squares, position);
    if (captured) {
        for (const Move* move : candidates) {
            if (move->captured == *captured) {
                return *move;
            }
        }
    }
    return unexpected(move_error(text, "not a legal capture path here"));
}

}  // namespace arbiter::rules::draughts
