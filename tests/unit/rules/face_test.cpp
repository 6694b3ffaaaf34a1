#include "common/rules/game.hpp"

#include <gtest/gtest.h>

namespace arbiter::rules {
namespace {

TEST(RulesFace, VariantNamesRoundTrip) {
    for (Variant v : {Variant::chess, Variant::xiangqi, Variant::draughts}) {
        EXPECT_EQ(parse_variant(to_string(v)), v);
    }
    EXPECT_EQ(parse_variant("checkers"), std::nullopt);
    EXPECT_EQ(parse_variant(""), std::nullopt);
}

TEST(RulesFace, SeatNamesFollowTheVariant) {
    EXPECT_EQ(seat_name(Variant::chess, Side::first), "white");
    EXPECT_EQ(seat_name(Variant::xiangqi, Side::first), "red");
    EXPECT_EQ(seat_name(Variant::draughts, Side::second), "black");
    EXPECT_EQ(parse_seat(Variant::xiangqi, "red"), Side::first);
    EXPECT_EQ(parse_seat(Variant::xiangqi, "white"), std::nullopt);
    EXPECT_EQ(parse_seat(Variant::chess, "black"), Side::second);
}

TEST(RulesFace, ReasonAndResultStrings) {
    EXPECT_EQ(to_string(Reason::perpetual_check), "perpetual_check");
    EXPECT_EQ(to_string(Reason::move_limit), "move_limit");
    EXPECT_EQ(to_string(Reason::none), "");
    EXPECT_EQ(result_string(Outcome::first_wins), "1-0");
    EXPECT_EQ(result_string(Outcome::second_wins), "0-1");
    EXPECT_EQ(result_string(Outcome::draw), "1/2-1/2");
    EXPECT_EQ(result_string(Outcome::ongoing), "*");
}

}  // namespace
}  // namespace arbiter::rules
