#include "common/rules/xiangqi/refusal.hpp"

#include <array>

#include "common/rules/xiangqi/notation.hpp"

namespace arbiter::rules::xiangqi {

namespace {

constexpr std::string_view kLetters = " KAEHRCP";

std::string_view kind_name(Kind kind) noexcept {
    static constexpr std::array<std::string_view, 8> kNames = {
        "piece", "general", "advisor", "elephant", "horse", "chariot", "cannon", "soldier"};
    return kNames[static_cast<std::size_t>(kind)];
}

std::string point_name(Square square) {
    return std::string(1, static_cast<char>('a' + file_of(square))) +
           std::to_string(rank_of(square) + 1);
}

/// Whether the two generals stand on one file with nothing between them (the flying general).
bool generals_face(const Position& position) {
    const Square red = position.general(Color::red);
    const Square black = position.general(Color::black);
    if (file_of(red) != file_of(black)) {
        return false;
    }
    for (int rank = rank_of(red) + 1; rank < rank_of(black); ++rank) {
        if (position.at(make_square(file_of(red), rank)) != kEmpty) {
            return false;
        }
    }
    return true;
}

/// Why a move that follows the movement rules is still illegal: it exposes the own general.
std::string exposure_reason(const Position& position, Move move) {
    if (generals_face(position.after(move))) {
        return "the general would face the general";
    }
    const bool general_moves = kind_of(position.at(move.from())) == Kind::general;
    return position.in_check() && !general_moves ? "your general is in check"
                                                 : "your general would be in check";
}

bool is_digit(char c, char high) noexcept {
    return c >= '1' && c <= high;
}

}  // namespace

std::string why_illegal(const Position& position, Move move) {
    const Piece piece = position.at(move.from());
    const Color us = position.side_to_move();
    if (piece == kEmpty) {
        return "there is no piece on " + point_name(move.from());
    }
    if (color_of(piece) != us) {
        return "the piece on " + point_name(move.from()) + " belongs to the opponent";
    }
    const Piece target = position.at(move.to());
    if (target != kEmpty && color_of(target) == us) {
        return "your own piece stands on " + point_name(move.to());
    }
    if (!is_pseudo_legal(position, move)) {
        return "a " + std::string(kind_name(kind_of(piece))) + " cannot move there";
    }
    return exposure_reason(position, move);
}

bool is_wxf_shaped(std::string_view wxf) noexcept {
    if (wxf.size() != 4 || (wxf[2] != '+' && wxf[2] != '-' && wxf[2] != '.') ||
        !is_digit(wxf[3], '9')) {
        return false;
    }
    const auto letter = [](char c) {
        return c != ' ' && kLetters.find(c) != std::string_view::npos;
    };
    return (letter(wxf[0]) && is_digit(wxf[1], '9')) ||
           ((wxf[0] == '+' || wxf[0] == '-') && letter(wxf[1])) ||
           (is_digit(wxf[0], '5') && is_digit(wxf[1], '9'));
}

std::string why_no_wxf_move(const Position& position, std::string_view wxf) {
    // A move the movement rules allow that is written so: it fails only on the general's safety.
    const Color us = position.side_to_move();
    for (int from_rank = 0; from_rank < 10; ++from_rank) {
        for (int from_file = 0; from_file < 9; ++from_file) {
            const Square from = make_square(from_file, from_rank);
            const Piece piece = position.at(from);
            if (piece == kEmpty || color_of(piece) != us) {
                continue;
            }
            for (int to_rank = 0; to_rank < 10; ++to_rank) {
                for (int to_file = 0; to_file < 9; ++to_file) {
                    const Move move(from, make_square(to_file, to_rank));
                    if (move.from() != move.to() && wxf_notation(position, move) == wxf &&
                        is_pseudo_legal(position, move)) {
                        return exposure_reason(position, move);
                    }
                }
            }
        }
    }
    const std::size_t letter_at = wxf[0] == '+' || wxf[0] == '-' ? 1 : 0;
    const std::size_t index = kLetters.find(wxf[letter_at]);
    const Kind kind =
        index == std::string_view::npos || index == 0 ? Kind::soldier : static_cast<Kind>(index);
    if (letter_at == 0 && index != std::string_view::npos) {
        // WXF counts files from the mover's right: red's file 1 is i, black's is a.
        const int file = us == Color::red ? 9 - (wxf[1] - '0') : wxf[1] - '1';
        bool found = false;
        for (int rank = 0; rank < 10; ++rank) {
            found = found || position.at(make_square(file, rank)) == make_piece(us, kind);
        }
        if (!found) {
            return "you have no " + std::string(kind_name(kind)) + " on file " + wxf[1];
        }
    }
    return "no " + std::string(kind_name(kind)) + " of yours can make that move";
}

}  // namespace arbiter::rules::xiangqi
