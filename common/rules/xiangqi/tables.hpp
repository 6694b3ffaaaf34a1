#pragma once
/// \file
/// Constant tables of the xiangqi core, computed at compile time: board regions (palaces, the
/// two halves split by the river), which cells a side may land on, and Zobrist keys.

#include <array>
#include <cstdint>

#include "common/rules/xiangqi/position.hpp"

namespace arbiter::rules::xiangqi::tables {

using Region = std::array<bool, kBoardCells>;

constexpr Region make_region(int min_file, int max_file, int min_rank, int max_rank) {
    Region region{};
    for (int rank = min_rank; rank <= max_rank; ++rank) {
        for (int file = min_file; file <= max_file; ++file) {
            region[make_square(file, rank)] = true;
        }
    }
    return region;
}

/// The palace of each colour: files d-f, ranks 1-3 (red) or 8-10 (black).
inline constexpr std::array<Region, 2> kPalace = {make_region(3, 5, 0, 2), make_region(3, 5, 7, 9)};
/// Each colour's side of the river: ranks 1-5 (red) or 6-10 (black).
inline constexpr std::array<Region, 2> kOwnHalf = {make_region(0, 8, 0, 4),
                                                   make_region(0, 8, 5, 9)};

/// kCanLand[colour][cell]: the cell is empty or holds an enemy piece (padding never).
inline constexpr std::array<std::array<bool, 32>, 2> kCanLand = [] {
    std::array<std::array<bool, 32>, 2> lands{};
    for (int color = 0; color < 2; ++color) {
        lands[color][kEmpty] = true;
        for (int kind = 1; kind <= 7; ++kind) {
            lands[color][make_piece(other(static_cast<Color>(color)), static_cast<Kind>(kind))] =
                true;
        }
    }
    return lands;
}();

/// Zobrist keys: one per (piece, cell) and one for black to move.
struct Zobrist {
    std::array<std::array<std::uint64_t, kBoardCells>, 16> pieces{};
    std::uint64_t black_to_move = 0;
};

inline constexpr Zobrist kZobrist = [] {
    Zobrist keys;
    std::uint64_t state = 0x9E3779B97F4A7C15ULL;
    auto next = [&state] {  // splitmix64
        state += 0x9E3779B97F4A7C15ULL;
        std::uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    };
    for (auto& row : keys.pieces) {
        for (auto& key : row) {
            key = next();
        }
    }
    keys.black_to_move = next();
    return keys;
}();

}  // namespace arbiter::rules::xiangqi::tables
