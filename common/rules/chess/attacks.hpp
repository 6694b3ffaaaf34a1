#pragma once
/// \file
/// Attack sets: leaper and ray tables computed at compile time, and magic-bitboard tables for the
/// sliding pieces built once on first use (a function-local static, no init() to call first).

#include <array>
#include <cstdint>

#include "common/rules/chess/types.hpp"

namespace arbiter::rules::chess {

namespace detail {

constexpr Bitboard step_attacks(Square square, const int (*steps)[2], int count) {
    Bitboard result = 0;
    for (int i = 0; i < count; ++i) {
        const int file = file_of(square) + steps[i][0];
        const int rank = rank_of(square) + steps[i][1];
        if (file >= 0 && file < 8 && rank >= 0 && rank < 8) {
            result |= square_bb(make_square(file, rank));
        }
    }
    return result;
}

constexpr int kKnightSteps[8][2] = {{1, 2},   {2, 1},   {2, -1}, {1, -2},
                                    {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
constexpr int kKingSteps[8][2] = {{1, 0},  {1, 1},   {0, 1},  {-1, 1},
                                  {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
constexpr int kWhitePawnSteps[2][2] = {{-1, 1}, {1, 1}};
constexpr int kBlackPawnSteps[2][2] = {{-1, -1}, {1, -1}};
constexpr int kRookDirections[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
constexpr int kBishopDirections[4][2] = {{1, 1}, {-1, 1}, {1, -1}, {-1, -1}};

/// Slider attacks by walking rays; the reference the magic tables are built from.
constexpr Bitboard ray_attacks(Square square, Bitboard occupied, const int (*directions)[2]) {
    Bitboard result = 0;
    for (int d = 0; d < 4; ++d) {
        int file = file_of(square) + directions[d][0];
        int rank = rank_of(square) + directions[d][1];
        while (file >= 0 && file < 8 && rank >= 0 && rank < 8) {
            const Square target = make_square(file, rank);
            result |= square_bb(target);
            if (occupied & square_bb(target)) {
                break;
            }
            file += directions[d][0];
            rank += directions[d][1];
        }
    }
    return result;
}

template <std::size_t Steps>
constexpr std::array<Bitboard, 64> leaper_table(const int (&steps)[Steps][2]) {
    std::array<Bitboard, 64> table{};
    for (Square s = 0; s < 64; ++s) {
        table[s] = step_attacks(s, steps, Steps);
    }
    return table;
}

/// between[a][b]: squares strictly between a and b on a shared line, plus b itself (so that
/// "block or capture the checker" is one mask); just b when a and b share no line.
/// line[a][b]: the whole line through a and b, or 0.
struct LineTables {
    std::array<std::array<Bitboard, 64>, 64> between{};
    std::array<std::array<Bitboard, 64>, 64> line{};
};

constexpr LineTables make_line_tables() {
    LineTables tables{};
    constexpr int kDirections[8][2] = {{1, 0}, {-1, 0}, {0, 1},  {0, -1},
                                       {1, 1}, {-1, 1}, {1, -1}, {-1, -1}};
    for (Square a = 0; a < 64; ++a) {
        for (Square b = 0; b < 64; ++b) {
            tables.between[a][b] = square_bb(b);
        }
        for (const auto& direction : kDirections) {
            Bitboard path = 0;
            Bitboard full = square_bb(a);
            for (int f = file_of(a) + direction[0], r = rank_of(a) + direction[1];
                 f >= 0 && f < 8 && r >= 0 && r < 8; f += direction[0], r += direction[1]) {
                full |= square_bb(make_square(f, r));
            }
            for (int f = file_of(a) - direction[0], r = rank_of(a) - direction[1];
                 f >= 0 && f < 8 && r >= 0 && r < 8; f -= direction[0], r -= direction[1]) {
                full |= square_bb(make_square(f, r));
            }
            for (int f = file_of(a) + direction[0], r = rank_of(a) + direction[1];
                 f >= 0 && f < 8 && r >= 0 && r < 8; f += direction[0], r += direction[1]) {
                const Square b = make_square(f, r);
                tables.between[a][b] = path | square_bb(b);
                tables.line[a][b] = full;
                path |= square_bb(b);
            }
        }
    }
    return tables;
}

inline constexpr std::array<Bitboard, 64> kKnightTable = leaper_table(kKnightSteps);
inline constexpr std::array<Bitboard, 64> kKingTable = leaper_table(kKingSteps);
inline constexpr std::array<std::array<Bitboard, 64>, 2> kPawnTable = {
    leaper_table(kWhitePawnSteps), leaper_table(kBlackPawnSteps)};
inline constexpr LineTables kLineTables = make_line_tables();

/// One square's entry of a fancy-magic table: attacks[((occupied & mask) * magic) >> shift].
struct Magic {
    Bitboard mask = 0;
    Bitboard magic = 0;
    const Bitboard* attacks = nullptr;
    unsigned shift = 0;

    std::size_t index(Bitboard occupied) const noexcept {
        return static_cast<std::size_t>(((occupied & mask) * magic) >> shift);
    }
};

/// Magic tables for rooks and bishops (about 840 KB), built by slider_tables().
struct SliderTables {
    std::array<Magic, 64> rook;
    std::array<Magic, 64> bishop;
    std::array<Bitboard, 102400> rook_attacks;
    std::array<Bitboard, 5248> bishop_attacks;
};

/// Fills the tables from the embedded magic numbers.
void build_slider_tables(SliderTables& tables);

inline const SliderTables& slider_tables() {
    static const SliderTables* const kTables = [] {
        static SliderTables storage;
        build_slider_tables(storage);
        return &storage;
    }();
    return *kTables;
}

}  // namespace detail

constexpr Bitboard knight_attacks(Square square) noexcept {
    return detail::kKnightTable[square];
}
constexpr Bitboard king_attacks(Square square) noexcept {
    return detail::kKingTable[square];
}
/// Squares a pawn of `color` on `square` attacks.
constexpr Bitboard pawn_attacks(Color color, Square square) noexcept {
    return detail::kPawnTable[color][square];
}
/// Squares strictly between a and b, plus b; just b when they share no line.
constexpr Bitboard between(Square a, Square b) noexcept {
    return detail::kLineTables.between[a][b];
}
/// The full line through a and b, or 0 when they share none.
constexpr Bitboard line_through(Square a, Square b) noexcept {
    return detail::kLineTables.line[a][b];
}

inline Bitboard rook_attacks(Square square, Bitboard occupied) noexcept {
    const detail::Magic& m = detail::slider_tables().rook[square];
    return m.attacks[m.index(occupied)];
}
inline Bitboard bishop_attacks(Square square, Bitboard occupied) noexcept {
    const detail::Magic& m = detail::slider_tables().bishop[square];
    return m.attacks[m.index(occupied)];
}
inline Bitboard queen_attacks(Square square, Bitboard occupied) noexcept {
    return rook_attacks(square, occupied) | bishop_attacks(square, occupied);
}

}  // namespace arbiter::rules::chess
