// The table's engine seats (asked at their ply, answers checked as anyone's moves, failures
// counted per move) and its restore from storage.
#include <gtest/gtest.h>

#include "table_test_support.hpp"

namespace arbiter::server::app {
namespace {

using namespace testing;
using namespace std::chrono_literals;
using protocol::ErrorCode;
using protocol::GameStatus;

TableSetup against_engine() {
    return engine_game();
}

TEST(TableEngine, TheEngineIsAskedOnItsTurnOnly) {
    Table table = new_table(against_engine());
    EXPECT_EQ(table.engine_turn(), std::nullopt) << "White (a person) is to move";
    EXPECT_TRUE(table.seat_connected(kBlack)) << "an engine never disconnects";
    play_moves(table, {{"e2e4", 0}});
    EXPECT_EQ(table.engine_turn(), (EngineTurn{kBlack, 1}));
    auto decision = commit(table, command::EngineMove{1, "e7e5"}, at(10));
    EXPECT_EQ(intent_as<storage::AppendMove>(decision).move.move, "e7e5");
    EXPECT_EQ(table.engine_turn(), std::nullopt);
}

TEST(TableEngine, ALateAnswerIsDropped) {
    Table table = new_table(against_engine());
    play_moves(table, {{"e2e4", 0}});
    auto late = commit(table, command::EngineMove{0, "e7e5"}, at(0));
    EXPECT_FALSE(late.intent);
    EXPECT_EQ(table.ply(), 1u);
    EXPECT_FALSE(commit(table, command::EngineFailure{0, "crashed"}, at(0)).engine_trouble)
        << "a failure for a ply gone by counts for nothing";
}

TEST(TableEngine, AnIllegalAnswerIsRefusedAsAnyMove) {
    Table table = new_table(against_engine());
    play_moves(table, {{"e2e4", 0}});
    EXPECT_EQ(refusal(table, command::EngineMove{1, "e7e4"}, at(0)).code, ErrorCode::illegal_move);
}

TEST(TableEngine, AFirstFailureRestartsASecondEndsTheGame) {
    Table table = new_table(against_engine());
    play_moves(table, {{"e2e4", 0}, {"e7e5", 0}, {"g1f3", 0}});
    auto first = commit(table, command::EngineFailure{3, "no answer in time"}, at(0));
    ASSERT_TRUE(first.engine_trouble);
    EXPECT_EQ(first.engine_trouble->side, kBlack);
    EXPECT_EQ(first.engine_trouble->failures, 1u);
    EXPECT_EQ(first.engine_trouble->why, "no answer in time");
    EXPECT_FALSE(first.intent) << "asked again";
    EXPECT_EQ(table.engine_turn(), (EngineTurn{kBlack, 3}));

    auto second = commit(table, command::EngineFailure{3, "crashed"}, at(0));
    ASSERT_TRUE(second.engine_trouble);
    EXPECT_EQ(second.engine_trouble->failures, 2u);
    EXPECT_EQ(intent_as<storage::EndGame>(second).ending,
              (storage::GameEnding{GameStatus::ended, rules::Outcome::first_wins,
                                   protocol::EndReason::engine_failure}));
    EXPECT_EQ(event_as<protocol::Ended>(second).reason, protocol::EndReason::engine_failure);
    EXPECT_EQ(table.engine_turn(), std::nullopt);
}

TEST(TableEngine, AnEngineThatNeverMovedFailsIntoAnAbort) {
    TableSetup setup = against_engine();
    Table table = new_table(setup);
    play_moves(table, {{"e2e4", 0}});
    commit(table, command::EngineFailure{1, "crashed"}, at(0));
    auto decision = commit(table, command::EngineFailure{1, "crashed"}, at(0));
    EXPECT_EQ(intent_as<storage::EndGame>(decision).ending,
              (storage::GameEnding{GameStatus::aborted, rules::Outcome::ongoing,
                                   protocol::EndReason::engine_failure}));
}

TEST(TableEngine, FailuresCountPerMove) {
    Table table = new_table(against_engine());
    play_moves(table, {{"e2e4", 0}});
    commit(table, command::EngineFailure{1, "crashed"}, at(0));
    commit(table, command::EngineMove{1, "e7e5"}, at(0));
    play_moves(table, {{"g1f3", 0}});
    auto decision = commit(table, command::EngineFailure{3, "crashed"}, at(0));
    EXPECT_EQ(decision.engine_trouble->failures, 1u) << "a new move, a new count";
    EXPECT_FALSE(decision.intent);
}

TEST(TableEngine, WithoutEnginesAnEngineSeatIsNobodys) {
    TableSetup setup = against_engine();
    setup.config.engines = false;
    Table table = new_table(setup);
    play_moves(table, {{"e2e4", 0}});
    EXPECT_EQ(table.engine_turn(), std::nullopt);
    EXPECT_FALSE(table.seat_connected(kBlack));
    EXPECT_TRUE(table.player(kBlack)->engine) << "still shown as an engine's seat";
}

storage::StoredGame stored_game() {
    auto header = header_of(timed_game(60'000, 2'000));
    header.seq = 6;
    header.ply = 3;
    header.clock_ms = {57'000, 58'000};  // stored at a clean stop: Black's turn charged
    header.offers = {{protocol::OfferKind::takeback, kBlack}};
    std::vector<storage::MoveRow> moves = {
        {1, "e2e4", "e4", "", 60'000, 1'000, 2, 0, false},
        {2, "e7e5", "e5", "", 60'000, 2'000, 3, 0, false},
        {3, "g1f3", "Nf3", "", 57'000, 5'000, 5, 0, false},
    };
    // A move stored by a release that wrote other notation keeps it.
    moves[2].notation = "N1f3";
    return storage::StoredGame{header, moves};
}

TEST(TableRestore, AStoredGameIsReplayedWithItsClocksAndNotations) {
    auto restored = Table::restore(stored_game(), TableConfig{}, at(100'000));
    ASSERT_TRUE(restored) << restored.error();
    Table& table = *restored;
    EXPECT_EQ(table.ply(), 3u);
    EXPECT_EQ(table.seq(), 6u);
    EXPECT_EQ(table.turn(), kBlack);
    EXPECT_EQ(table.plies()[2].notation, "N1f3");
    EXPECT_EQ(table.plies()[2].seq, 5u);
    EXPECT_EQ(table.plies()[2].clocks, (Clocks{57'000, 60'000}));
    ASSERT_EQ(table.offers().size(), 1u);
    EXPECT_EQ(table.offers()[0].kind, protocol::OfferKind::takeback);
    EXPECT_EQ(table.offers()[0].by, kBlack);
    EXPECT_EQ(table.clocks_at(steady(100'000)), (Clocks{57'000, 58'000}));
    // Nobody is back yet: both away from the restart (1+2: a 14 s claim window, claim_window.hpp).
    EXPECT_EQ(table.claim_opens_in(kWhite, steady(100'000)), 14'000ms);
    EXPECT_EQ(table.claim_opens_in(kBlack, steady(107'000)), 7'000ms);
    // The time the server was down is charged to no one: the turn starts at Start.
    commit(table, command::Start{}, at(100'500));
    EXPECT_EQ(table.flag_falls_at(), steady(100'500 + 58'000));
    ASSERT_EQ(table.row().offers.size(), 1u);
    EXPECT_EQ(table.row().offers[0].kind, protocol::OfferKind::takeback);
    EXPECT_EQ(table.row().offers[0].by, kBlack);
}

TEST(TableRestore, MovesThatNoLongerReplayAreRefused) {
    auto stored = stored_game();
    stored.moves[1].move = "e7e4";
    auto restored = Table::restore(stored, TableConfig{}, at(0));
    ASSERT_FALSE(restored);
    EXPECT_TRUE(restored.error().starts_with("stored move 2 e7e4 refused: ")) << restored.error();

    auto bad_start = stored_game();
    bad_start.header.initial_position = "not a position";
    EXPECT_FALSE(Table::restore(bad_start, TableConfig{}, at(0)));
}

TEST(TableRestore, AFinishedGameIsNobodysAwayAndShowsItsResult) {
    auto stored = stored_game();
    stored.header.status = GameStatus::ended;
    stored.header.result = rules::Outcome::first_wins;
    stored.header.reason = protocol::EndReason::resign;
    auto restored = Table::restore(stored, TableConfig{}, at(0));
    ASSERT_TRUE(restored);
    EXPECT_EQ(restored->status(), GameStatus::ended);
    EXPECT_EQ(restored->result(), rules::Outcome::first_wins);
    EXPECT_EQ(restored->reason(), protocol::EndReason::resign);
    EXPECT_EQ(restored->seat(kWhite).away_since, std::nullopt);
    const auto state = restored->state(std::nullopt, 0, steady(0));
    EXPECT_EQ(state.result, rules::Outcome::first_wins);
    EXPECT_EQ(state.reason, protocol::EndReason::resign);
    EXPECT_TRUE(state.legal.empty());
}

TEST(TableRestore, AResendOfAStoredMoveIsRebuiltFromTheRecord) {
    auto restored = Table::restore(stored_game(), TableConfig{}, at(0));
    ASSERT_TRUE(restored);
    commit(*restored, command::Start{}, at(0));
    restored->set_seat_connected(kWhite, true);
    auto verdict = restored->decide(move_by(kWhite, "N1f3", 2), at(0));
    ASSERT_TRUE(verdict);
    EXPECT_EQ(verdict->resend, 3u);
    restored->apply(*verdict, at(0));
    const auto moved = restored->moved_event(3);
    ASSERT_TRUE(moved);
    EXPECT_EQ(moved->seq, 5u);
    EXPECT_EQ(moved->notation, "N1f3");
    ASSERT_TRUE(moved->clock);
    EXPECT_EQ(moved->clock->first_ms, 57'000);
    EXPECT_TRUE(moved->clock->running);
}

}  // namespace
}  // namespace arbiter::server::app
