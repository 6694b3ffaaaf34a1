// The table's lifecycle: creation, join, resign, the abort window, presence and claims, the
// abandon of a waiting game or of one whose first moves do not come, and what a state shows.
#include <gtest/gtest.h>

#include "server/app/speed.hpp"
#include "table_test_support.hpp"

namespace arbiter::server::app {
namespace {

using namespace testing;
using namespace std::chrono_literals;
using protocol::ErrorCode;
using protocol::GameStatus;

constexpr std::int64_t kTimeout = 60'000;

TEST(TableLifecycle, ANewGameStoresItsWholeRowAndStartsItsTurn) {
    const auto header = header_of(timed_game(30'000, 0));
    Table table = Table::open(header, rules::make_game(rules::Variant::chess, "").value(), {});
    auto created = table.decide(command::Create{}, at(0));
    ASSERT_TRUE(created);
    const auto& row = intent_as<storage::CreateGame>(*created).header;
    EXPECT_EQ(row.id, "g1");
    EXPECT_EQ(row.status, GameStatus::playing);
    EXPECT_EQ(row.seq, 1u);
    EXPECT_EQ(row.seats[1].name, "Bo");
    EXPECT_EQ(row.clock_ms, (Clocks{30'000, 30'000}));
    EXPECT_EQ(row.clock_initial_ms, 30'000);
    EXPECT_TRUE(created->events.empty()) << "the room sends states, not events";
    table.apply(*created, at(1'000));
    EXPECT_EQ(table.seq(), 1u);
    // The first turn starts when the creation is applied: a first move 3 s later thought 3 s.
    auto first = commit(table, move_by(kWhite, "e2e4", 0, 4'000), at(4'010));
    EXPECT_EQ(intent_as<storage::AppendMove>(first).move.think_ms, 3'000);
}

TEST(TableLifecycle, AJoinTakesTheOpenSeatAndStartsTheGame) {
    Table table = new_table(waiting_game());
    auto decision = commit(table, command::Join{"Bo", "hash-bo", HeldSeats{}}, at(700));
    const auto& seated = intent_as<storage::SeatPlayer>(decision);
    EXPECT_EQ(seated.game, "g1");
    EXPECT_EQ(seated.side, kBlack);
    EXPECT_EQ(seated.seat.name, "Bo");
    EXPECT_EQ(seated.seat.token_hash, "hash-bo");
    EXPECT_EQ(seated.seq, 2u);
    EXPECT_EQ(seated.updated_ms, kUnixStart + 700);
    EXPECT_TRUE(decision.then.empty()) << "the creator is here";
    EXPECT_EQ(table.status(), GameStatus::playing);
    EXPECT_EQ(table.seq(), 2u);
    EXPECT_EQ(table.seat(kBlack).name, "Bo");
}

TEST(TableLifecycle, AJoinWhileTheCreatorIsAwayAnnouncesTheirAbsence) {
    Table table = new_table(waiting_game());
    table.set_seat_connected(kWhite, false);
    commit(table, command::Presence{kWhite, false}, at(100));
    auto decision = commit(table, command::Join{"Bo", "hash-bo", HeldSeats{}}, at(5'000));
    ASSERT_EQ(decision.then.size(), 1u);
    const auto& presence = std::get<command::Presence>(decision.then[0]);
    EXPECT_EQ(presence.side, kWhite);
    EXPECT_FALSE(presence.connected);
    auto away = commit(table, decision.then[0], at(5'010));
    EXPECT_EQ(event_as<protocol::Presence>(away).claim_after_ms, kTimeout);
    EXPECT_EQ(table.claim_opens_in(kWhite, steady(5'010)), 60'000ms)
        << "the window counts from the join, not from the creator's leave";
}

TEST(TableLifecycle, AJoinIsRefusedUnlessTheGameWaits) {
    Table waiting = new_table(waiting_game());
    EXPECT_EQ(refusal(waiting, command::Join{"Ana", "h", HeldSeats::only(kWhite)}, at(0)),
              (Refusal{ErrorCode::forbidden, "you already hold a seat in this game"}));
    Table playing = new_table();
    EXPECT_EQ(refusal(playing, command::Join{"Cy", "h", HeldSeats{}}, at(0)),
              (Refusal{ErrorCode::seat_taken, "this game is not open to join"}));
    commit(playing, command::Resign{HeldSeats::only(kWhite), steady(0)}, at(0));
    EXPECT_EQ(refusal(playing, command::Join{"Cy", "h", HeldSeats{}}, at(0)),
              (Refusal{ErrorCode::game_over, "this game is not open to join"}));
}

TEST(TableLifecycle, AResignationIsALossForTheResigner) {
    Table table = new_table();
    play_moves(table, {{"e2e4", 0}});
    auto decision = commit(table, command::Resign{HeldSeats::only(kWhite), steady(5)}, at(9));
    const auto& end = intent_as<storage::EndGame>(decision);
    EXPECT_EQ(end.ending, (storage::GameEnding{GameStatus::ended, rules::Outcome::second_wins,
                                               protocol::EndReason::resign}));
    EXPECT_EQ(end.seq, 3u);
    EXPECT_EQ(end.updated_ms, kUnixStart + 9);
    EXPECT_TRUE(decision.answers_request);
    const auto& ended = event_as<protocol::Ended>(decision);
    EXPECT_EQ(ended.result, rules::Outcome::second_wins);
    EXPECT_EQ(ended.reason, protocol::EndReason::resign);
    EXPECT_EQ(ended.status, protocol::GameStatus::ended);
    EXPECT_EQ(refusal(table, command::Resign{HeldSeats::only(kBlack), steady(0)}, at(0)),
              (Refusal{ErrorCode::game_over, "the game is over"}));
}

TEST(TableLifecycle, AResignationNeedsASeatAndAGameInPlay) {
    Table waiting = new_table(waiting_game());
    EXPECT_EQ(refusal(waiting, command::Resign{HeldSeats::only(kWhite), steady(0)}, at(0)),
              (Refusal{ErrorCode::not_ready,
                       "the game has not started: there is nothing to resign (abort cancels it)"}));
    Table table = new_table();
    EXPECT_EQ(refusal(table, command::Resign{HeldSeats{}, steady(0)}, at(0)),
              (Refusal{ErrorCode::forbidden, "you do not hold a seat in this game"}));
}

TEST(TableLifecycle, EitherSideAbortsUntilBothHaveMoved) {
    for (const std::size_t plies : {0, 1}) {
        Table table = new_table();
        if (plies == 1) {
            play_moves(table, {{"e2e4", 0}});
        }
        auto decision = commit(table, command::Abort{HeldSeats::only(kBlack), steady(0)}, at(0));
        EXPECT_EQ(intent_as<storage::EndGame>(decision).ending,
                  (storage::GameEnding{GameStatus::aborted, rules::Outcome::ongoing,
                                       protocol::EndReason::aborted}));
        EXPECT_EQ(event_as<protocol::Ended>(decision).result, rules::Outcome::ongoing);
        EXPECT_EQ(event_as<protocol::Ended>(decision).status, protocol::GameStatus::aborted);
        EXPECT_EQ(table.status(), GameStatus::aborted);
    }
    Table waiting = new_table(waiting_game());
    EXPECT_TRUE(commit(waiting, command::Abort{HeldSeats::only(kWhite), steady(0)}, at(0)).intent);
}

TEST(TableLifecycle, AbortIsRefusedOnceBothSidesMoved) {
    Table table = new_table();
    EXPECT_EQ(refusal(table, command::Abort{HeldSeats{}, steady(0)}, at(0)),
              (Refusal{ErrorCode::forbidden, "you do not hold a seat in this game"}));
    play_moves(table, {{"e2e4", 0}, {"e7e5", 0}});
    EXPECT_EQ(refusal(table, command::Abort{HeldSeats::only(kWhite), steady(0)}, at(0)),
              (Refusal{ErrorCode::not_allowed,
                       "both sides have moved: the game can no longer be aborted"}));
    commit(table, command::Resign{HeldSeats::only(kWhite), steady(0)}, at(0));
    EXPECT_EQ(refusal(table, command::Abort{HeldSeats::only(kWhite), steady(0)}, at(0)),
              (Refusal{ErrorCode::game_over, "the game is over"}));
}

TEST(TableLifecycle, PresenceEventsAreStoredAndOpenTheClaimWindow) {
    Table table = new_table();
    table.set_seat_connected(kBlack, false);
    auto gone = commit(table, command::Presence{kBlack, false}, at(1'000));
    EXPECT_EQ(intent_as<storage::RecordEvent>(gone).seq, 2u);
    const auto& event = event_as<protocol::Presence>(gone);
    EXPECT_EQ(event.seat, kBlack);
    EXPECT_FALSE(event.connected);
    EXPECT_EQ(event.claim_after_ms, kTimeout);
    EXPECT_FALSE(gone.answers_request);
    EXPECT_EQ(table.seat(kBlack).away_since, steady(1'000));
    EXPECT_EQ(table.claim_opens_in(kBlack, steady(21'000)), 40'000ms);
    const auto state = table.state(kWhite, 0, steady(21'000));
    ASSERT_TRUE(state.second);
    EXPECT_FALSE(state.second->connected);
    EXPECT_EQ(state.second->claim_after_ms, 40'000);

    table.set_seat_connected(kBlack, true);
    auto back = commit(table, command::Presence{kBlack, true}, at(2'000));
    EXPECT_TRUE(event_as<protocol::Presence>(back).connected);
    EXPECT_EQ(event_as<protocol::Presence>(back).claim_after_ms, std::nullopt);
    EXPECT_EQ(table.seat(kBlack).away_since, std::nullopt);
    EXPECT_EQ(table.claim_opens_in(kBlack, steady(90'000)), std::nullopt);
}

TEST(TableLifecycle, APresenceOvertakenByAnotherChangeIsNothing) {
    Table table = new_table();
    // Queued while the seat was away, decided once it is back: the later presence tells that.
    auto decision = commit(table, command::Presence{kBlack, false}, at(0));
    EXPECT_FALSE(decision.intent);
    EXPECT_TRUE(decision.events.empty());
    EXPECT_EQ(table.seq(), 1u);
}

TEST(TableLifecycle, PresenceInAFinishedGameIsNotAnEvent) {
    Table table = new_table();
    commit(table, command::Resign{HeldSeats::only(kWhite), steady(0)}, at(0));
    table.set_seat_connected(kWhite, false);
    auto decision = commit(table, command::Presence{kWhite, false}, at(10));
    EXPECT_FALSE(decision.intent);
    EXPECT_EQ(table.seat(kWhite).away_since, steady(10));
}

TEST(TableLifecycle, AClaimOpensOnceTheOpponentWasAwayForTheTimeout) {
    Table table = new_table();
    play_moves(table, {{"e2e4", 0}});
    const command::Claim win{HeldSeats::only(kWhite), protocol::ClaimKind::win, steady(0)};
    EXPECT_EQ(refusal(table, win, at(0)),
              (Refusal{ErrorCode::not_allowed, "your opponent is connected"}));
    table.set_seat_connected(kBlack, false);
    commit(table, command::Presence{kBlack, false}, at(1'000));
    EXPECT_EQ(refusal(table, win, at(1'000 + kTimeout - 250)),
              (Refusal{ErrorCode::not_allowed, "a claim opens 250 ms from now"}));
    auto decision = commit(table, win, at(1'000 + kTimeout));
    EXPECT_EQ(intent_as<storage::EndGame>(decision).ending,
              (storage::GameEnding{GameStatus::ended, rules::Outcome::first_wins,
                                   protocol::EndReason::abandoned}));
    EXPECT_EQ(event_as<protocol::Ended>(decision).reason, protocol::EndReason::abandoned);
}

// Claims after a disconnect wait a tenth of the game's estimated length (claim_window.hpp): in
// a 1+0 game the 60 s of the flag would be the whole game.
TEST(TableLifecycle, ABulletGameOpensTheClaimWindowSooner) {
    Table table = new_table(timed_game(60'000, 0));
    play_moves(table, {{"e2e4", 0}});
    table.set_seat_connected(kBlack, false);
    auto gone = commit(table, command::Presence{kBlack, false}, at(1'000));
    EXPECT_EQ(event_as<protocol::Presence>(gone).claim_after_ms, 10'000);
    EXPECT_EQ(table.claim_opens_in(kBlack, steady(6'000)), 5'000ms);
    const auto win_at = [](std::int64_t ms) {
        return command::Claim{HeldSeats::only(kWhite), protocol::ClaimKind::win, steady(ms)};
    };
    EXPECT_EQ(refusal(table, win_at(10'999), at(10'999)),
              (Refusal{ErrorCode::not_allowed, "a claim opens 1 ms from now"}));
    auto decision = commit(table, win_at(11'000), at(11'000));
    EXPECT_EQ(event_as<protocol::Ended>(decision).reason, protocol::EndReason::abandoned);
}

TEST(TableLifecycle, TheServerFlagStaysTheLongestClaimWindow) {
    auto setup = timed_game(600'000, 5'000);
    setup.config.disconnect_timeout = 20'000ms;
    Table table = new_table(setup);
    table.set_seat_connected(kBlack, false);
    auto gone = commit(table, command::Presence{kBlack, false}, at(0));
    EXPECT_EQ(event_as<protocol::Presence>(gone).claim_after_ms, 20'000)
        << "10+5 would wait 80 s; the flag says 20 s at most";
}

TEST(TableLifecycle, AClaimOfADrawEndsTheGameDrawn) {
    Table table = new_table();
    table.set_seat_connected(kWhite, false);
    commit(table, command::Presence{kWhite, false}, at(0));
    auto decision = commit(
        table, command::Claim{HeldSeats::only(kBlack), protocol::ClaimKind::draw, steady(kTimeout)},
        at(kTimeout));
    EXPECT_EQ(intent_as<storage::EndGame>(decision).ending.result, rules::Outcome::draw);
}

TEST(TableLifecycle, AClaimNeedsASeatAndAGameInPlay) {
    Table waiting = new_table(waiting_game());
    EXPECT_EQ(refusal(waiting,
                      command::Claim{HeldSeats::only(kWhite), protocol::ClaimKind::win, steady(0)},
                      at(0)),
              (Refusal{ErrorCode::not_ready, "the game has not started: no opponent yet"}));
    Table table = new_table();
    EXPECT_EQ(
        refusal(table, command::Claim{HeldSeats{}, protocol::ClaimKind::win, steady(0)}, at(0)),
        (Refusal{ErrorCode::forbidden, "you do not hold a seat in this game"}));
    commit(table, command::Resign{HeldSeats::only(kWhite), steady(0)}, at(0));
    EXPECT_EQ(
        refusal(table, command::Claim{HeldSeats::only(kWhite), protocol::ClaimKind::win, steady(0)},
                at(0)),
        (Refusal{ErrorCode::game_over, "the game is not in play"}));
}

TEST(TableLifecycle, AWaitingGameWhoseCreatorStaysAwayIsAbandoned) {
    Table table = new_table(waiting_game());
    EXPECT_EQ(table.abandon_at(), std::nullopt);
    table.set_seat_connected(kWhite, false);
    auto gone = commit(table, command::Presence{kWhite, false}, at(2'000));
    EXPECT_EQ(event_as<protocol::Presence>(gone).claim_after_ms, std::nullopt)
        << "nobody can claim a game that waits";
    EXPECT_EQ(table.abandon_at(), steady(2'000 + kTimeout));
    EXPECT_FALSE(commit(table, command::AbandonCheck{}, at(2'000 + kTimeout - 1)).intent);
    auto decision = commit(table, command::AbandonCheck{}, at(2'000 + kTimeout));
    const auto& end = intent_as<storage::EndGame>(decision);
    EXPECT_EQ(end.ending, (storage::GameEnding{GameStatus::aborted, rules::Outcome::ongoing,
                                               protocol::EndReason::abandoned}));
    EXPECT_EQ(event_as<protocol::Ended>(decision).status, protocol::GameStatus::aborted);
    EXPECT_EQ(table.abandon_at(), std::nullopt);
}

TEST(TableLifecycle, ACreatorWhoComesBackIsNotAbandoned) {
    Table table = new_table(waiting_game());
    table.set_seat_connected(kWhite, false);
    commit(table, command::Presence{kWhite, false}, at(0));
    table.set_seat_connected(kWhite, true);
    commit(table, command::Presence{kWhite, true}, at(10));
    EXPECT_EQ(table.abandon_at(), std::nullopt);
    EXPECT_FALSE(commit(table, command::AbandonCheck{}, at(kTimeout + 1)).intent);
    EXPECT_EQ(table.status(), GameStatus::waiting);
}

// A game between two people whose first moves do not come is aborted, as Lichess does: the side
// to move at ply 0 or 1 has first_move_time() from its turn's start (25 s at 5+3, blitz).
TEST(TableLifecycle, AJoinedGameWithoutAFirstMoveInTimeIsAborted) {
    Table table = new_table(timed_game(300'000, 3'000));
    EXPECT_EQ(table.abandon_at(), steady(25'000));
    EXPECT_FALSE(commit(table, command::AbandonCheck{}, at(24'999)).intent);
    auto decision = commit(table, command::AbandonCheck{}, at(25'000));
    EXPECT_EQ(intent_as<storage::EndGame>(decision).ending,
              (storage::GameEnding{GameStatus::aborted, rules::Outcome::ongoing,
                                   protocol::EndReason::abandoned}));
    EXPECT_EQ(event_as<protocol::Ended>(decision).status, GameStatus::aborted);
    EXPECT_EQ(table.abandon_at(), std::nullopt);
}

TEST(TableLifecycle, EachSidesFirstMoveHasItsOwnWindowThenNone) {
    Table table = new_table(timed_game(300'000, 3'000));
    commit(table, move_by(kWhite, "e2e4", 0, 20'000), at(20'000));
    EXPECT_EQ(table.abandon_at(), steady(45'000)) << "Black's window starts with its turn";
    EXPECT_FALSE(commit(table, command::AbandonCheck{}, at(44'000)).intent);
    commit(table, move_by(kBlack, "e7e5", 1, 44'000), at(44'000));
    EXPECT_EQ(table.abandon_at(), std::nullopt) << "both sides moved: the clocks decide now";
    EXPECT_FALSE(commit(table, command::AbandonCheck{}, at(100'000)).intent);
    EXPECT_EQ(table.status(), GameStatus::playing);
}

TEST(TableLifecycle, TheFirstMoveWindowFollowsTheSpeedAndSparesEngineGames) {
    EXPECT_EQ(new_table(timed_game(15'000, 0)).abandon_at(), steady(15'000));     // ultra-bullet
    EXPECT_EQ(new_table(timed_game(60'000, 0)).abandon_at(), steady(20'000));     // bullet
    EXPECT_EQ(new_table(timed_game(600'000, 0)).abandon_at(), steady(30'000));    // rapid
    EXPECT_EQ(new_table(timed_game(1'800'000, 0)).abandon_at(), steady(35'000));  // classical
    EXPECT_EQ(new_table().abandon_at(), steady(35'000)) << "untimed counts as classical";
    Table engine = new_table(engine_game());
    EXPECT_EQ(engine.abandon_at(), std::nullopt) << "an engine's opponent may take its time";
    EXPECT_FALSE(commit(engine, command::AbandonCheck{}, at(3'600'000)).intent);
}

TEST(Speed, EstimatedDurationAgainstLichessBounds) {
    using protocol::ClockSpec;
    EXPECT_EQ(speed_of(ClockSpec{29'000, 0}), Speed::ultra_bullet);
    EXPECT_EQ(speed_of(ClockSpec{30'000, 0}), Speed::bullet);
    EXPECT_EQ(speed_of(ClockSpec{0, 1'000}), Speed::bullet);  // 40 s
    EXPECT_EQ(speed_of(ClockSpec{179'000, 0}), Speed::bullet);
    EXPECT_EQ(speed_of(ClockSpec{120'000, 1'000}), Speed::bullet);  // 2+1: 160 s
    EXPECT_EQ(speed_of(ClockSpec{180'000, 2'000}), Speed::blitz);   // 3+2: 260 s
    EXPECT_EQ(speed_of(ClockSpec{479'000, 0}), Speed::blitz);
    EXPECT_EQ(speed_of(ClockSpec{480'000, 0}), Speed::rapid);
    EXPECT_EQ(speed_of(ClockSpec{900'000, 10'000}), Speed::rapid);        // 15+10: 1,300 s
    EXPECT_EQ(speed_of(ClockSpec{1'200'000, 10'000}), Speed::classical);  // 20+10: 1,600 s
}

TEST(TableLifecycle, TheStateShowsTheGameAsItStands) {
    Table table = new_table(timed_game(60'000, 0));
    play_moves(table, {{"e2e4", 0}, {"e7e5", 0}, {"g1f3", 1'000}});
    const auto state = table.state(std::nullopt, 3, steady(1'500));
    EXPECT_EQ(state.game, "g1");
    EXPECT_EQ(state.seq, 4u);
    EXPECT_EQ(state.status, protocol::GameStatus::playing);
    EXPECT_EQ(state.you, std::nullopt);
    EXPECT_EQ(state.moves, (std::vector<std::string>{"e2e4", "e7e5", "g1f3"}));
    EXPECT_EQ(state.notation, (std::vector<std::string>{"e4", "e5", "Nf3"}));
    EXPECT_EQ(state.ply, 3u);
    EXPECT_EQ(state.turn, kBlack);
    EXPECT_FALSE(state.legal.empty());
    ASSERT_TRUE(state.clock);
    EXPECT_EQ(state.clock->first_ms, 59'000);
    EXPECT_EQ(state.clock->second_ms, 59'500);
    EXPECT_TRUE(state.clock->running);
    EXPECT_EQ(state.spectators, 3u);
    ASSERT_TRUE(state.first);
    EXPECT_EQ(state.first->name, "Ana");
    EXPECT_TRUE(state.first->connected);
    EXPECT_EQ(state.first->claim_after_ms, std::nullopt);
    EXPECT_EQ(state.result, rules::Outcome::ongoing);
    EXPECT_EQ(state.reason, protocol::EndReason::none);
    const auto summary = table.summary();
    EXPECT_EQ(summary.status, protocol::GameStatus::playing);
    EXPECT_EQ(summary.ply, 3u);
    EXPECT_EQ(summary.created_ms, kUnixStart);
}

TEST(TableLifecycle, AWaitingGameShowsItsOpenSeat) {
    Table table = new_table(waiting_game());
    EXPECT_FALSE(table.player(kBlack));
    const auto state = table.state(kWhite, 0, steady(0));
    EXPECT_EQ(state.status, protocol::GameStatus::waiting);
    EXPECT_FALSE(state.second);
    EXPECT_TRUE(state.legal.empty()) << "no moves before the game starts";
}

}  // namespace
}  // namespace arbiter::server::app
