// The internal tables and value types: magic lookups agree with ray walking, Move packs its
// fields, MoveList holds moves without allocating.
#include <gtest/gtest.h>

#include "common/rules/chess/attacks.hpp"

namespace arbiter::rules::chess {
namespace {

TEST(ChessAttacks, MagicLookupsAgreeWithRayWalking) {
    std::uint64_t state = 0x2545F4914F6CDD1DULL;
    auto next = [&state] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    for (Square square = 0; square < 64; ++square) {
        for (int trial = 0; trial < 200; ++trial) {
            const Bitboard occupied = next() & next();
            EXPECT_EQ(rook_attacks(square, occupied),
                      detail::ray_attacks(square, occupied, detail::kRookDirections));
            EXPECT_EQ(bishop_attacks(square, occupied),
                      detail::ray_attacks(square, occupied, detail::kBishopDirections));
        }
    }
}

TEST(ChessAttacks, LeaperAndLineTables) {
    EXPECT_EQ(popcount(knight_attacks(make_square(0, 0))), 2);
    EXPECT_EQ(popcount(knight_attacks(make_square(3, 3))), 8);
    EXPECT_EQ(popcount(king_attacks(make_square(7, 7))), 3);
    EXPECT_EQ(pawn_attacks(white, make_square(4, 1)),
              square_bb(make_square(3, 2)) | square_bb(make_square(5, 2)));
    EXPECT_EQ(pawn_attacks(black, make_square(0, 6)), square_bb(make_square(1, 5)));
    // between() includes the far square; unrelated squares give just that square.
    EXPECT_EQ(between(make_square(0, 0), make_square(3, 3)), square_bb(make_square(1, 1)) |
                                                                 square_bb(make_square(2, 2)) |
                                                                 square_bb(make_square(3, 3)));
    EXPECT_EQ(between(make_square(0, 0), make_square(1, 2)), square_bb(make_square(1, 2)));
    EXPECT_EQ(line_through(make_square(0, 0), make_square(1, 2)), 0U);
    EXPECT_EQ(line_through(make_square(3, 0), make_square(3, 5)), file_bb(3));
}

TEST(ChessTypes, MovePacksItsFieldsInSixteenBits) {
    static_assert(sizeof(Move) == 2);
    const Move promotion(make_square(4, 6), make_square(3, 7), MoveKind::promotion, rook);
    EXPECT_EQ(promotion.from(), make_square(4, 6));
    EXPECT_EQ(promotion.to(), make_square(3, 7));
    EXPECT_EQ(promotion.kind(), MoveKind::promotion);
    EXPECT_EQ(promotion.promotion(), rook);
    EXPECT_TRUE(Move{}.is_null());
    EXPECT_FALSE(promotion.is_null());
    MoveList list;
    EXPECT_TRUE(list.empty());
    list.push(promotion);
    EXPECT_EQ(list.size(), 1);
    EXPECT_EQ(list[0], promotion);
}

}  // namespace
}  // namespace arbiter::rules::chess
