#pragma once
// The intents of intents.hpp, each with the columns it changes of a rich game's row: the model
// that intent_contract_test.cpp holds every engine to, and intents_test.cpp SQLite's own cases.

#include <set>
#include <string>
#include <vector>

#include "storage_test_support.hpp"

namespace arbiter::server::storage::testing {

using protocol::EndReason;
using protocol::GameStatus;
using protocol::OfferKind;
using rules::Outcome;
using rules::Side;
using Columns = std::set<std::string>;

// A game in play with every column set, to which each intent below changes what it names.
inline GameRow rich_game() {
    GameRow game;
    game.id = "rich";
    game.variant = rules::Variant::chess;
    game.initial_position = "startpos";
    game.is_private = true;
    game.clock_initial_ms = 300000;
    game.clock_increment_ms = 2000;
    game.status = GameStatus::playing;
    game.seats[0] = SeatRow{"alice", std::string(64, 'a'), "", 0};
    game.seats[1] = SeatRow{"bob", std::string(64, 'b'), "", 0};
    game.clock_ms = {300000, 300000};
    game.seq = 3;
    game.created_ms = 1700000000000;
    game.updated_ms = 1700000000000;
    game.rematch_of = "before";
    game.offers = {{OfferKind::draw, Side::first}};
    return game;
}

// The columns in which two rows differ.
inline Columns changed_columns(const GameRow& a, const GameRow& b) {
    Columns changed;
    const auto note = [&](bool differs, const char* column) {
        if (differs) {
            changed.insert(column);
        }
    };
    note(a.id != b.id, "id");
    note(a.variant != b.variant, "variant");
    note(a.initial_position != b.initial_position, "initial_position");
    note(a.is_private != b.is_private, "is_private");
    note(a.clock_initial_ms != b.clock_initial_ms, "clock_initial_ms");
    note(a.clock_increment_ms != b.clock_increment_ms, "clock_increment_ms");
    note(a.status != b.status, "status");
    note(a.result != b.result, "result");
    note(a.reason != b.reason, "reason");
    for (std::size_t i = 0; i < 2; ++i) {
        const std::string seat = i == 0 ? "first_" : "second_";
        note(a.seats[i].name != b.seats[i].name, (seat + "name").c_str());
        note(a.seats[i].token_hash != b.seats[i].token_hash, (seat + "token_hash").c_str());
        note(a.seats[i].engine != b.seats[i].engine, (seat + "engine").c_str());
        note(a.seats[i].engine_level != b.seats[i].engine_level, (seat + "engine_level").c_str());
        note(a.clock_ms[i] != b.clock_ms[i], (seat + "clock_ms").c_str());
    }
    note(a.seq != b.seq, "seq");
    note(a.ply != b.ply, "ply");
    note(a.created_ms != b.created_ms, "created_ms");
    note(a.updated_ms != b.updated_ms, "updated_ms");
    note(a.rematch_of != b.rematch_of, "rematch_of");
    note(a.rematch_next != b.rematch_next, "rematch_next");
    note(testing::offers_of(a) != testing::offers_of(b), "offers");
    note(a.parked_flag != b.parked_flag, "flag_at");
    return changed;
}

struct IntentCase {
    const char* name;
    GameIntent intent;
    Columns columns;  // what it changes of rich_game() with two moves played
};

// Each intent with values that differ from the row it meets, so that each column it names shows.
// The row is rich_game() after two moves (ply 2, seq 5).
inline std::vector<IntentCase> intent_cases() {
    const std::string id = "rich";
    MoveRow third = make_move(3, "g1f3");
    third.seq = 6;
    third.played_ms = 1700000009000;
    AppendMove move{id, third, {290000, 280000}, 6, std::nullopt};
    AppendMove mate = move;
    mate.seq = 7;
    mate.ending = GameEnding{GameStatus::ended, Outcome::first_wins, EndReason::checkmate};
    SeatPlayer seat{id, Side::second, SeatRow{"carol", std::string(64, 'c'), "builtin", 4}, 6,
                    1700000009000};
    return {
        {"SeatPlayer",
         seat,
         {"second_name", "second_token_hash", "second_engine", "second_engine_level", "seq",
          "updated_ms"}},
        {"AppendMove",
         move,
         {"ply", "first_clock_ms", "second_clock_ms", "seq", "updated_ms", "offers"}},
        {"AppendMove ending the game",
         mate,
         {"ply", "first_clock_ms", "second_clock_ms", "seq", "updated_ms", "offers", "status",
          "result", "reason"}},
        {"TakeBack",
         TakeBack{id, 1, {299000, 300000}, 6, 1700000009000},
         {"ply", "first_clock_ms", "second_clock_ms", "seq", "updated_ms", "offers"}},
        {"SetOffers",
         SetOffers{id,
                   {{OfferKind::takeback, Side::second}, {OfferKind::draw, Side::first}},
                   {299000, 298000},
                   6},
         {"offers", "first_clock_ms", "second_clock_ms", "seq"}},
        {"RecordEvent",
         RecordEvent{id, {299000, 298000}, 6},
         {"first_clock_ms", "second_clock_ms", "seq"}},
        {"PostChat",
         PostChat{id,
                  ChatRow{6, protocol::ChatRoom::players, "bob", Side::second, "gl", 1700000009000},
                  {299000, 298000},
                  6},
         {"first_clock_ms", "second_clock_ms", "seq"}},
        {"EndGame",
         EndGame{id,
                 GameEnding{GameStatus::ended, Outcome::second_wins, EndReason::resign},
                 {299000, 298000},
                 6,
                 1700000009000},
         {"status", "result", "reason", "offers", "first_clock_ms", "second_clock_ms", "seq",
          "updated_ms"}},
        {"EndGame aborting",
         EndGame{id,
                 GameEnding{GameStatus::aborted, Outcome::ongoing, EndReason::aborted},
                 {299000, 298000},
                 6,
                 1700000009000},
         {"status", "reason", "offers", "first_clock_ms", "second_clock_ms", "seq", "updated_ms"}},
        {"LinkRematch", LinkRematch{id, "next", 6}, {"rematch_next", "offers", "seq"}},
        {"StoreClocks",
         StoreClocks{id, {299000, 298000}, 1700000009000},
         {"first_clock_ms", "second_clock_ms", "updated_ms"}},
        {"StoreClocks as the game leaves memory",
         StoreClocks{id, {299000, 298000}, 1700000009000, ParkedFlag{1700000307000, 5}},
         {"first_clock_ms", "second_clock_ms", "updated_ms", "flag_at"}},
    };
}

// Plays two moves on rich_game() and sets its offer again, as a game reaches any intent: the
// moves go through the journal when it is on, and `journaled` leaves them there (no SetOffers
// after them, which would file them).
inline GameRow play_two_moves(GameRepository& repository, bool journaled) {
    GameRow row = rich_game();
    EXPECT_TRUE(write_and_wait(repository, created(row)));
    for (std::uint32_t ply = 1; ply <= 2; ++ply) {
        MoveRow move = make_move(ply, ply == 1 ? "e2e4" : "e7e5");
        move.seq = 3 + ply;
        move.played_ms = row.updated_ms + 1000 * ply;
        AppendMove append{row.id, move, {300000 - ply, 300000 - 2 * ply}, move.seq, std::nullopt};
        EXPECT_TRUE(write_and_wait(repository, append));
        row = after(row, append);
    }
    if (!journaled) {
        SetOffers offer{row.id, {{OfferKind::draw, Side::first}}, row.clock_ms, 5};
        EXPECT_TRUE(write_and_wait(repository, offer));
        row = after(row, offer);
    }
    return row;
}

}  // namespace arbiter::server::storage::testing
