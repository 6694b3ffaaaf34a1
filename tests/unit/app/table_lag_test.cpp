// The table's lag compensation (protocol.md, Lag compensation): a timed move is charged its
// elapsed time less the lag credited for it, the credit is stored with the move, the flag waits
// for a move still on its way, and the quotas come back after a restore and a takeback.
#include <gtest/gtest.h>

#include "table_test_support.hpp"

namespace arbiter::server::app {
namespace {

using namespace testing;
using namespace std::chrono_literals;

/// A move by `side` at `ply` arrived at `ms`, from a connection whose round trip is
/// `round_trip_ms`, reporting `think_ms`.
command::Move lagged_move(Side side, std::string text, std::uint32_t ply, std::int64_t ms,
                          std::optional<std::int64_t> round_trip_ms,
                          std::optional<std::int64_t> think_ms = std::nullopt) {
    command::Move move = move_by(side, std::move(text), ply, ms);
    if (round_trip_ms) {
        move.round_trip = std::chrono::milliseconds(*round_trip_ms);
    }
    move.reported_think_ms = think_ms;
    return move;
}

// 1+0: a quota of 1 170 ms to start with, refilled 390 ms a move, 2 730 ms at most.
Table bullet_after_first_moves() {
    Table table = new_table(timed_game(60'000, 0));
    play_moves(table, {{"e2e4", 0}, {"e7e5", 1'000}});  // White's clock runs from 1 000
    return table;
}

TEST(TableLag, AMeasuredRoundTripIsCreditedBack) {
    Table table = bullet_after_first_moves();
    // Moved at once from 200 ms away: on the server the move took 203 ms.
    auto decision = commit(table, lagged_move(kWhite, "g1f3", 2, 1'203, 200), at(1'210));
    const auto& row = intent_as<storage::AppendMove>(decision).move;
    EXPECT_EQ(row.think_ms, 203);
    EXPECT_EQ(row.lag_ms, 200);
    EXPECT_EQ(row.clock_ms, 60'000 - 3) << "charged 3 ms, not 203";
    EXPECT_EQ(intent_as<storage::AppendMove>(decision).clock_ms, (Clocks{59'997, 60'000}));
    EXPECT_EQ(event_as<protocol::Moved>(decision).clock->first_ms, 59'997);
    EXPECT_EQ(table.plies().back().lag_ms, 200);
    EXPECT_EQ(table.lag(kWhite).available_ms(), 1'170 - 200 + 390);
    EXPECT_EQ(table.lag(kBlack).available_ms(), 1'170);
}

TEST(TableLag, AReportedThinkTimeCreditsTheRestUpToTheRoundTrip) {
    Table table = bullet_after_first_moves();
    // 1 230 ms on the server, 1 000 ms of them thinking: 230 ms of lag, which 200 ms explains.
    auto honest = commit(table, lagged_move(kWhite, "g1f3", 2, 2'230, 200, 1'000), at(2'230));
    EXPECT_EQ(intent_as<storage::AppendMove>(honest).move.lag_ms, 230);
    EXPECT_EQ(intent_as<storage::AppendMove>(honest).move.clock_ms, 60'000 - 1'000);
    // Black claims no thought for a 3 s move: only what its 100 ms round trip explains (135).
    auto lying = commit(table, lagged_move(kBlack, "b8c6", 3, 5'230, 100, 0), at(5'230));
    EXPECT_EQ(intent_as<storage::AppendMove>(lying).move.lag_ms, 135);
    EXPECT_EQ(intent_as<storage::AppendMove>(lying).move.clock_ms, 60'000 - 3'000 + 135);
}

TEST(TableLag, WithoutAMeasuredRoundTripNothingChanges) {
    Table table = bullet_after_first_moves();
    auto decision =
        commit(table, lagged_move(kWhite, "g1f3", 2, 1'203, std::nullopt, 0), at(1'210));
    const auto& row = intent_as<storage::AppendMove>(decision).move;
    EXPECT_EQ(row.lag_ms, 0);
    EXPECT_EQ(row.clock_ms, 60'000 - 203);
    EXPECT_EQ(table.lag(kWhite).available_ms(), 1'170 + 390) << "the quota refills";
}

TEST(TableLag, UntimedAndUnchargedMovesGetNoCredit) {
    Table untimed = new_table();
    auto first = commit(untimed, lagged_move(kWhite, "e2e4", 0, 500, 200), at(500));
    EXPECT_EQ(intent_as<storage::AppendMove>(first).move.lag_ms, std::nullopt);
    EXPECT_EQ(untimed.plies().back().lag_ms, 0);

    // Each side's first move in a timed game is not charged: nothing to credit, no refill.
    Table timed = new_table(timed_game(60'000, 0));
    auto opening = commit(timed, lagged_move(kWhite, "e2e4", 0, 500, 200), at(500));
    EXPECT_EQ(intent_as<storage::AppendMove>(opening).move.lag_ms, 0);
    EXPECT_EQ(intent_as<storage::AppendMove>(opening).move.clock_ms, 60'000);
    EXPECT_EQ(timed.lag(kWhite).available_ms(), 1'170);
}

TEST(TableLag, AMoveOnItsWayWhenTheClockReadsZeroStillCounts) {
    Table table = new_table(timed_game(10'000, 0));
    play_moves(table, {{"e2e4", 0}, {"e7e5", 1'000}});
    ASSERT_EQ(table.flag_falls_at(), steady(11'000)) << "no round trip measured yet";
    // White's first timed move, from 200 ms away: from now on its flag waits 200 ms more.
    commit(table, lagged_move(kWhite, "g1f3", 2, 1'200, 200), at(1'200));
    commit(table, move_by(kBlack, "b8c6", 3, 1'500), at(1'500));
    ASSERT_EQ(table.flag_falls_at(), steady(1'500 + 10'000 + 200));
    EXPECT_FALSE(commit(table, command::FlagFall{}, at(11'699)).intent) << "not yet";
    // Sent with 50 ms left, it arrives 150 ms after the clock read 0, and is credited 200 ms.
    auto late = commit(table, lagged_move(kWhite, "f1c4", 4, 11'650, 200), at(11'650));
    EXPECT_FALSE(late.refusal);
    EXPECT_EQ(intent_as<storage::AppendMove>(late).move.clock_ms, 50);
    EXPECT_EQ(intent_as<storage::AppendMove>(late).move.lag_ms, 200);
}

TEST(TableLag, TheFlagFallsOnceTheGraceIsOver) {
    Table table = new_table(timed_game(10'000, 0));
    play_moves(table, {{"e2e4", 0}, {"e7e5", 1'000}});
    commit(table, lagged_move(kWhite, "g1f3", 2, 1'200, 200), at(1'200));
    commit(table, move_by(kBlack, "b8c6", 3, 1'500), at(1'500));
    auto flag = commit(table, command::FlagFall{}, at(11'700));
    EXPECT_EQ(intent_as<storage::EndGame>(flag).ending.reason, protocol::EndReason::timeout);
    // A move that claims no lag (it reports it thought the whole time) is not credited, and
    // the flag had fallen before it arrived.
    Table other = new_table(timed_game(10'000, 0));
    play_moves(other, {{"e2e4", 0}, {"e7e5", 1'000}});
    commit(other, lagged_move(kWhite, "g1f3", 2, 1'200, 200), at(1'200));
    commit(other, move_by(kBlack, "b8c6", 3, 1'500), at(1'500));
    auto verdict = other.decide(lagged_move(kWhite, "f1c4", 4, 11'600, 200, 10'100), at(11'600));
    ASSERT_TRUE(verdict);
    EXPECT_TRUE(verdict->refusal) << "lost on time";
    other.discard(*verdict);
}

TEST(TableLag, ATakebackGivesTheQuotaBack) {
    Table table = bullet_after_first_moves();
    commit(table, lagged_move(kWhite, "g1f3", 2, 1'203, 200), at(1'210));
    commit(table, lagged_move(kBlack, "b8c6", 3, 1'500, 100), at(1'500));
    ASSERT_EQ(table.lag(kWhite).available_ms(), 1'360);
    ASSERT_EQ(table.lag(kBlack).available_ms(), 1'170 - 100 + 390);
    commit(table,
           command::Offer{HeldSeats::only(kWhite), protocol::OfferKind::takeback,
                          protocol::OfferAction::offer, steady(1'600), std::nullopt, ""},
           at(1'600));
    commit(table,
           command::Offer{HeldSeats::only(kBlack), protocol::OfferKind::takeback,
                          protocol::OfferAction::accept, steady(1'700), std::nullopt, ""},
           at(1'700));
    ASSERT_EQ(table.ply(), 2u);
    EXPECT_EQ(table.lag(kWhite).available_ms(), 1'170);
    EXPECT_EQ(table.lag(kBlack).available_ms(), 1'170);
}

TEST(TableLag, ARestoredGameRebuildsItsQuotasFromTheStoredCredits) {
    auto header = header_of(timed_game(60'000, 0));
    header.seq = 5;
    header.ply = 4;
    header.clock_ms = {59'000, 58'000};
    std::vector<storage::MoveRow> moves = {
        {1, "e2e4", "e4", "", 60'000, 1'000, 2, 0, false, 0},
        {2, "e7e5", "e5", "", 60'000, 2'000, 3, 0, false, 0},
        {3, "g1f3", "Nf3", "", 59'000, 1'300, 4, 0, false, 300},
        // A row from before lag compensation: nothing was credited.
        {4, "b8c6", "Nc6", "", 58'000, 2'000, 5, 0, false},
    };
    auto restored = Table::restore(storage::StoredGame{header, moves}, TableConfig{}, at(0));
    ASSERT_TRUE(restored) << restored.error();
    EXPECT_EQ(restored->plies()[2].lag_ms, 300);
    EXPECT_EQ(restored->plies()[3].lag_ms, 0);
    EXPECT_EQ(restored->lag(kWhite).available_ms(), 1'170 - 300 + 390);
    EXPECT_EQ(restored->lag(kBlack).available_ms(), 1'170 + 390);
    EXPECT_EQ(restored->lag(kWhite).flag_grace_ms(), 0) << "round trips are not stored";
}

}  // namespace
}  // namespace arbiter::server::app
