// PDN move notation: short and full forms, the canonical choice, ambiguity, malformed text.
#include <gtest/gtest.h>

#include "support.hpp"

namespace arbiter::rules::draughts {
namespace {

using Moves = std::vector<std::string>;
using testing::game_from;

// The king on 13 can reach 2 taking 22, 15... by two routes with different captured sets.
constexpr std::string_view kAmbiguous = "W:WK13:B7,15,17,19,K29";

TEST(DraughtsNotation, AmbiguousMovesAreListedWithTheirFullPath) {
    const auto game = game_from(kAmbiguous);
    EXPECT_EQ(testing::sorted_moves(*game), (Moves{"13x22x11x2", "13x26x16x2"}));
}

TEST(DraughtsNotation, DivideKeysAmbiguousMovesByTheirFullPath) {
    const auto divide = game_from(kAmbiguous)->divide(1);
    ASSERT_EQ(divide.size(), 2U);
    EXPECT_NE(divide[0].first, divide[1].first);
    for (const auto& [move, count] : divide) {
        EXPECT_EQ(count, 1U);
        EXPECT_TRUE(move == "13x22x11x2" || move == "13x26x16x2") << move;
    }
}

TEST(DraughtsNotation, AmbiguousShortFormIsRefusedWithTheCandidates) {
    const auto game = game_from(kAmbiguous);
    const auto refused = game->play("13x2");
    ASSERT_FALSE(refused.has_value());
    const std::string& message = refused.error().message;
    EXPECT_NE(message.find("ambiguous"), std::string::npos) << message;
    EXPECT_NE(message.find("13x22x11x2"), std::string::npos) << message;
    EXPECT_NE(message.find("13x26x16x2"), std::string::npos) << message;
    EXPECT_EQ(game->ply(), 0U);
}

TEST(DraughtsNotation, FullPathPicksOneOfTheAmbiguousMoves) {
    const auto game = game_from(kAmbiguous);
    const auto played = game->play("13x26x16x2");
    ASSERT_TRUE(played.has_value()) << played.error().message;
    EXPECT_EQ(played->wire, "13x26x16x2");
    EXPECT_EQ(played->notation, "13x26x16x2");
    EXPECT_TRUE(played->capture);
    EXPECT_EQ(game->position(), "B:WK2:B15,K29");
}

TEST(DraughtsNotation, UnambiguousFullPathIsAcceptedAndShortened) {
    const auto game = game_from("B:W10,18,21,22,24,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,11,12,13");
    EXPECT_EQ(game->to_wire("7x14x23").value_or("refused"), "7x23");
    const auto played = game->play("7x14x23");
    ASSERT_TRUE(played.has_value());
    EXPECT_EQ(played->wire, "7x23");
    EXPECT_EQ(game->moves(), (Moves{"7x23"}));
}

TEST(DraughtsNotation, PlainMoveAndItsRefusals) {
    const auto game = game_from("startpos");
    EXPECT_EQ(game->to_wire("22-18").value_or("refused"), "22-18");
    EXPECT_FALSE(game->to_wire("22x18").has_value());  // not a capture
    EXPECT_FALSE(game->to_wire("22-15").has_value());  // not a legal step
    EXPECT_FALSE(game->to_wire("12-16").has_value());  // not White's piece
    EXPECT_FALSE(game->to_wire("22-18-14").has_value());
}

TEST(DraughtsNotation, MalformedTextIsRefused) {
    const auto game = game_from("startpos");
    for (const char* text : {"", "22", "22-", "-18", "22_18", "0-4", "33-29", "22-18x14", "022-18",
                             "22 - 18", "a3-b4"}) {
        const auto refused = game->to_wire(text);
        EXPECT_FALSE(refused.has_value()) << text;
        EXPECT_FALSE(game->play(text).has_value()) << text;
    }
    EXPECT_EQ(game->ply(), 0U);
}

TEST(DraughtsNotation, InvalidPathsOfALegalCaptureAreRefused) {
    const auto game = game_from("W:WK29:B10,22");
    EXPECT_FALSE(game->to_wire("29x18x6").has_value());    // 18 to 6 is no jump
    EXPECT_FALSE(game->to_wire("29x11x6").has_value());    // 11 to 6 is not a diagonal jump
    EXPECT_FALSE(game->to_wire("29x15x1x6").has_value());  // too many legs
    EXPECT_EQ(game->to_wire("29x15x1").value_or("refused"), "29x1");
}

}  // namespace
}  // namespace arbiter::rules::draughts
