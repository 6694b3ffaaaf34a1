// The wire names of the game's lifecycle terms: each enumerator has one, and reading it back
// gives the enumerator; anything else is refused.
#include <gtest/gtest.h>

#include "common/protocol/messages.hpp"

namespace arbiter::protocol {
namespace {

TEST(ProtocolNames, GameStatusRoundTrips) {
    for (const auto status :
         {GameStatus::waiting, GameStatus::playing, GameStatus::ended, GameStatus::aborted}) {
        EXPECT_EQ(parse_game_status(to_string(status)), status);
    }
    EXPECT_EQ(to_string(GameStatus::playing), "playing");
    EXPECT_FALSE(parse_game_status("Playing"));
    EXPECT_FALSE(parse_game_status(""));
    EXPECT_TRUE(is_finished(GameStatus::aborted));
    EXPECT_FALSE(is_finished(GameStatus::playing));
}

TEST(ProtocolNames, EndReasonRoundTripsAndNoneIsEmpty) {
    for (int i = 0; i <= static_cast<int>(EndReason::engine_failure); ++i) {
        const auto reason = static_cast<EndReason>(i);
        EXPECT_EQ(parse_end_reason(to_string(reason)), reason) << i;
    }
    EXPECT_EQ(to_string(EndReason::none), "");
    EXPECT_EQ(to_string(EndReason::engine_failure), "engine_failure");
    EXPECT_FALSE(parse_end_reason("resigned"));
}

TEST(ProtocolNames, RulesReasonsKeepTheirNames) {
    for (int i = 0; i <= static_cast<int>(rules::Reason::move_limit); ++i) {
        const auto reason = static_cast<rules::Reason>(i);
        EXPECT_EQ(to_string(end_reason_of(reason)), rules::to_string(reason)) << i;
    }
}

TEST(ProtocolNames, ResultTextRoundTrips) {
    EXPECT_EQ(result_text(rules::Outcome::ongoing), "");
    EXPECT_EQ(result_text(rules::Outcome::draw), "1/2-1/2");
    for (const auto outcome : {rules::Outcome::ongoing, rules::Outcome::first_wins,
                               rules::Outcome::second_wins, rules::Outcome::draw}) {
        EXPECT_EQ(parse_result(result_text(outcome)), outcome);
    }
    EXPECT_FALSE(parse_result("*"));
    EXPECT_FALSE(parse_result("1-1"));
}

}  // namespace
}  // namespace arbiter::protocol
