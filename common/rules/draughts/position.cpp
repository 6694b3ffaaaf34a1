#include "common/rules/draughts/position.hpp"

#include <array>
#include <bit>
#include <charconv>

namespace arbiter::rules::draughts {

namespace {

RulesError fen_error(std::string_view fen, std::string_view why) {
    return RulesError{"bad PDN FEN '" + std::string(fen) + "': " + std::string(why)};
}

/// A square number 1-32 written in plain decimal, or 0 when the text is not one.
int parse_square(std::string_view text) {
    int square = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), square);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || square < 1 ||
        square > kSquares) {
        return 0;
    }
    return square;
}

struct ColourField {
    Bitboard pieces = 0;
    Bitboard kings = 0;
};

/// One colour's list "K1,2,5-8" (the colour letter already removed).
Expected<ColourField, RulesError> parse_field(std::string_view fen, std::string_view list,
                                              char colour) {
    ColourField field;
    if (list.empty()) {
        return field;  // a colour with no pieces left
    }
    for (bool more = true; more;) {
        const auto comma = list.find(',');
        std::string_view token = list.substr(0, comma);
        more = comma != std::string_view::npos;
        list = more ? list.substr(comma + 1) : std::string_view{};
        if (token.empty()) {
            return unexpected(
                fen_error(fen, "an empty square in the list of " + std::string(1, colour)));
        }
        const bool king = !token.empty() && token.front() == 'K';
        if (king) {
            token.remove_prefix(1);
        }
        int first = 0;
        int last = 0;
        const auto dash = token.find('-');
        if (dash == std::string_view::npos) {
            first = last = parse_square(token);
        } else {
            first = parse_square(token.substr(0, dash));
            last = parse_square(token.substr(dash + 1));
            if (first != 0 && last != 0 && first >= last) {
                return unexpected(
                    fen_error(fen, "range '" + std::string(token) + "' must run from low to high"));
            }
        }
        if (first == 0 || last == 0) {
            return unexpected(
                fen_error(fen, "'" + std::string(token) + "' is not a square from 1 to 32"));
        }
        for (int square = first; square <= last; ++square) {
            const Bitboard b = bit(square - 1);
            if (field.pieces & b) {
                return unexpected(
                    fen_error(fen, "square " + std::to_string(square) + " is listed twice"));
            }
            field.pieces |= b;
            if (king) {
                field.kings |= b;
            }
        }
    }
    return field;
}

}  // namespace

Expected<Position, RulesError> Position::from_fen(std::string_view text) {
    if (text.empty() || text == "startpos") {
        text = kStartFen;
    }
    if (text.size() < 2 || (text[0] != 'W' && text[0] != 'B') || text[1] != ':') {
        return unexpected(fen_error(text, "expected the side to move, 'W:' or 'B:', first"));
    }
    Position position;
    position.side_ = text[0] == 'W' ? Side::first : Side::second;
    std::string_view rest = text.substr(2);
    // PDN 3.0's grammar lets a FEN end with a dot (`Fen : COLOR NumericSquares DOT?`); its
    // writers may not add one, so only reading accepts it.
    if (rest.ends_with('.')) {
        rest.remove_suffix(1);
    }
    bool seen_white = false;
    bool seen_black = false;
    for (int field_number = 0; field_number < 2; ++field_number) {
        const auto colon = rest.find(':');
        std::string_view field = rest.substr(0, colon);
        if (field_number == 0 && colon == std::string_view::npos) {
            return unexpected(fen_error(text, "expected two fields, one per colour"));
        }
        if (field_number == 1 && colon != std::string_view::npos) {
            return unexpected(fen_error(text, "unexpected text after the second colour field"));
        }
        rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
        if (field.empty() || (field[0] != 'W' && field[0] != 'B')) {
            return unexpected(fen_error(text, "each colour field starts with W or B"));
        }
        const char colour = field[0];
        bool& seen = colour == 'W' ? seen_white : seen_black;
        if (seen) {
            return unexpected(
                fen_error(text, "the field of " + std::string(1, colour) + " appears twice"));
        }
        seen = true;
        auto parsed = parse_field(text, field.substr(1), colour);
        if (!parsed) {
            return unexpected(parsed.error());
        }
        (colour == 'W' ? position.white_ : position.black_) = parsed->pieces;
        position.kings_ |= parsed->kings;
    }
    if (position.white_ & position.black_) {
        const int square = std::countr_zero(position.white_ & position.black_) + 1;
        return unexpected(fen_error(
            text, "square " + std::to_string(square) + " holds both a white and a black piece"));
    }
    // A man whose move ends on the far row is crowned at once (CBD official rules), so a man can
    // never stand on its own crowning row.
    if (const Bitboard men = position.white_ & ~position.kings_ & kWhiteCrownRow; men != 0) {
        return unexpected(fen_error(text, "a white man on square " +
                                              std::to_string(std::countr_zero(men) + 1) +
                                              " would already have been crowned"));
    }
    if (const Bitboard men = position.black_ & ~position.kings_ & kBlackCrownRow; men != 0) {
        return unexpected(fen_error(text, "a black man on square " +
                                              std::to_string(std::countr_zero(men) + 1) +
                                              " would already have been crowned"));
    }
    if (std::popcount(position.white_) > kMaxPiecesPerSide ||
        std::popcount(position.black_) > kMaxPiecesPerSide) {
        return unexpected(fen_error(text, "a side has more than 12 pieces"));
    }
    // Taking a side's last piece ends the game with that side to move, as it has lost (CBD
    // rules: a side without pieces or legal moves loses). The side that has just moved therefore
    // always has a piece; a FEN without one would start a finished game as if it went on.
    if (position.pieces(opponent(position.side_)) == 0) {
        return unexpected(fen_error(text, std::string("the side not to move (") +
                                              (position.side_ == Side::first ? "B" : "W") +
                                              ") has no pieces: the game is already over"));
    }
    return position;
}

std::string Position::fen() const {
    std::string fen = side_ == Side::first ? "W" : "B";
    const std::array<std::pair<char, Bitboard>, 2> fields = {std::pair{'W', white_},
                                                             std::pair{'B', black_}};
    for (const auto& [letter, pieces] : fields) {
        fen += ':';
        fen += letter;
        bool first = true;
        for (Bitboard rest = pieces; rest != 0; rest &= rest - 1) {
            const int index = std::countr_zero(rest);
            if (!first) {
                fen += ',';
            }
            first = false;
            if (kings_ & bit(index)) {
                fen += 'K';
            }
            fen += std::to_string(index + 1);
        }
    }
    return fen;
}

}  // namespace arbiter::rules::draughts
