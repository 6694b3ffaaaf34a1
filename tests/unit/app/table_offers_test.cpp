// The table's offers: draws, takebacks to the exact clocks of their ply, rematches, and what an
// engine seat answers.
#include <gtest/gtest.h>

#include "table_test_support.hpp"

namespace arbiter::server::app {
namespace {

using namespace testing;
using protocol::ErrorCode;
using protocol::OfferAction;
using protocol::OfferKind;

command::Offer offer_by(Side side, OfferKind kind, OfferAction action, std::int64_t ms = 0) {
    return command::Offer{HeldSeats::only(side), kind, action, steady(ms), std::nullopt, "g2"};
}

TEST(TableOffers, ADrawOfferIsStoredWithTheGameAndAnnounced) {
    Table table = new_table();
    play_moves(table, {{"e2e4", 0}});
    auto decision = commit(table, offer_by(kWhite, OfferKind::draw, OfferAction::offer), at(0));
    const auto& stored = intent_as<storage::SetOffers>(decision);
    EXPECT_EQ(stored.game, "g1");
    EXPECT_EQ(stored.seq, 3u);
    ASSERT_EQ(stored.offers.size(), 1u);
    EXPECT_EQ(stored.offers[0].kind, OfferKind::draw);
    EXPECT_EQ(stored.offers[0].by, kWhite);
    const auto& event = event_as<protocol::OfferEvent>(decision);
    EXPECT_EQ(event.seq, 3u);
    EXPECT_EQ(event.kind, OfferKind::draw);
    EXPECT_EQ(event.action, OfferAction::offer);
    EXPECT_EQ(event.by, kWhite);
    EXPECT_TRUE(decision.answers_request);
    EXPECT_TRUE(decision.then.empty()) << "a person answers for themselves";
    ASSERT_EQ(table.offers().size(), 1u);
    EXPECT_EQ(table.state(kBlack, 0, steady(0)).offers.size(), 1u);
}

TEST(TableOffers, AnAcceptedDrawEndsTheGameByAgreement) {
    Table table = new_table();
    play_moves(table, {{"e2e4", 0}});
    commit(table, offer_by(kWhite, OfferKind::draw, OfferAction::offer), at(0));
    auto decision = commit(table, offer_by(kBlack, OfferKind::draw, OfferAction::accept), at(0));
    EXPECT_EQ(intent_as<storage::EndGame>(decision).ending,
              (storage::GameEnding{protocol::GameStatus::ended, rules::Outcome::draw,
                                   protocol::EndReason::agreement}));
    EXPECT_EQ(event_as<protocol::Ended>(decision).result, rules::Outcome::draw);
    EXPECT_EQ(event_as<protocol::Ended>(decision).reason, protocol::EndReason::agreement);
    EXPECT_TRUE(table.offers().empty()) << "a rematch may be offered from here on";
}

TEST(TableOffers, ADeclineClosesTheOffer) {
    Table table = new_table();
    play_moves(table, {{"e2e4", 0}});
    commit(table, offer_by(kWhite, OfferKind::draw, OfferAction::offer), at(0));
    auto decision = commit(table, offer_by(kBlack, OfferKind::draw, OfferAction::decline), at(0));
    EXPECT_TRUE(intent_as<storage::SetOffers>(decision).offers.empty());
    EXPECT_EQ(event_as<protocol::OfferEvent>(decision).action, OfferAction::decline);
    EXPECT_EQ(event_as<protocol::OfferEvent>(decision).by, kBlack);
    EXPECT_TRUE(table.offers().empty());
}

TEST(TableOffers, OfferingWhatTheOpponentOffersAcceptsIt) {
    Table table = new_table();
    play_moves(table, {{"e2e4", 0}});
    commit(table, offer_by(kWhite, OfferKind::draw, OfferAction::offer), at(0));
    auto decision = commit(table, offer_by(kBlack, OfferKind::draw, OfferAction::offer), at(0));
    EXPECT_EQ(intent_as<storage::EndGame>(decision).ending.reason, protocol::EndReason::agreement);
}

TEST(TableOffers, AnOfferAlreadyOpenOrAnAnswerToNoneIsRefused) {
    Table table = new_table();
    play_moves(table, {{"e2e4", 0}});
    EXPECT_EQ(refusal(table, offer_by(kBlack, OfferKind::draw, OfferAction::accept), at(0)),
              (Refusal{ErrorCode::no_offer, "your opponent has no pending draw offer"}));
    commit(table, offer_by(kWhite, OfferKind::draw, OfferAction::offer), at(0));
    EXPECT_EQ(refusal(table, offer_by(kWhite, OfferKind::draw, OfferAction::offer), at(0)),
              (Refusal{ErrorCode::not_allowed, "you already made that offer"}));
    EXPECT_EQ(refusal(table, offer_by(kWhite, OfferKind::draw, OfferAction::accept), at(0)),
              (Refusal{ErrorCode::no_offer, "your opponent has no pending draw offer"}))
        << "nobody accepts their own offer";
    EXPECT_EQ(refusal(table,
                      command::Offer{HeldSeats{}, OfferKind::draw, OfferAction::offer, steady(0),
                                     std::nullopt, ""},
                      at(0)),
              (Refusal{ErrorCode::forbidden, "you do not hold a seat in this game"}));
}

TEST(TableOffers, DrawsAndTakebacksNeedAGameInPlay) {
    Table waiting = new_table(waiting_game());
    EXPECT_EQ(refusal(waiting, offer_by(kWhite, OfferKind::draw, OfferAction::offer), at(0)),
              (Refusal{ErrorCode::not_ready, "the game has not started: no opponent yet"}));
    Table over = new_table();
    commit(over, command::Resign{HeldSeats::only(kWhite), steady(0)}, at(0));
    EXPECT_EQ(refusal(over, offer_by(kWhite, OfferKind::takeback, OfferAction::offer), at(0)),
              (Refusal{ErrorCode::game_over, "the game is over"}));
}

TEST(TableOffers, AConnectionHoldingBothSeatsOffersForTheSideToMoveAndAnswersForTheOther) {
    Table table = new_table();
    play_moves(table, {{"e2e4", 0}, {"e7e5", 0}});
    const HeldSeats both{true, true};
    auto offered = commit(
        table,
        command::Offer{both, OfferKind::draw, OfferAction::offer, steady(0), std::nullopt, ""},
        at(0));
    EXPECT_EQ(event_as<protocol::OfferEvent>(offered).by, kWhite) << "White is to move";
    auto accepted = commit(
        table,
        command::Offer{both, OfferKind::draw, OfferAction::accept, steady(0), std::nullopt, ""},
        at(0));
    EXPECT_EQ(intent_as<storage::EndGame>(accepted).ending.reason, protocol::EndReason::agreement)
        << "answered for Black, to whom it was made";
}

TEST(TableOffers, AMoveLapsesTheOpenOffers) {
    Table table = new_table();
    play_moves(table, {{"e2e4", 0}});
    commit(table, offer_by(kWhite, OfferKind::draw, OfferAction::offer), at(0));
    commit(table, offer_by(kWhite, OfferKind::takeback, OfferAction::offer), at(0));
    ASSERT_EQ(table.offers().size(), 2u);
    play_moves(table, {{"e7e5", 0}});
    EXPECT_TRUE(table.offers().empty());
    EXPECT_EQ(refusal(table, offer_by(kBlack, OfferKind::draw, OfferAction::accept), at(0)).code,
              ErrorCode::no_offer);
}

TEST(TableOffers, ATakebackOfTheOfferersLastMoveTakesOnePly) {
    Table table = new_table();
    play_moves(table, {{"e2e4", 0}});
    commit(table, offer_by(kWhite, OfferKind::takeback, OfferAction::offer), at(0));
    auto decision =
        commit(table, offer_by(kBlack, OfferKind::takeback, OfferAction::accept), at(40));
    const auto& back = intent_as<storage::TakeBack>(decision);
    EXPECT_EQ(back.to_ply, 0u);
    EXPECT_EQ(back.seq, 4u);
    EXPECT_EQ(back.updated_ms, kUnixStart + 40);
    const auto& event = event_as<protocol::TakenBack>(decision);
    EXPECT_EQ(event.ply, 0u);
    EXPECT_EQ(event.turn, kWhite);
    EXPECT_EQ(event.legal.size(), 20u);
    EXPECT_EQ(event.position, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    EXPECT_EQ(table.ply(), 0u);
    EXPECT_TRUE(table.plies().empty());
    EXPECT_TRUE(table.offers().empty());
    EXPECT_EQ(table.turn(), kWhite);
}

TEST(TableOffers, ATakebackAfterTheReplyTakesTwoPliesToTheirExactClocks) {
    Table table = new_table(timed_game(60'000, 1'000));
    play_moves(table, {{"e2e4", 0}, {"e7e5", 1'000}, {"g1f3", 4'000}, {"b8c6", 9'000}});
    const Clocks at_ply_two = table.plies()[1].clocks;
    ASSERT_EQ(at_ply_two, (Clocks{60'000, 60'000}));
    ASSERT_EQ(table.plies()[3].clocks, (Clocks{58'000, 56'000}));
    commit(table, offer_by(kWhite, OfferKind::takeback, OfferAction::offer, 10'000), at(10'000));
    auto decision =
        commit(table, offer_by(kBlack, OfferKind::takeback, OfferAction::accept), at(12'000));
    const auto& back = intent_as<storage::TakeBack>(decision);
    EXPECT_EQ(back.to_ply, 2u) << "White's move and Black's reply go";
    EXPECT_EQ(back.clock_ms, at_ply_two);
    const auto& event = event_as<protocol::TakenBack>(decision);
    ASSERT_TRUE(event.clock);
    EXPECT_EQ(event.clock->first_ms, 60'000);
    EXPECT_EQ(event.clock->second_ms, 60'000);
    EXPECT_TRUE(event.clock->running);
    EXPECT_EQ(table.ply(), 2u);
    EXPECT_EQ(table.turn(), kWhite);
    EXPECT_EQ(table.flag_falls_at(), steady(12'000 + 60'000)) << "the turn starts again now";
}

TEST(TableOffers, ATakebackNeedsAMoveOfTheOfferersOwn) {
    Table table = new_table();
    EXPECT_EQ(refusal(table, offer_by(kWhite, OfferKind::takeback, OfferAction::offer), at(0)),
              (Refusal{ErrorCode::not_allowed, "there is no move to take back"}));
    play_moves(table, {{"e2e4", 0}});
    EXPECT_EQ(refusal(table, offer_by(kBlack, OfferKind::takeback, OfferAction::offer), at(0)),
              (Refusal{ErrorCode::not_allowed, "you have no move to take back"}));
}

TEST(TableOffers, ARematchIsAgreedOnceTheGameIsOver) {
    Table table = new_table();
    EXPECT_EQ(refusal(table, offer_by(kWhite, OfferKind::rematch, OfferAction::offer), at(0)),
              (Refusal{ErrorCode::not_allowed, "a rematch is offered once the game is over"}));
    commit(table, command::Resign{HeldSeats::only(kWhite), steady(0)}, at(0));
    commit(table, offer_by(kWhite, OfferKind::rematch, OfferAction::offer), at(0));
    auto decision = commit(table, offer_by(kBlack, OfferKind::rematch, OfferAction::accept), at(0));
    const auto& link = intent_as<storage::LinkRematch>(decision);
    EXPECT_EQ(link.game, "g1");
    EXPECT_EQ(link.next, "g2");
    EXPECT_EQ(link.seq, 4u);
    EXPECT_EQ(event_as<protocol::RematchEvent>(decision).next, "g2");
    EXPECT_EQ(event_as<protocol::RematchEvent>(decision).seq, 4u);
    EXPECT_EQ(table.rematch_next(), "g2");
    EXPECT_TRUE(table.offers().empty());
    EXPECT_EQ(refusal(table, offer_by(kBlack, OfferKind::rematch, OfferAction::offer), at(0)),
              (Refusal{ErrorCode::not_allowed, "the rematch has already started"}));
}

TEST(TableOffers, ARematchNeedsTheOffererStillHere) {
    Table table = new_table();
    commit(table, command::Resign{HeldSeats::only(kWhite), steady(0)}, at(0));
    commit(table, offer_by(kWhite, OfferKind::rematch, OfferAction::offer), at(0));
    table.set_seat_connected(kWhite, false);
    EXPECT_EQ(refusal(table, offer_by(kBlack, OfferKind::rematch, OfferAction::accept), at(0)),
              (Refusal{ErrorCode::not_allowed,
                       "your opponent has left this game; a rematch needs both players here"}));
}

TEST(TableOffers, NoRematchWithASeatNobodyTook) {
    Table table = new_table(waiting_game());
    commit(table, command::Abort{HeldSeats::only(kWhite), steady(0)}, at(0));
    EXPECT_EQ(refusal(table, offer_by(kWhite, OfferKind::rematch, OfferAction::offer), at(0)),
              (Refusal{ErrorCode::not_allowed,
                       "nobody took the other seat: there is no one to offer a rematch to"}));
}

TEST(TableOffers, AnEngineDeclinesDrawsAndTakebacksAtOnce) {
    Table table = new_table(engine_game());
    play_moves(table, {{"e2e4", 0}});
    commit(table, command::EngineMove{1, "e7e5"}, at(0));
    for (const auto kind : {OfferKind::draw, OfferKind::takeback}) {
        auto decision = commit(table, offer_by(kWhite, kind, OfferAction::offer), at(0));
        ASSERT_EQ(decision.then.size(), 1u);
        const auto* reply = std::get_if<command::Offer>(&decision.then[0]);
        ASSERT_TRUE(reply);
        EXPECT_TRUE(reply->held.holds(kBlack));
        EXPECT_EQ(reply->kind, kind);
        EXPECT_EQ(reply->action, OfferAction::decline);
        auto declined = commit(table, decision.then[0], at(0));
        EXPECT_EQ(event_as<protocol::OfferEvent>(declined).action, OfferAction::decline);
        EXPECT_EQ(event_as<protocol::OfferEvent>(declined).by, kBlack);
        EXPECT_TRUE(table.offers().empty());
    }
}

TEST(TableOffers, AnEngineAcceptsARematchUnlessTheConnectionHasTooManyGames) {
    Table table = new_table(engine_game());
    commit(table, command::Resign{HeldSeats::only(kWhite), steady(0)}, at(0));
    auto limited = offer_by(kWhite, OfferKind::rematch, OfferAction::offer);
    limited.open_game_refusal = "this connection already has 8 open games";
    EXPECT_EQ(refusal(table, limited, at(0)),
              (Refusal{ErrorCode::not_allowed, "this connection already has 8 open games"}));

    auto decision = commit(table, offer_by(kWhite, OfferKind::rematch, OfferAction::offer), at(0));
    ASSERT_EQ(decision.then.size(), 1u);
    auto reply = std::get<command::Offer>(decision.then[0]);
    EXPECT_EQ(reply.action, OfferAction::accept);
    reply.next_game = "g3";  // the room names the next game
    auto accepted = commit(table, reply, at(0));
    EXPECT_EQ(intent_as<storage::LinkRematch>(accepted).next, "g3");
}

TEST(TableOffers, ARestartedGameHasItsEngineAnswerTheOpenOffer) {
    auto header = header_of(engine_game());
    header.offers = {{protocol::OfferKind::draw, rules::Side::first}};
    storage::StoredGame stored{header, {}};
    auto table = Table::restore(stored, TableConfig{}, at(0));
    ASSERT_TRUE(table);
    ASSERT_EQ(table->offers().size(), 1u);
    auto start = commit(*table, command::Start{}, at(0));
    ASSERT_EQ(start.then.size(), 1u);
    EXPECT_EQ(std::get<command::Offer>(start.then[0]).action, OfferAction::decline);
}

}  // namespace
}  // namespace arbiter::server::app
