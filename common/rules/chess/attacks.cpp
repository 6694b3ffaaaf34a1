#include "common/rules/chess/attacks.hpp"

namespace arbiter::rules::chess::detail {

namespace {

/// xorshift64*: a fixed seed makes the magic search deterministic and fast.
class Prng {
  public:
    explicit Prng(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next() noexcept {
        state_ ^= state_ >> 12;
        state_ ^= state_ << 25;
        state_ ^= state_ >> 27;
        return state_ * 2685821657736338717ULL;
    }
    /// Few bits set: magic candidates of this shape succeed far sooner.
    std::uint64_t sparse() noexcept { return next() & next() & next(); }

  private:
    std::uint64_t state_;
};

/// Squares whose occupancy matters for a slider on `square`: its rays minus the board edges
/// that it reaches anyway.
Bitboard relevant_mask(Square square, const int (*directions)[2]) {
    const Bitboard edges = ((rank_bb(0) | rank_bb(7)) & ~rank_bb(rank_of(square))) |
                           ((file_bb(0) | file_bb(7)) & ~file_bb(file_of(square)));
    return ray_attacks(square, 0, directions) & ~edges;
}

void build_one(std::array<Magic, 64>& magics, Bitboard* attacks, const int (*directions)[2]) {
    Prng prng(0x9E3779B97F4A7C15ULL);
    std::array<Bitboard, 4096> occupancy{};
    std::array<Bitboard, 4096> reference{};
    std::array<int, 4096> epoch{};
    int attempt = 0;
    Bitboard* next_table = attacks;
    for (Square square = 0; square < 64; ++square) {
        Magic& m = magics[square];
        m.mask = relevant_mask(square, directions);
        m.shift = 64U - static_cast<unsigned>(popcount(m.mask));
        m.attacks = next_table;
        // Carry-Rippler enumeration of every subset of the mask.
        int size = 0;
        Bitboard subset = 0;
        do {
            occupancy[size] = subset;
            reference[size] = ray_attacks(square, subset, directions);
            ++size;
            subset = (subset - m.mask) & m.mask;
        } while (subset != 0);
        Bitboard* table = next_table;
        for (int i = 0; i < size;) {
            do {
                m.magic = prng.sparse();
            } while (popcount((m.mask * m.magic) >> 56) < 6);
            ++attempt;
            for (i = 0; i < size; ++i) {
                const std::size_t index = m.index(occupancy[i]);
                if (epoch[index] < attempt) {
                    epoch[index] = attempt;
                    table[index] = reference[i];
                } else if (table[index] != reference[i]) {
                    break;
                }
            }
        }
        next_table += size;
    }
}

}  // namespace

void build_slider_tables(SliderTables& tables) {
    build_one(tables.rook, tables.rook_attacks.data(), rook_directions);
    build_one(tables.bishop, tables.bishop_attacks.data(), bishop_directions);
}

}  // namespace arbiter::rules::chess::detail
