// The table's moves: played at their ply, refused with the codes protocol.md names, re-sends
// answered from the move played, the game's end by a move, and a failed commit.
#include <gtest/gtest.h>

#include "table_test_support.hpp"

namespace arbiter::server::app {
namespace {

using namespace testing;
using protocol::ErrorCode;

constexpr const char* kStartFen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

TEST(TableMoves, AMoveAtThePlyIsStoredThenApplied) {
    Table table = new_table();
    auto verdict = table.decide(move_by(kWhite, "e2e4", 0, 10), at(20));
    ASSERT_TRUE(verdict);
    EXPECT_FALSE(verdict->refusal);
    EXPECT_EQ(table.seq(), 1u) << "nothing changes before the commit";

    const auto& append = intent_as<storage::AppendMove>(*verdict);
    EXPECT_EQ(append.game, "g1");
    EXPECT_EQ(append.seq, 2u);
    EXPECT_EQ(append.clock_ms, (Clocks{0, 0}));
    EXPECT_FALSE(append.ending);
    EXPECT_EQ(append.move.ply, 1u);
    EXPECT_EQ(append.move.move, "e2e4");
    EXPECT_EQ(append.move.notation, "e4");
    EXPECT_EQ(append.move.position, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    EXPECT_EQ(append.move.clock_ms, std::nullopt) << "untimed: no clock, no think time";
    EXPECT_EQ(append.move.think_ms, std::nullopt);
    EXPECT_EQ(append.move.seq, 2u);
    EXPECT_EQ(append.move.played_ms, kUnixStart + 20);
    EXPECT_EQ(append.move.check, false);

    ASSERT_EQ(verdict->events.size(), 1u);
    EXPECT_TRUE(verdict->answers_request) << "the mover's copy echoes its request id";
    const auto& moved = event_as<protocol::Moved>(*verdict);
    EXPECT_EQ(moved.seq, 2u);
    EXPECT_EQ(moved.ply, 1u);
    EXPECT_EQ(moved.move, "e2e4");
    EXPECT_EQ(moved.notation, "e4");
    EXPECT_EQ(moved.position, append.move.position);
    EXPECT_EQ(moved.turn, kBlack);
    EXPECT_EQ(moved.legal.size(), 20u);
    EXPECT_FALSE(moved.check);
    EXPECT_EQ(moved.clock, std::nullopt);

    table.apply(*verdict, at(30));
    EXPECT_EQ(table.ply(), 1u);
    EXPECT_EQ(table.seq(), 2u);
    EXPECT_EQ(table.turn(), kBlack);
    ASSERT_EQ(table.plies().size(), 1u);
    EXPECT_EQ(table.plies()[0].notation, "e4");
    EXPECT_EQ(table.plies()[0].seq, 2u);
}

TEST(TableMoves, DisplayNotationIsReadAsTheWireMove) {
    Table table = new_table();
    const auto decision = commit(table, move_by(kWhite, "Nf3", 0), at(0));
    EXPECT_EQ(intent_as<storage::AppendMove>(decision).move.move, "g1f3");
    EXPECT_EQ(table.game().moves().back(), "g1f3");
}

TEST(TableMoves, AnIllegalMoveIsRefusedWithTheRulesReason) {
    Table table = new_table();
    const auto refused = refusal(table, move_by(kWhite, "e2e5", 0), at(0));
    EXPECT_EQ(refused.code, ErrorCode::illegal_move);
    EXPECT_TRUE(refused.message.starts_with("e2e5")) << refused.message;
    EXPECT_EQ(table.ply(), 0u);
    EXPECT_EQ(table.game().position(), kStartFen);
    // Refused text the rules do not name gets the move in front.
    const auto nonsense = refusal(table, move_by(kWhite, "zz", 0), at(0));
    EXPECT_EQ(nonsense.code, ErrorCode::illegal_move);
    EXPECT_TRUE(nonsense.message.starts_with("zz")) << nonsense.message;
}

// protocol.md, move: the reason judges the text in the notation it is written in; "not a move in
// any notation" only for text that reads as none.
TEST(TableMoves, ARefusedMoveGetsTheReasonOfItsOwnNotation) {
    Table table = new_table();
    EXPECT_EQ(refusal(table, move_by(kWhite, "Qg5", 0), at(0)).message,
              "Qg5: no queen can reach g5");
    EXPECT_EQ(refusal(table, move_by(kWhite, "e2e5", 0), at(0)).message,
              "e2e5: a pawn cannot move there");
    EXPECT_EQ(refusal(table, move_by(kWhite, "hello", 0), at(0)).message,
              "hello: not a move in any notation");
    EXPECT_EQ(table.ply(), 0u);
}

TEST(TableMoves, TheSideNotToMoveIsRefused) {
    Table table = new_table();
    EXPECT_EQ(refusal(table, move_by(kBlack, "e7e5", 0), at(0)),
              (Refusal{ErrorCode::not_your_turn, "it is the opponent's turn"}));
}

TEST(TableMoves, AConnectionWithoutASeatIsForbidden) {
    Table table = new_table();
    EXPECT_EQ(refusal(table, command::Move{HeldSeats{}, "e2e4", 0, steady(0)}, at(0)),
              (Refusal{ErrorCode::forbidden,
                       "you do not hold a seat in this game (resume with your token)"}));
}

TEST(TableMoves, AConnectionHoldingBothSeatsMovesForTheSideToMove) {
    Table table = new_table();
    commit(table, command::Move{HeldSeats{true, true}, "e2e4", 0, steady(0)}, at(0));
    commit(table, command::Move{HeldSeats{true, true}, "e7e5", 1, steady(0)}, at(0));
    EXPECT_EQ(table.ply(), 2u);
}

TEST(TableMoves, AWaitingGameIsNotReady) {
    Table table = new_table(waiting_game());
    EXPECT_EQ(refusal(table, move_by(kWhite, "e2e4", 0), at(0)),
              (Refusal{ErrorCode::not_ready, "the game has not started: no opponent yet"}));
}

TEST(TableMoves, APlyAheadOfTheGameIsStale) {
    Table table = new_table();
    play_moves(table, {{"e2e4", 0}});
    EXPECT_EQ(refusal(table, move_by(kBlack, "e7e5", 3), at(0)),
              (Refusal{ErrorCode::stale_ply, "the game is at ply 1, not 3"}));
}

TEST(TableMoves, AnotherMoveAtAPastPlyIsStale) {
    Table table = new_table();
    play_moves(table, {{"e2e4", 0}, {"e7e5", 0}});
    EXPECT_EQ(refusal(table, move_by(kWhite, "d2d4", 0), at(0)),
              (Refusal{ErrorCode::stale_ply, "ply 0 is already played; the game is at ply 2"}));
    // The move played there, but by the other side: not a re-send either.
    EXPECT_EQ(refusal(table, move_by(kBlack, "e2e4", 0), at(0)).code, ErrorCode::stale_ply);
}

TEST(TableMoves, AReSendIsAnsweredWithTheMovePlayedNeverPlayedTwice) {
    Table table = new_table();
    play_moves(table, {{"e2e4", 0}, {"f7f6", 0}, {"d1h5", 0}});
    for (const std::string text : {"e2e4", "e4"}) {
        auto verdict = table.decide(move_by(kWhite, text, 0), at(0));
        ASSERT_TRUE(verdict) << text;
        EXPECT_EQ(verdict->resend, 1u) << text;
        EXPECT_FALSE(verdict->intent);
        EXPECT_TRUE(verdict->events.empty());
        table.apply(*verdict, at(0));
    }
    // "Qh5" is how the rules read "Qh5+" too: a re-send, found by replaying to that ply.
    auto verdict = table.decide(move_by(kWhite, "Qh5", 2), at(0));
    ASSERT_TRUE(verdict);
    EXPECT_EQ(verdict->resend, 3u);
    table.apply(*verdict, at(0));
    EXPECT_EQ(table.ply(), 3u);
    EXPECT_EQ(table.seq(), 4u);
}

TEST(TableMoves, TheMovedEventIsRebuiltAsFirstSent) {
    Table table = new_table(timed_game(60'000, 1'000));
    std::vector<protocol::Moved> sent;
    for (const auto& [text, ms] : std::vector<std::pair<std::string, std::int64_t>>{
             {"e2e4", 1'000}, {"e7e5", 2'000}, {"g1f3", 3'500}}) {
        auto decision = commit(table, move_by(table.turn(), text, table.ply(), ms), at(ms));
        sent.push_back(event_as<protocol::Moved>(decision));
    }
    for (std::uint32_t ply = 1; ply <= 3; ++ply) {
        const auto rebuilt = table.moved_event(ply);
        ASSERT_TRUE(rebuilt);
        const auto& first = sent[ply - 1];
        EXPECT_EQ(rebuilt->seq, first.seq);
        EXPECT_EQ(rebuilt->ply, first.ply);
        EXPECT_EQ(rebuilt->move, first.move);
        EXPECT_EQ(rebuilt->notation, first.notation);
        EXPECT_EQ(rebuilt->position, first.position);
        EXPECT_EQ(rebuilt->turn, first.turn);
        EXPECT_EQ(rebuilt->legal, first.legal);
        EXPECT_EQ(rebuilt->check, first.check);
        ASSERT_TRUE(rebuilt->clock && first.clock);
        EXPECT_EQ(rebuilt->clock->first_ms, first.clock->first_ms);
        EXPECT_EQ(rebuilt->clock->second_ms, first.clock->second_ms);
        EXPECT_EQ(rebuilt->clock->running, first.clock->running);
    }
    EXPECT_FALSE(table.moved_event(0));
    EXPECT_FALSE(table.moved_event(4));
}

// A re-send is answered from the position each ply's record keeps, not by replaying the game:
// every field is as first sent, the legal moves in the same order, in each variant's notation.
TEST(TableMoves, EveryMovedEventIsRebuiltFromItsRecordInEveryVariant) {
    for (const auto variant :
         {rules::Variant::chess, rules::Variant::xiangqi, rules::Variant::draughts}) {
        Table table = new_table(variant_game(variant));
        std::vector<protocol::Moved> sent;
        while (sent.size() < 60 && table.status() == protocol::GameStatus::playing) {
            const auto legal = table.game().legal_moves();
            ASSERT_FALSE(legal.empty());
            const auto& text = legal[(sent.size() * 7) % legal.size()];
            auto decision = commit(table, move_by(table.turn(), text, table.ply(), 0), at(0));
            sent.push_back(event_as<protocol::Moved>(decision));
        }
        for (std::uint32_t ply = 1; ply <= table.ply(); ++ply) {
            const auto rebuilt = table.moved_event(ply);
            ASSERT_TRUE(rebuilt) << rules::to_string(variant) << " " << ply;
            const auto& first = sent[ply - 1];
            EXPECT_EQ(rebuilt->move, first.move) << rules::to_string(variant) << " " << ply;
            EXPECT_EQ(rebuilt->notation, first.notation);
            EXPECT_EQ(rebuilt->position, first.position);
            EXPECT_EQ(rebuilt->turn, first.turn);
            // In the same order: a client may compare the re-sent event with the first one.
            EXPECT_EQ(rebuilt->legal, first.legal) << rules::to_string(variant) << " " << ply;
            EXPECT_EQ(rebuilt->check, first.check);
            EXPECT_EQ(rebuilt->seq, first.seq);
        }
    }
}

TEST(TableMoves, AMateIsStoredWithTheMoveAndEndsTheGame) {
    Table table = new_table();
    play_moves(table, {{"f2f3", 0}, {"e7e5", 0}, {"g2g4", 0}});
    auto decision = commit(table, move_by(kBlack, "d8h4", 3), at(50));
    const auto& append = intent_as<storage::AppendMove>(decision);
    EXPECT_EQ(append.move.seq, 5u);
    EXPECT_EQ(append.seq, 6u) << "the ended event's number, one past the move's";
    ASSERT_TRUE(append.ending);
    EXPECT_EQ(*append.ending,
              (storage::GameEnding{protocol::GameStatus::ended, rules::Outcome::second_wins,
                                   protocol::EndReason::checkmate}));
    EXPECT_EQ(append.move.check, true);
    ASSERT_EQ(decision.events.size(), 2u);
    const auto& moved = event_as<protocol::Moved>(decision, 0);
    EXPECT_TRUE(moved.legal.empty()) << "no legal moves once over";
    EXPECT_TRUE(moved.check);
    const auto& ended = event_as<protocol::Ended>(decision, 1);
    EXPECT_EQ(ended.seq, 6u);
    EXPECT_EQ(ended.result, rules::Outcome::second_wins);
    EXPECT_EQ(ended.reason, protocol::EndReason::checkmate);
    EXPECT_EQ(ended.status, protocol::GameStatus::ended);

    EXPECT_EQ(table.status(), protocol::GameStatus::ended);
    EXPECT_EQ(table.result(), rules::Outcome::second_wins);
    EXPECT_EQ(table.reason(), protocol::EndReason::checkmate);
    EXPECT_EQ(table.seq(), 6u);
    EXPECT_EQ(refusal(table, move_by(kWhite, "a2a3", 4), at(60)),
              (Refusal{ErrorCode::game_over, "the game is over"}));
    // A past ply in a game over: the re-send is answered, anything else is game_over.
    EXPECT_EQ(table.decide(move_by(kBlack, "Qh4#", 3), at(60))->resend, 4u);
}

TEST(TableMoves, AFinishedGameRefusesOtherMovesAtPastPliesAsOver) {
    Table table = new_table();
    play_moves(table, {{"f2f3", 0}, {"e7e5", 0}, {"g2g4", 0}, {"d8h4", 0}});
    EXPECT_EQ(refusal(table, move_by(kWhite, "d2d4", 0), at(0)),
              (Refusal{ErrorCode::game_over, "the game is over"}));
}

TEST(TableMoves, AFailedCommitTakesTheMoveOffTheGame) {
    Table table = new_table();
    play_moves(table, {{"e2e4", 0}});
    auto verdict = table.decide(move_by(kBlack, "e7e5", 1), at(0));
    ASSERT_TRUE(verdict);
    EXPECT_EQ(table.game().ply(), 2u) << "played once, in decide()";
    table.discard(*verdict);
    EXPECT_EQ(table.ply(), 1u);
    EXPECT_EQ(table.game().ply(), 1u);
    EXPECT_EQ(table.seq(), 2u);
    EXPECT_EQ(table.turn(), kBlack);
    EXPECT_EQ(table.game().moves(), (std::vector<std::string>{"e2e4"}));
    // The same move goes through on the next try.
    const auto again = commit(table, move_by(kBlack, "e7e5", 1), at(0));
    EXPECT_EQ(intent_as<storage::AppendMove>(again).move.seq, 3u);
}

TEST(TableMoves, XiangqiAndDraughtsMovesInTheirNotations) {
    Table xiangqi = new_table(variant_game(rules::Variant::xiangqi));
    auto decision = commit(xiangqi, move_by(kWhite, "C2.5", 0), at(0));
    EXPECT_EQ(intent_as<storage::AppendMove>(decision).move.move, "h3e3");
    EXPECT_EQ(intent_as<storage::AppendMove>(decision).move.notation, "C2.5");

    Table draughts = new_table(variant_game(rules::Variant::draughts));
    decision = commit(draughts, move_by(kWhite, "22-17", 0), at(0));
    EXPECT_EQ(intent_as<storage::AppendMove>(decision).move.move, "22-17");
    EXPECT_EQ(intent_as<storage::AppendMove>(decision).move.check, false);
}

}  // namespace
}  // namespace arbiter::server::app
