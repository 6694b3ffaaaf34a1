// One accepting and one refusing test for each movement rule of xiangqi.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "common/rules/game.hpp"
#include "helpers.hpp"

namespace arbiter::rules::xiangqi {
namespace {

using test::fen_of;
using test::legal_wire_moves;

TEST(XiangqiMovegen, GeneralStepsOrthogonallyInsideThePalace) {
    const auto moves = legal_wire_moves(fen_of({"K d1", "k f10", "P a4"}));
    EXPECT_TRUE(moves.count("d1e1"));
    EXPECT_TRUE(moves.count("d1d2"));
    EXPECT_FALSE(moves.count("d1c1")) << "outside the palace";
    EXPECT_FALSE(moves.count("d1e2")) << "the general never moves diagonally";
    EXPECT_FALSE(legal_wire_moves(fen_of({"K d3", "k f10"})).count("d3d4"));
}

TEST(XiangqiMovegen, AdvisorStepsDiagonallyInsideThePalace) {
    const auto centre = legal_wire_moves(fen_of({"K d1", "A e2", "k f10"}));
    EXPECT_TRUE(centre.count("e2f1"));
    EXPECT_TRUE(centre.count("e2d3"));
    EXPECT_TRUE(centre.count("e2f3"));
    EXPECT_FALSE(centre.count("e2e3")) << "advisors move only diagonally";
    const auto corner = legal_wire_moves(fen_of({"K e1", "A f3", "k d10"}));
    EXPECT_TRUE(corner.count("f3e2"));
    EXPECT_FALSE(corner.count("f3g4")) << "outside the palace";
}

TEST(XiangqiMovegen, ElephantEyeBlocksAndTheRiverStops) {
    // The eye d2 is taken: c1-e3 is blocked, c1-a3 is free.
    const auto blocked = legal_wire_moves(fen_of({"K e1", "B c1", "n d2", "k d10"}));
    EXPECT_TRUE(blocked.count("c1a3"));
    EXPECT_FALSE(blocked.count("c1e3"));
    // At the board edge: a3 jumps to c1 and c5; the eye b4 taken by a black soldier blocks c5.
    const auto edge = legal_wire_moves(fen_of({"K e1", "B a3", "p b4", "k d10"}));
    EXPECT_TRUE(edge.count("a3c1"));
    EXPECT_FALSE(edge.count("a3c5"));
    // Never across the river.
    const auto river = legal_wire_moves(fen_of({"K e1", "B c5", "k d10"}));
    EXPECT_TRUE(river.count("c5a3"));
    EXPECT_TRUE(river.count("c5e3"));
    EXPECT_FALSE(river.count("c5a7"));
    EXPECT_FALSE(river.count("c5e7"));
    const auto black = legal_wire_moves(fen_of({"K e1", "b g6", "k d10"}, 'b'));
    EXPECT_TRUE(black.count("g6e8"));
    EXPECT_FALSE(black.count("g6e4"));
}

TEST(XiangqiMovegen, HorseLegBlocksAtTheBoardEdge) {
    const auto free_leg = legal_wire_moves(fen_of({"K e1", "N a1", "k d10"}));
    EXPECT_TRUE(free_leg.count("a1b3"));
    EXPECT_TRUE(free_leg.count("a1c2"));
    // The leg a2 is taken: a1-b3 is blocked, a1-c2 (leg b1) is not.
    const auto hobbled = legal_wire_moves(fen_of({"K e1", "N a1", "r a2", "k d10"}));
    EXPECT_FALSE(hobbled.count("a1b3"));
    EXPECT_TRUE(hobbled.count("a1c2"));
    // At the far edge: i10 to g9 needs h10 empty.
    const auto far_edge = legal_wire_moves(fen_of({"K e1", "N i10", "r h10", "k d10"}));
    EXPECT_FALSE(far_edge.count("i10g9"));
    EXPECT_TRUE(far_edge.count("i10h8"));
}

TEST(XiangqiMovegen, ChariotSlidesAndCapturesButNeverJumps) {
    const auto moves = legal_wire_moves(fen_of({"K e1", "R a1", "p a5", "k d10"}));
    EXPECT_TRUE(moves.count("a1a4"));
    EXPECT_TRUE(moves.count("a1a5"));
    EXPECT_FALSE(moves.count("a1a6"));
}

TEST(XiangqiMovegen, CannonCapturesOverOneScreenOfEitherColour) {
    const auto own_screen = legal_wire_moves(fen_of({"K e1", "C a1", "P a5", "r a8", "k d10"}));
    EXPECT_TRUE(own_screen.count("a1a8"));
    EXPECT_TRUE(own_screen.count("a1a4"));
    EXPECT_FALSE(own_screen.count("a1a5")) << "never onto an own piece";
    EXPECT_FALSE(own_screen.count("a1a9"));
    const auto enemy_screen = legal_wire_moves(fen_of({"K e1", "C a1", "p a5", "r a8", "k d10"}));
    EXPECT_TRUE(enemy_screen.count("a1a8"));
    const auto no_screen = legal_wire_moves(fen_of({"K e1", "C a1", "r a8", "k d10"}));
    EXPECT_FALSE(no_screen.count("a1a8"));
    EXPECT_TRUE(no_screen.count("a1a7"));
    const auto two_screens =
        legal_wire_moves(fen_of({"K e1", "C a1", "P a4", "p a6", "r a8", "k d10"}));
    EXPECT_FALSE(two_screens.count("a1a8"));
    EXPECT_TRUE(two_screens.count("a1a6"));
}

TEST(XiangqiMovegen, SoldierStepsSidewaysOnlyAfterCrossing) {
    const auto home = legal_wire_moves(fen_of({"K e1", "P e4", "k d10"}));
    EXPECT_TRUE(home.count("e4e5"));
    EXPECT_FALSE(home.count("e4d4"));
    EXPECT_FALSE(home.count("e4f4"));
    const auto crossed = legal_wire_moves(fen_of({"K e1", "P e6", "k d10"}));
    EXPECT_TRUE(crossed.count("e6e7"));
    EXPECT_TRUE(crossed.count("e6d6"));
    EXPECT_TRUE(crossed.count("e6f6"));
    EXPECT_FALSE(crossed.count("e6e5")) << "never backwards";
    const auto black = legal_wire_moves(fen_of({"K e1", "p c5", "k d10"}, 'b'));
    EXPECT_TRUE(black.count("c5c4"));
    EXPECT_TRUE(black.count("c5b5"));
    EXPECT_FALSE(black.count("c5c6"));
}

TEST(XiangqiMovegen, FlyingGeneralPinsTheLastPieceBetween) {
    const auto pinned = legal_wire_moves(fen_of({"K e1", "C e5", "k e10"}));
    EXPECT_TRUE(pinned.count("e5e9"));
    EXPECT_TRUE(pinned.count("e5e2"));
    EXPECT_FALSE(pinned.count("e5f5"));
    EXPECT_FALSE(pinned.count("e5d5")) << "leaving the file would let the generals face";
    const auto two_between = legal_wire_moves(fen_of({"K e1", "P e4", "C e5", "k e10"}));
    EXPECT_TRUE(two_between.count("e5d5")) << "the soldier on e4 still stands between";
    EXPECT_TRUE(two_between.count("e5f5"));
}

TEST(XiangqiMovegen, GeneralMayNotStepOntoAnOpenFileFacingTheOther) {
    EXPECT_FALSE(legal_wire_moves(fen_of({"K d1", "k e10", "P a4"})).count("d1e1"));
    EXPECT_TRUE(legal_wire_moves(fen_of({"K d1", "k e10", "P e4"})).count("d1e1"));
}

TEST(XiangqiMovegen, CheckMustBeAnswered) {
    // The black chariot on e8 checks: only moves that resolve it are legal.
    const auto moves = legal_wire_moves(fen_of({"K e1", "R a3", "r e8", "k d10"}));
    EXPECT_TRUE(moves.count("e1f1"));
    EXPECT_FALSE(moves.count("e1d1")) << "the generals would face on the d-file";
    EXPECT_TRUE(moves.count("a3e3")) << "blocking";
    EXPECT_FALSE(moves.count("a3a4"));
    // A cannon checks through a screen of either side; removing the screen answers it.
    const auto cannon = legal_wire_moves(fen_of({"K e1", "N e3", "c e8", "k d10"}));
    EXPECT_TRUE(cannon.count("e3d5"));
    EXPECT_FALSE(cannon.count("e1e2")) << "stays on the file, the screen remains";
}

TEST(XiangqiMovegen, MoveCreatingACannonScreenAgainstOwnGeneralIsIllegal) {
    const auto moves = legal_wire_moves(fen_of({"K e1", "R a4", "c e8", "k d10"}));
    EXPECT_FALSE(moves.count("a4e4"));
    EXPECT_TRUE(moves.count("a4d4"));
}

TEST(XiangqiMovegen, HorseChecksUnlessItsLegIsBlocked) {
    // Horse on d3 attacks e1 through the leg d2.
    EXPECT_TRUE(Position::from_fen(fen_of({"K e1", "n d3", "k d10"}))->in_check());
    EXPECT_FALSE(Position::from_fen(fen_of({"K e1", "n d3", "n d2", "k d10"}))->in_check());
}

TEST(XiangqiMovegen, FaceListsEveryLegalMoveAndPlaysOnlyThem) {
    auto game = make_game(Variant::xiangqi, "");
    ASSERT_TRUE(game);
    EXPECT_EQ((*game)->legal_moves().size(), 44U);
    EXPECT_TRUE((*game)->play("h3e3"));
    EXPECT_FALSE((*game)->play("h3e3")) << "no piece there any more";
    EXPECT_FALSE((*game)->play("a10a6")) << "a chariot cannot jump the soldier";
    EXPECT_TRUE((*game)->play("h10g8"));
    EXPECT_EQ((*game)->moves(), (std::vector<std::string>{"h3e3", "h10g8"}));
    EXPECT_EQ((*game)->ply(), 2U);
    EXPECT_EQ((*game)->turn(), Side::first);
}

TEST(XiangqiMovegen, PlayAcceptsOnlyStrictWireForm) {
    auto game = make_game(Variant::xiangqi, "startpos");
    ASSERT_TRUE(game);
    for (const char* text : {"C2.5", "H3E3", "h3e3 ", "h3-e3", "h03e3", "h3e", "j3e3", "h11e3"}) {
        EXPECT_FALSE((*game)->play(text)) << text;
    }
    EXPECT_EQ((*game)->ply(), 0U);
}

// is_legal, has_legal_move and legal_moves_to probe only what they need; each must agree with the
// full list at every position of random games (checks, pins and facing generals included).
TEST(XiangqiMovegen, ProbesAgreeWithTheLegalList) {
    std::mt19937 random(20261202);
    int positions = 0;
    for (int game = 0; game < 20; ++game) {
        auto position = Position::from_fen(kStartFen);
        ASSERT_TRUE(position);
        for (int ply = 0; ply < 150; ++ply, ++positions) {
            MoveList legal;
            legal_moves(*position, legal);
            ASSERT_EQ(has_legal_move(*position), legal.size() > 0) << position->fen();
            std::set<std::uint16_t> listed;
            for (const Move move : legal) {
                listed.insert(move.bits);
            }
            for (int file_from = 0; file_from < 9; ++file_from) {
                for (int rank_from = 0; rank_from < 10; ++rank_from) {
                    const Square from = make_square(file_from, rank_from);
                    const Piece piece = position->at(from);
                    if (piece == kEmpty || color_of(piece) != position->side_to_move()) {
                        continue;  // no move of the side to move starts there
                    }
                    for (int file_to = 0; file_to < 9; ++file_to) {
                        for (int rank_to = 0; rank_to < 10; ++rank_to) {
                            const Move move(from, make_square(file_to, rank_to));
                            ASSERT_EQ(is_legal(*position, move), listed.count(move.bits) == 1)
                                << position->fen() << " " << wire_notation(move);
                        }
                    }
                }
            }
            for (int file = 0; file < 9; ++file) {
                for (int rank = 0; rank < 10; ++rank) {
                    const Square to = make_square(file, rank);
                    MoveList ending_there;
                    legal_moves_to(*position, to, ending_there);
                    std::set<std::uint16_t> expected;
                    for (const Move move : legal) {
                        if (move.to() == to) {
                            expected.insert(move.bits);
                        }
                    }
                    std::set<std::uint16_t> got;
                    for (const Move move : ending_there) {
                        got.insert(move.bits);
                    }
                    ASSERT_EQ(got, expected) << position->fen();
                }
            }
            if (legal.size() == 0) {
                break;
            }
            *position = position->after(legal[random() % legal.size()]);
        }
    }
    EXPECT_GT(positions, 1000);
}

}  // namespace
}  // namespace arbiter::rules::xiangqi
