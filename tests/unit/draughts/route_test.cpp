// Routes: the squares each draughts move passes over and the pieces it takes, in order, for a
// client to draw (protocol.md, Routes).
#include <gtest/gtest.h>

#include <map>

#include "support.hpp"

namespace arbiter::rules::draughts {
namespace {

using testing::game_from;

/// Each legal move with its route, by wire form.
std::map<std::string, MoveRoute> routes_by_move(const Game& game) {
    const auto moves = game.legal_moves();
    const auto routes = game.legal_routes();
    EXPECT_EQ(moves.size(), routes.size());
    std::map<std::string, MoveRoute> out;
    for (std::size_t i = 0; i < moves.size() && i < routes.size(); ++i) {
        out[moves[i]] = routes[i];
    }
    return out;
}

TEST(DraughtsRoutes, PlainMovesRunFromStartToEndAndTakeNothing) {
    const auto routes = routes_by_move(*game_from("startpos"));
    ASSERT_EQ(routes.size(), 7U);
    EXPECT_EQ(routes.at("22-18"), (MoveRoute{{22, 18}, {}}));
    EXPECT_EQ(routes.at("21-17"), (MoveRoute{{21, 17}, {}}));
}

TEST(DraughtsRoutes, AKingsMultiCaptureListsEveryLandingAndTheMenInJumpOrder) {
    // The king on 13 reaches 2 by two routes that take different men; a flying king's leg may
    // pass empty squares before and after the man it takes (13 -> 26 jumps 17, passes 22).
    const auto routes = routes_by_move(*game_from("W:WK13:B7,15,17,19,K29"));
    ASSERT_EQ(routes.size(), 2U);
    EXPECT_EQ(routes.at("13x26x16x2"), (MoveRoute{{13, 26, 16, 2}, {17, 19, 7}}));
    EXPECT_EQ(routes.at("13x22x11x2"), (MoveRoute{{13, 22, 11, 2}, {17, 15, 7}}));
}

TEST(DraughtsRoutes, AShortWireFormStillCarriesTheWholeRoute) {
    // "7x23" names only start and end: the route has the landing on 14 and both men taken.
    const auto game = game_from("B:W10,18,21,22,24,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,11,12,13");
    const auto routes = routes_by_move(*game);
    ASSERT_TRUE(routes.contains("7x23"));
    EXPECT_EQ(routes.at("7x23"), (MoveRoute{{7, 14, 23}, {10, 18}}));
    const auto played = game->play("7x23");
    ASSERT_TRUE(played.has_value());
    EXPECT_EQ(played->route, (MoveRoute{{7, 14, 23}, {10, 18}}));
}

TEST(DraughtsRoutes, EveryRouteMatchesItsWireFormAndTakesOneManPerLeg) {
    const auto game = game_from("W:WK13:B7,15,17,19,K29");
    for (const auto& [move, route] : routes_by_move(*game)) {
        ASSERT_GE(route.path.size(), 2U) << move;
        EXPECT_EQ(route.taken.size(), route.path.size() - 1) << move;
        EXPECT_TRUE(move.starts_with(std::to_string(route.path.front()) + "x")) << move;
        EXPECT_TRUE(move.ends_with("x" + std::to_string(route.path.back()))) << move;
    }
}

TEST(DraughtsRoutes, NoRoutesOnceTheGameIsOverNorInTheOtherGames) {
    const auto game = game_from("W:W21:B17");
    ASSERT_TRUE(game->play("21x14").has_value());
    ASSERT_TRUE(game->status().over());
    EXPECT_TRUE(game->legal_routes().empty());
    for (const Variant variant : {Variant::chess, Variant::xiangqi}) {
        auto other = make_game(variant, "startpos");
        ASSERT_TRUE(other.has_value());
        EXPECT_TRUE((*other)->legal_routes().empty());
        const auto played = (*other)->play(variant == Variant::chess ? "e2e4" : "h3e3");
        ASSERT_TRUE(played.has_value());
        EXPECT_TRUE(played->route.path.empty());
    }
}

}  // namespace
}  // namespace arbiter::rules::draughts
