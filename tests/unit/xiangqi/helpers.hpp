#pragma once
// Test helpers: build a xiangqi FEN from a list of pieces ("K e1", "r a10") and list the legal
// moves of a position in wire form.
#include <array>
#include <initializer_list>
#include <set>
#include <string>
#include <string_view>

#include "common/rules/xiangqi/notation.hpp"
#include "common/rules/xiangqi/position.hpp"

namespace arbiter::rules::xiangqi::test {

inline std::string fen_of(std::initializer_list<std::string_view> pieces, char side = 'w',
                          int halfmove = 0) {
    std::array<std::array<char, 9>, 10> grid{};
    for (std::string_view piece : pieces) {
        const int file = piece[2] - 'a';
        const int rank = std::stoi(std::string(piece.substr(3))) - 1;
        grid[static_cast<std::size_t>(rank)][static_cast<std::size_t>(file)] = piece[0];
    }
    std::string fen;
    for (int rank = 9; rank >= 0; --rank) {
        int empty = 0;
        for (int file = 0; file < 9; ++file) {
            const char c = grid[static_cast<std::size_t>(rank)][static_cast<std::size_t>(file)];
            if (c == 0) {
                ++empty;
                continue;
            }
            if (empty > 0) {
                fen += static_cast<char>('0' + empty);
                empty = 0;
            }
            fen += c;
        }
        if (empty > 0) {
            fen += static_cast<char>('0' + empty);
        }
        if (rank > 0) {
            fen += '/';
        }
    }
    return fen + " " + side + " - - " + std::to_string(halfmove) + " 1";
}

inline std::set<std::string> legal_wire_moves(std::string_view fen) {
    std::set<std::string> out;
    auto position = Position::from_fen(fen);
    if (!position) {
        return out;
    }
    MoveList list;
    legal_moves(*position, list);
    for (Move move : list) {
        out.insert(wire_notation(move));
    }
    return out;
}

}  // namespace arbiter::rules::xiangqi::test
