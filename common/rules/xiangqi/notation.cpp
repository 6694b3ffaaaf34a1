#include "common/rules/xiangqi/notation.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <utility>

#include "common/rules/xiangqi/refusal.hpp"

namespace arbiter::rules::xiangqi {

namespace {

// Piece letters by Kind, shared by WXF and Fairy-Stockfish's SAN (E elephant, H horse).
constexpr std::string_view kLetters = " KAEHRCP";

// Files as the mover counts them: red from its right (file i = 1), black from its right (a = 1).
int own_file(Color color, int file) {
    return color == Color::red ? 9 - file : file + 1;
}

// Which of several same-kind pieces on one file moves (WXF and Chinese agree on the cases).
struct Designation {
    enum class Form { file, tandem, indexed } form = Form::file;
    int index = 0;               ///< place from the front, 0-based
    int count = 1;               ///< same-kind pieces of the mover on the file
    bool several_files = false;  ///< soldiers tandem on two files or more
};

Designation designate(const Position& position, Square from) {
    const Piece piece = position.at(from);
    const Color color = color_of(piece);
    std::array<int, 9> per_file{};
    for (int rank = 0; rank < 10; ++rank) {
        for (int file = 0; file < 9; ++file) {
            if (position.at(make_square(file, rank)) == piece) {
                ++per_file[static_cast<std::size_t>(file)];
            }
        }
    }
    Designation designation;
    const int file = file_of(from);
    designation.count = per_file[static_cast<std::size_t>(file)];
    // Two advisors or elephants on one file never reach the same point in the same direction,
    // so WXF and Chinese scoresheets keep the file for them ("A6+5", 相七退五), never 前/后.
    const bool keeps_file = kind_of(piece) == Kind::advisor || kind_of(piece) == Kind::elephant;
    if (designation.count == 1 || keeps_file) {
        designation.count = 1;
        return designation;
    }
    for (int rank = 0; rank < 10; ++rank) {
        const Square square = make_square(file, rank);
        const bool ahead = color == Color::red ? rank > rank_of(from) : rank < rank_of(from);
        if (ahead && position.at(square) == piece) {
            ++designation.index;
        }
    }
    const auto tandem_files =
        std::count_if(per_file.begin(), per_file.end(), [](int count) { return count >= 2; });
    const bool soldier = kind_of(piece) == Kind::soldier;
    designation.several_files = soldier && tandem_files >= 2;
    designation.form = soldier && (designation.count >= 3 || tandem_files >= 2)
                           ? Designation::Form::indexed
                           : Designation::Form::tandem;
    return designation;
}

// The operator (+1 forward, -1 backward, 0 sideways) and the number after it.
std::pair<int, int> movement(Color color, Move move) {
    const int from_rank = rank_of(move.from());
    const int to_rank = rank_of(move.to());
    const int direction =
        to_rank == from_rank ? 0 : ((to_rank > from_rank) == (color == Color::red) ? 1 : -1);
    const bool along_file = file_of(move.from()) == file_of(move.to());
    const int number =
        along_file ? std::abs(to_rank - from_rank) : own_file(color, file_of(move.to()));
    return {direction, number};
}

std::string_view chinese_piece(Piece piece) {
    static constexpr std::array<std::string_view, 8> kRed = {"",   "帅", "仕", "相",
                                                             "马", "车", "炮", "兵"};
    static constexpr std::array<std::string_view, 8> kBlack = {"",   "将", "士", "象",
                                                               "马", "车", "炮", "卒"};
    const auto kind = static_cast<std::size_t>(kind_of(piece));
    return color_of(piece) == Color::red ? kRed[kind] : kBlack[kind];
}

std::string_view chinese_number(Color color, int number) {
    static constexpr std::array<std::string_view, 10> kRed = {"",   "一", "二", "三", "四",
                                                              "五", "六", "七", "八", "九"};
    static constexpr std::array<std::string_view, 10> kBlack = {"",   "１", "２", "３", "４",
                                                                "５", "６", "７", "８", "９"};
    const auto index = static_cast<std::size_t>(number);
    return color == Color::red ? kRed[index] : kBlack[index];
}

std::string_view chinese_place(const Designation& designation) {
    // Two on a file: front/rear; three: front/middle/rear; four or five: counted from the front.
    static constexpr std::array<std::string_view, 5> kCounted = {"一", "二", "三", "四", "五"};
    const int index = designation.index;
    if (designation.count == 2) {
        return index == 0 ? "前" : "后";
    }
    if (designation.count == 3) {
        return index == 0 ? "前" : index == 1 ? "中" : "后";
    }
    return kCounted[static_cast<std::size_t>(index)];
}

std::string square_name(Square square) {
    return std::string(1, static_cast<char>('a' + file_of(square))) +
           std::to_string(rank_of(square) + 1);
}

std::string normalise_wxf(std::string_view text) {
    std::string out;
    for (char c : text) {
        char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        if (upper == 'N') {
            upper = 'H';
        } else if (upper == 'B') {
            upper = 'E';
        } else if (upper == '=') {
            upper = '.';
        }
        out += upper;
    }
    // "R+.4" (marker after the letter, as some sources write) is our "+R.4".
    if (out.size() == 4 && std::isalpha(static_cast<unsigned char>(out[0])) &&
        (out[1] == '+' || out[1] == '-')) {
        std::swap(out[0], out[1]);
    }
    return out;
}

}  // namespace

std::string wire_notation(Move move) {
    return square_name(move.from()) + square_name(move.to());
}

Expected<Move, RulesError> parse_wire(std::string_view text) {
    std::array<Square, 2> squares{};
    std::size_t at = 0;
    for (Square& square : squares) {
        if (at >= text.size() || text[at] < 'a' || text[at] > 'i') {
            return unexpected(RulesError{"'" + std::string(text) + "' is not a move"});
        }
        const int file = text[at++] - 'a';
        int rank = 0;
        if (text.substr(at, 2) == "10") {
            rank = 9;
            at += 2;
        } else if (at < text.size() && text[at] >= '1' && text[at] <= '9') {
            rank = text[at++] - '1';
        } else {
            return unexpected(RulesError{"'" + std::string(text) + "' is not a move"});
        }
        square = make_square(file, rank);
    }
    if (at != text.size()) {
        return unexpected(RulesError{"'" + std::string(text) + "' is not a move"});
    }
    return Move(squares[0], squares[1]);
}

std::string wxf_notation(const Position& position, Move move) {
    const Piece piece = position.at(move.from());
    const Color color = color_of(piece);
    const char letter = kLetters[static_cast<std::size_t>(kind_of(piece))];
    const Designation designation = designate(position, move.from());
    std::string text;
    switch (designation.form) {
        case Designation::Form::file:
            text += letter;
            text += std::to_string(own_file(color, file_of(move.from())));
            break;
        case Designation::Form::tandem:
            text += designation.index == 0 ? '+' : '-';
            text += letter;
            break;
        case Designation::Form::indexed:
            text += std::to_string(designation.index + 1);
            text += std::to_string(own_file(color, file_of(move.from())));
            break;
    }
    const auto [direction, number] = movement(color, move);
    text += direction > 0 ? '+' : direction < 0 ? '-' : '.';
    text += std::to_string(number);
    return text;
}

std::string chinese_notation(const Position& position, Move move) {
    const Piece piece = position.at(move.from());
    const Color color = color_of(piece);
    const Designation designation = designate(position, move.from());
    const std::string_view file = chinese_number(color, own_file(color, file_of(move.from())));
    std::string text;
    switch (designation.form) {
        case Designation::Form::file:
            text += chinese_piece(piece);
            text += file;
            break;
        case Designation::Form::tandem:
            text += chinese_place(designation);
            text += chinese_piece(piece);
            break;
        case Designation::Form::indexed:
            text += chinese_place(designation);
            // Soldiers tandem on two files: the file takes the place of the piece name.
            if (designation.several_files) {
                text += file;
            } else {
                text += chinese_piece(piece);
            }
            break;
    }
    const auto [direction, number] = movement(color, move);
    text += direction > 0 ? "进" : direction < 0 ? "退" : "平";
    text += chinese_number(color, number);
    return text;
}

Expected<std::vector<std::string>, RulesError> chinese_notation(
    std::string_view fen, const std::vector<std::string>& wire_moves) {
    auto start = Position::from_fen(fen);
    if (!start) {
        return unexpected(start.error());
    }
    Position position = *start;
    std::vector<std::string> out;
    for (const std::string& wire : wire_moves) {
        auto move = parse_wire(wire);
        if (!move || !is_legal(position, *move)) {
            return unexpected(RulesError{wire + ": not a legal move in " + position.fen()});
        }
        out.push_back(chinese_notation(position, *move));
        position = position.after(*move);
    }
    return out;
}

Expected<Move, RulesError> parse_move(const Position& position, std::string_view text) {
    MoveList list;
    legal_moves(position, list);
    if (auto wire = parse_wire(text)) {
        if (std::find(list.begin(), list.end(), *wire) != list.end()) {
            return *wire;
        }
        return unexpected(RulesError{std::string(text) + ": " + why_illegal(position, *wire)});
    }
    const std::string wanted = normalise_wxf(text);
    for (Move move : list) {
        if (wxf_notation(position, move) == wanted) {
            return move;
        }
    }
    if (!is_wxf_shaped(wanted)) {
        return unexpected(RulesError{std::string(text) + ": not a move in any notation"});
    }
    return unexpected(RulesError{std::string(text) + ": " + why_no_wxf_move(position, wanted)});
}

}  // namespace arbiter::rules::xiangqi
