// The table's clocks: charged from the turn's start to the request's arrival, the increment, the
// first two plies free, the flag falling (FIDE 6.9) before a request or by the timer, and the
// clocks stored with events and at a stop.
#include <gtest/gtest.h>

#include "table_test_support.hpp"

namespace arbiter::server::app {
namespace {

using namespace testing;
using namespace std::chrono_literals;
using protocol::ErrorCode;

TableSetup timed(std::int64_t initial_ms = 60'000, std::int64_t increment_ms = 1'000) {
    return timed_game(initial_ms, increment_ms);
}

TEST(TableClock, TheFirstTwoPliesAreNotCharged) {
    Table table = new_table(timed());
    auto first = commit(table, move_by(kWhite, "e2e4", 0, 5'000), at(5'010));
    const auto& row = intent_as<storage::AppendMove>(first).move;
    EXPECT_EQ(row.clock_ms, 60'000) << "no charge and no increment";
    EXPECT_EQ(row.think_ms, 5'000);
    const auto& moved = event_as<protocol::Moved>(first);
    ASSERT_TRUE(moved.clock);
    EXPECT_FALSE(moved.clock->running);
    EXPECT_EQ(table.flag_falls_at(), std::nullopt);

    auto second = commit(table, move_by(kBlack, "e7e5", 1, 8'010), at(8'020));
    EXPECT_EQ(intent_as<storage::AppendMove>(second).move.clock_ms, 60'000);
    EXPECT_EQ(intent_as<storage::AppendMove>(second).move.think_ms, 3'000);
    const auto& clock = event_as<protocol::Moved>(second).clock;
    ASSERT_TRUE(clock);
    EXPECT_TRUE(clock->running) << "both sides have moved: White's clock runs";
    EXPECT_EQ(table.flag_falls_at(), steady(8'020 + 60'000))
        << "from the moment the turn began (the commit), for the time left";
}

TEST(TableClock, TheMoverIsChargedUpToArrivalAndGetsTheIncrement) {
    Table table = new_table(timed());
    play_moves(table, {{"e2e4", 0}, {"e7e5", 1'000}});
    // Arrived 2.5 s into White's turn, decided later (it waited behind another commit).
    auto decision = commit(table, move_by(kWhite, "g1f3", 2, 3'500), at(9'000));
    const auto& append = intent_as<storage::AppendMove>(decision);
    EXPECT_EQ(append.move.clock_ms, 60'000 - 2'500 + 1'000);
    EXPECT_EQ(append.move.think_ms, 2'500);
    EXPECT_EQ(append.clock_ms, (Clocks{58'500, 60'000}));
    const auto& clock = event_as<protocol::Moved>(decision).clock;
    ASSERT_TRUE(clock);
    EXPECT_EQ(clock->first_ms, 58'500);
    EXPECT_EQ(clock->second_ms, 60'000);
    EXPECT_TRUE(clock->running);
    EXPECT_EQ(table.plies().back().clocks, (Clocks{58'500, 60'000}));
    EXPECT_EQ(table.clocks_at(steady(9'000 + 4'000)), (Clocks{58'500, 56'000}));
}

TEST(TableClock, AMoveArrivingAfterTheFlagLosesOnTime) {
    Table table = new_table(timed(10'000));
    play_moves(table, {{"e2e4", 0}, {"e7e5", 1'000}});
    auto verdict = table.decide(move_by(kWhite, "g1f3", 2, 11'000), at(11'005));
    ASSERT_TRUE(verdict);
    EXPECT_EQ(verdict->refusal,
              (Refusal{ErrorCode::game_over, "your time ran out before the move arrived"}));
    const auto& end = intent_as<storage::EndGame>(*verdict);
    EXPECT_EQ(end.ending,
              (storage::GameEnding{protocol::GameStatus::ended, rules::Outcome::second_wins,
                                   protocol::EndReason::timeout}));
    EXPECT_EQ(end.clock_ms, (Clocks{0, 10'000}));
    EXPECT_EQ(end.seq, 4u);
    EXPECT_EQ(end.updated_ms, kUnixStart + 11'005);
    EXPECT_FALSE(verdict->answers_request) << "the ended event answers nobody";
    const auto& ended = event_as<protocol::Ended>(*verdict);
    EXPECT_EQ(ended.result, rules::Outcome::second_wins);
    EXPECT_EQ(ended.reason, protocol::EndReason::timeout);
    table.apply(*verdict, at(11'010));
    EXPECT_EQ(table.status(), protocol::GameStatus::ended);
    EXPECT_EQ(table.ply(), 2u);
    EXPECT_EQ(table.flag_falls_at(), std::nullopt);
}

TEST(TableClock, AMoveJustBeforeTheFlagCounts) {
    Table table = new_table(timed(10'000, 0));
    play_moves(table, {{"e2e4", 0}, {"e7e5", 1'000}});
    auto decision = commit(table, move_by(kWhite, "g1f3", 2, 10'999), at(12'000));
    EXPECT_FALSE(decision.refusal);
    EXPECT_EQ(intent_as<storage::AppendMove>(decision).move.clock_ms, 1);
}

TEST(TableClock, TheFlagTimerEndsTheGameAtTheDeadlineAndNotBefore) {
    Table table = new_table(timed(10'000));
    play_moves(table, {{"e2e4", 0}, {"e7e5", 1'000}});
    ASSERT_EQ(table.flag_falls_at(), steady(11'000));
    auto early = commit(table, command::FlagFall{}, at(10'999));
    EXPECT_FALSE(early.intent) << "not yet: the room arms the deadline again";
    EXPECT_EQ(table.flag_falls_at(), steady(11'000));
    auto late = commit(table, command::FlagFall{}, at(11'000));
    const auto& end = intent_as<storage::EndGame>(late);
    EXPECT_EQ(end.ending.reason, protocol::EndReason::timeout);
    EXPECT_EQ(end.ending.result, rules::Outcome::second_wins);
    EXPECT_EQ(table.status(), protocol::GameStatus::ended);
    EXPECT_FALSE(commit(table, command::FlagFall{}, at(12'000)).intent) << "over: nothing";
}

TEST(TableClock, AFlagAgainstASideThatCannotWinIsADraw) {
    // FIDE 6.9: Black has a bare king, so White's flag is a draw; Black's flag loses.
    TableSetup setup = timed(5'000, 0);
    setup.position = "7k/8/8/8/8/8/8/KR6 w - - 0 1";
    Table white_flags = new_table(setup);
    play_moves(white_flags, {{"a1a2", 0}, {"h8g8", 0}});
    auto decision = commit(white_flags, command::FlagFall{}, at(5'000));
    EXPECT_EQ(intent_as<storage::EndGame>(decision).ending.result, rules::Outcome::draw);
    EXPECT_EQ(event_as<protocol::Ended>(decision).result, rules::Outcome::draw);
    EXPECT_EQ(event_as<protocol::Ended>(decision).reason, protocol::EndReason::timeout);

    Table black_flags = new_table(setup);
    play_moves(black_flags, {{"a1a2", 0}, {"h8g8", 0}, {"a2a3", 100}});
    decision = commit(black_flags, command::FlagFall{}, at(100 + 5'000));
    EXPECT_EQ(intent_as<storage::EndGame>(decision).ending.result, rules::Outcome::first_wins);
}

TEST(TableClock, RequestsAfterTheFlagFindTheGameLostOnTime) {
    const std::vector<TableCommand> late = {
        command::Resign{HeldSeats::only(kBlack), steady(12'000)},
        command::Offer{HeldSeats::only(kBlack), protocol::OfferKind::draw,
                       protocol::OfferAction::offer, steady(12'000), std::nullopt, ""},
        command::Claim{HeldSeats::only(kBlack), protocol::ClaimKind::win, steady(12'000)},
    };
    for (const auto& command : late) {
        Table table = new_table(timed(10'000));
        play_moves(table, {{"e2e4", 0}, {"e7e5", 1'000}});
        auto verdict = table.decide(command, at(12'001));
        ASSERT_TRUE(verdict);
        EXPECT_EQ(
            verdict->refusal,
            (Refusal{ErrorCode::game_over, "the game is over: time ran out before this arrived"}));
        EXPECT_EQ(intent_as<storage::EndGame>(*verdict).ending.reason, protocol::EndReason::timeout)
            << "the flag, not the request, ends the game";
        EXPECT_EQ(intent_as<storage::EndGame>(*verdict).clock_ms, (Clocks{0, 10'000}));
    }
}

TEST(TableClock, ARequestEndingTheGameStopsTheClocksAtItsArrival) {
    Table table = new_table(timed(10'000));
    play_moves(table, {{"e2e4", 0}, {"e7e5", 1'000}});
    auto decision =
        commit(table, command::Resign{HeldSeats::only(kWhite), steady(4'000)}, at(6'000));
    EXPECT_EQ(intent_as<storage::EndGame>(decision).clock_ms, (Clocks{7'000, 10'000}));
    EXPECT_EQ(table.clocks_at(steady(20'000)), (Clocks{7'000, 10'000})) << "stopped";
}

TEST(TableClock, EventsStoreTheClocksAsTheyStand) {
    Table table = new_table(timed(10'000));
    play_moves(table, {{"e2e4", 0}, {"e7e5", 1'000}});
    table.set_seat_connected(kBlack, false);
    auto presence = commit(table, command::Presence{kBlack, false}, at(3'000));
    EXPECT_EQ(intent_as<storage::RecordEvent>(presence).clock_ms, (Clocks{8'000, 10'000}));
    auto offer =
        commit(table,
               command::Offer{HeldSeats::only(kWhite), protocol::OfferKind::draw,
                              protocol::OfferAction::offer, steady(4'000), std::nullopt, ""},
               at(4'500));
    EXPECT_EQ(intent_as<storage::SetOffers>(offer).clock_ms, (Clocks{6'500, 10'000}));
    EXPECT_EQ(table.flag_falls_at(), steady(11'000)) << "an event does not restart the turn";
}

TEST(TableClock, AStopStoresTheRunningClocksOnly) {
    Table table = new_table(timed(10'000));
    EXPECT_FALSE(table.clocks_to_store(at(500))) << "not running before both sides moved";
    play_moves(table, {{"e2e4", 0}, {"e7e5", 1'000}});
    const auto stored = table.clocks_to_store(at(3'000));
    ASSERT_TRUE(stored);
    EXPECT_EQ(stored->game, "g1");
    EXPECT_EQ(stored->clock_ms, (Clocks{8'000, 10'000}));
    EXPECT_EQ(stored->updated_ms, kUnixStart + 3'000);
    EXPECT_FALSE(new_table().clocks_to_store(at(0))) << "untimed";
}

TEST(TableClock, AGameLeavingMemoryStoresTheMomentItsFlagFalls) {
    Table table = new_table(timed(10'000, 0));
    EXPECT_FALSE(table.clocks_to_park(at(500))) << "not running before both sides moved";
    play_moves(table, {{"e2e4", 0}, {"e7e5", 1'000}});
    const auto parked = table.clocks_to_park(at(3'000));
    ASSERT_TRUE(parked);
    EXPECT_EQ(parked->clock_ms, (Clocks{8'000, 10'000}));
    EXPECT_EQ(parked->updated_ms, kUnixStart + 3'000);
    ASSERT_TRUE(parked->parked_flag);
    EXPECT_EQ(parked->parked_flag->at_ms, kUnixStart + 11'000) << "White's turn began at 1 s";
    EXPECT_EQ(parked->parked_flag->seq, table.seq());
    EXPECT_FALSE(table.clocks_to_store(at(3'000))->parked_flag) << "a stop parks nothing";
    EXPECT_FALSE(new_table().clocks_to_park(at(0))) << "untimed";
}

/// The game of AGameLeavingMemoryStoresTheMomentItsFlagFalls as storage has it once it left
/// memory at 3 s: White to move with 8 s left, its flag falling at 11 s.
storage::StoredGame parked_game(std::optional<storage::ParkedFlag> flag) {
    Table table = new_table(timed(10'000, 0));
    play_moves(table, {{"e2e4", 0}, {"e7e5", 1'000}});
    storage::StoredGame stored{table.row(), {}};
    stored.header.clock_ms = {8'000, 10'000};
    stored.header.parked_flag = flag;
    std::uint32_t ply = 0;
    for (const char* move : {"e2e4", "e7e5"}) {
        ++ply;
        storage::MoveRow row;
        row.ply = ply;
        row.move = move;
        row.notation = move;
        row.clock_ms = 10'000;
        row.seq = 1 + ply;
        stored.moves.push_back(row);
    }
    return stored;
}

Table restored_at(storage::StoredGame stored, std::int64_t ms) {
    auto table = Table::restore(std::move(stored), TableConfig{}, at(ms));
    EXPECT_TRUE(table) << (table ? "" : table.error());
    commit(*table, command::Start{}, at(ms));  // as the room starts it
    return std::move(table).value();
}

// Its clock ran while it was out of memory: brought back at 6 s, White has 5 s left, and the
// flag falls at the deadline stored, not 8 s after the load.
TEST(TableClock, AGameBroughtBackIsChargedTheTimeItWasOutOfMemory) {
    const std::uint64_t seq = parked_game(std::nullopt).header.seq;
    Table table = restored_at(parked_game(storage::ParkedFlag{kUnixStart + 11'000, seq}), 6'000);
    EXPECT_EQ(table.clocks_at(steady(6'000)), (Clocks{5'000, 10'000}));
    EXPECT_EQ(table.flag_falls_at(), steady(11'000));
    EXPECT_FALSE(commit(table, command::FlagFall{}, at(10'999)).intent);
    EXPECT_EQ(event_as<protocol::Ended>(commit(table, command::FlagFall{}, at(11'000))).reason,
              protocol::EndReason::timeout);
}

// Brought back after its deadline (the host's timer, or a request, came late): no time is left,
// and the flag falls as soon as it is asked.
TEST(TableClock, AGameBroughtBackAfterItsDeadlineFlagsAtOnce) {
    const std::uint64_t seq = parked_game(std::nullopt).header.seq;
    Table table = restored_at(parked_game(storage::ParkedFlag{kUnixStart + 11'000, seq}), 60'000);
    EXPECT_EQ(table.clocks_at(steady(60'000)), (Clocks{0, 10'000}));
    EXPECT_EQ(table.flag_falls_at(), steady(60'000));
    const auto ended = commit(table, command::FlagFall{}, at(60'000));
    EXPECT_EQ(event_as<protocol::Ended>(ended).reason, protocol::EndReason::timeout);
    EXPECT_EQ(event_as<protocol::Ended>(ended).result, rules::Outcome::second_wins);
}

// A deadline stored before a later event (here one seq back) no longer holds: the clocks are
// those stored with that event, and its turn starts at the load, as after a restart.
TEST(TableClock, ADeadlineStoredBeforeALaterEventIsIgnored) {
    const std::uint64_t seq = parked_game(std::nullopt).header.seq;
    Table table =
        restored_at(parked_game(storage::ParkedFlag{kUnixStart + 11'000, seq - 1}), 60'000);
    EXPECT_EQ(table.clocks_at(steady(60'000)), (Clocks{8'000, 10'000}));
    EXPECT_EQ(table.flag_falls_at(), steady(68'000));
}

TEST(TableClock, UntimedGamesHaveNoDeadline) {
    Table table = new_table();
    play_moves(table, {{"e2e4", 0}, {"e7e5", 0}});
    EXPECT_EQ(table.flag_falls_at(), std::nullopt);
    EXPECT_EQ(table.clocks_at(steady(100'000)), (Clocks{0, 0}));
    EXPECT_FALSE(commit(table, command::FlagFall{}, at(100'000)).intent);
}

}  // namespace
}  // namespace arbiter::server::app
