// Each storage intent changes the columns intents.hpp names for it and only those, with or
// without the move journal, and right after other moves went through it; an intent that does not
// apply changes nothing. Also how a row's text that no server writes is read.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <variant>
#include <vector>

#include "storage_test_support.hpp"

namespace arbiter::server::storage {
namespace {

using protocol::EndReason;
using protocol::GameStatus;
using protocol::OfferKind;
using rules::Outcome;
using rules::Side;
using testing::after;
using testing::appended;
using testing::created;
using testing::expect_same_game;
using testing::make_move;
using testing::TempDatabase;
using testing::write_and_wait;
using Columns = std::set<std::string>;

// A game in play with every column set, to which each intent below changes what it names.
GameRow rich_game() {
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
Columns changed_columns(const GameRow& a, const GameRow& b) {
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
std::vector<IntentCase> intent_cases() {
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
GameRow play_two_moves(GameRepository& repository, bool journaled) {
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

// synchronous NORMAL (these tests check columns, not durability), with `journal_rows` moves
// journaled before they are filed (0: every move written in place).
SqliteOptions normal_with_journal(std::size_t journal_rows) {
    SqliteOptions options;
    options.synchronous = Synchronous::normal;
    options.journal_rows = journal_rows;
    return options;
}

void expect_intents_change_their_columns(std::size_t journal_rows, bool journaled) {
    for (const IntentCase& intent_case : intent_cases()) {
        SCOPED_TRACE(std::string(intent_case.name) + (journal_rows > 0 ? ", journal" : "") +
                     (journaled ? ", moves journaled" : ""));
        TempDatabase database;
        auto repository = testing::open_or_die(database.path(), normal_with_journal(journal_rows));
        ASSERT_NE(repository, nullptr);
        const GameRow before = play_two_moves(*repository, journaled);
        auto stored_before = repository->load(before.id);
        ASSERT_TRUE(stored_before && stored_before->has_value());
        expect_same_game((*stored_before)->header, before);

        ASSERT_TRUE(write_and_wait(*repository, intent_case.intent));
        auto stored = repository->load(before.id);
        ASSERT_TRUE(stored && stored->has_value());
        Columns expected = intent_case.columns;
        if (before.offers.empty() && !std::holds_alternative<SetOffers>(intent_case.intent)) {
            expected.erase("offers");  // the journaled moves lapsed them already
        }
        EXPECT_EQ(changed_columns(before, (*stored)->header), expected);
        expect_same_game((*stored)->header, after(before, intent_case.intent));
        // As the next reader after a restart sees it, with the journal filed.
        repository.reset();
        auto reopened = testing::open_or_die(database.path(), normal_with_journal(journal_rows));
        ASSERT_NE(reopened, nullptr);
        auto filed = reopened->load(before.id);
        ASSERT_TRUE(filed && filed->has_value());
        expect_same_game((*filed)->header, after(before, intent_case.intent));
    }
}

TEST(StorageIntents, EachChangesItsColumnsAndOnlyThose) {
    expect_intents_change_their_columns(0, false);
}

TEST(StorageIntents, EachChangesItsColumnsAndOnlyThoseWithTheJournal) {
    expect_intents_change_their_columns(1000, false);
}

// Moves still in the journal are filed before any other intent writes its columns: the row the
// intent meets is the game's latest, whatever the journal still held.
TEST(StorageIntents, EachChangesItsColumnsAndOnlyThoseAfterJournaledMoves) {
    expect_intents_change_their_columns(1000, true);
}

TEST(StorageIntents, ANewGameIsStoredWholeWithItsCreationTime) {
    TempDatabase database;
    auto repository = testing::open_or_die(database.path());
    ASSERT_NE(repository, nullptr);
    const GameRow game = rich_game();
    ASSERT_TRUE(write_and_wait(*repository, created(game)));
    auto stored = repository->load(game.id);
    ASSERT_TRUE(stored && stored->has_value());
    expect_same_game((*stored)->header, game);
    EXPECT_TRUE((*stored)->moves.empty());
}

// An intent for a game that is not stored (never created, or deleted by hand) is refused and
// creates nothing: an intent carries its columns, not the row.
TEST(StorageIntents, AnIntentForAGameNotStoredFailsAndChangesNothing) {
    for (const std::size_t journal_rows : {std::size_t{0}, std::size_t{1000}}) {
        TempDatabase database;
        auto repository = testing::open_or_die(database.path(), normal_with_journal(journal_rows));
        ASSERT_NE(repository, nullptr);
        for (const IntentCase& intent_case : intent_cases()) {
            SCOPED_TRACE(intent_case.name);
            auto written = write_and_wait(*repository, intent_case.intent);
            ASSERT_FALSE(written);
            EXPECT_NE(written.error().message.find("rich is not stored"), std::string::npos)
                << written.error().message;
            auto stored = repository->load("rich");
            ASSERT_TRUE(stored);
            EXPECT_FALSE(stored->has_value());
        }
        auto listed = repository->list(GameQuery{});
        ASSERT_TRUE(listed);
        EXPECT_TRUE(listed->empty());
    }
}

// The writer remembers each game's last ply so that a move goes to the journal without reading
// its row. A game deleted by another connection must not take a journaled move against the
// missing row (acknowledged, then dropped by the filing): the writer sees the other commit and
// reads again.
TEST(StorageIntents, AMoveToAGameDeletedBehindTheWriterIsRefused) {
    for (const std::size_t journal_rows : {std::size_t{0}, std::size_t{1000}}) {
        TempDatabase database;
        auto repository = testing::open_or_die(database.path(), normal_with_journal(journal_rows));
        ASSERT_NE(repository, nullptr);
        ASSERT_TRUE(write_and_wait(*repository, created(testing::make_playing_game("gone", 1))));
        ASSERT_TRUE(write_and_wait(*repository, appended("gone", make_move(1, "e2e4"))));
        {
            auto other = sqlite::Connection::open(database.path(), false);
            ASSERT_TRUE(other);
            other->set_busy_timeout(5000);
            ASSERT_TRUE(other->exec("PRAGMA foreign_keys = ON"));  // its moves go with it
            ASSERT_TRUE(other->exec("DELETE FROM move_journal"));
            ASSERT_TRUE(other->exec("DELETE FROM games WHERE id = 'gone'"));
        }
        auto refused = write_and_wait(*repository, appended("gone", make_move(2, "e7e5")));
        ASSERT_FALSE(refused);
        EXPECT_NE(refused.error().message.find("gone is not stored"), std::string::npos)
            << refused.error().message;
        EXPECT_FALSE(repository->load("gone")->has_value());
        // The id is free again: a new game takes it, and its moves go on from ply 1.
        ASSERT_TRUE(write_and_wait(*repository, created(testing::make_playing_game("gone", 2))));
        ASSERT_TRUE(write_and_wait(*repository, appended("gone", make_move(1, "d2d4"))));
        auto loaded = repository->load("gone");
        ASSERT_TRUE(loaded && loaded->has_value());
        ASSERT_EQ((*loaded)->moves.size(), 1U);
        EXPECT_EQ((*loaded)->moves[0].move, "d2d4");
        EXPECT_EQ((*loaded)->header.ply, 1U);
    }
}

// A row edited by hand (here with the CHECKs bypassed) can hold text no server writes. Each term
// reads as its safe value (game_rows.cpp): a status as aborted (the game takes no moves and is not
// restored), a result as none, a reason as none, an offer item as no offer.
TEST(StorageIntents, TextNoServerWritesReadsAsTheSafeTerm) {
    TempDatabase database;
    auto repository = testing::open_or_die(database.path());
    ASSERT_NE(repository, nullptr);
    ASSERT_TRUE(write_and_wait(*repository, created(rich_game())));
    {
        auto other = sqlite::Connection::open(database.path(), false);
        ASSERT_TRUE(other);
        other->set_busy_timeout(5000);
        ASSERT_TRUE(other->exec(
            "PRAGMA ignore_check_constraints = ON; "
            "UPDATE games SET status = 'paused', result = '2-0', reason = 'meteor', "
            "offers = 'draw:first,bogus,bogus:first,takeback:third,:second,rematch:second' "
            "WHERE id = 'rich'"));
    }
    auto stored = repository->load("rich");
    ASSERT_TRUE(stored && stored->has_value());
    const GameRow& row = (*stored)->header;
    EXPECT_EQ(row.status, GameStatus::aborted);
    EXPECT_EQ(row.result, Outcome::ongoing);
    EXPECT_EQ(row.reason, EndReason::none);
    EXPECT_EQ(testing::offers_of(row), "draw:first,rematch:second");
    auto unfinished = repository->load_unfinished();
    ASSERT_TRUE(unfinished);
    EXPECT_TRUE(unfinished->empty()) << "a game whose status is not known was restored";
    GameQuery everything;
    everything.include_private = true;
    auto listed = repository->list(everything);
    ASSERT_TRUE(listed);
    ASSERT_EQ(listed->size(), 1U);
    EXPECT_EQ(listed->front().status, GameStatus::aborted);
}

// A row that cannot be read as a game at all (an unknown variant: no rules replay it) is refused
// when loaded, and fails the start-up reload, which names it.
TEST(StorageIntents, AnUnreadableUnfinishedGameFailsTheReload) {
    TempDatabase database;
    auto repository = testing::open_or_die(database.path());
    ASSERT_NE(repository, nullptr);
    ASSERT_TRUE(write_and_wait(*repository, created(testing::make_playing_game("before", 1))));
    ASSERT_TRUE(write_and_wait(*repository, created(testing::make_playing_game("odd", 2))));
    {
        auto other = sqlite::Connection::open(database.path(), false);
        ASSERT_TRUE(other);
        other->set_busy_timeout(5000);
        ASSERT_TRUE(
            other->exec("PRAGMA ignore_check_constraints = ON; "
                        "UPDATE games SET variant = 'shogi' WHERE id = 'odd'"));
    }
    auto unfinished = repository->load_unfinished();
    ASSERT_FALSE(unfinished);
    EXPECT_NE(unfinished.error().message.find("shogi"), std::string::npos)
        << unfinished.error().message;
    auto loaded = repository->load("odd");
    ASSERT_FALSE(loaded);
    EXPECT_NE(loaded.error().message.find("unknown variant"), std::string::npos);
    EXPECT_TRUE(repository->load("before") && repository->load("before")->has_value());
}

// Aborted games nobody played are deleted once aborted and created before the cutoff; a game
// with a move (in `moves` or still in the journal) never is, nor one in play, ended, waiting, or
// aborted after the cutoff.
TEST(StorageIntents, PruneAbortedDeletesOnlyUnplayedGamesAbortedBeforeTheCutoff) {
    for (const std::size_t journal_rows : {std::size_t{0}, std::size_t{1000}}) {
        SCOPED_TRACE(journal_rows);
        TempDatabase database;
        auto repository = testing::open_or_die(database.path(), normal_with_journal(journal_rows));
        ASSERT_NE(repository, nullptr);
        const auto end = [&](const std::string& id, GameStatus status, std::int64_t at_ms) {
            const GameEnding ending{
                status, status == GameStatus::aborted ? Outcome::ongoing : Outcome::first_wins,
                status == GameStatus::aborted ? EndReason::aborted : EndReason::resign};
            ASSERT_TRUE(write_and_wait(*repository, EndGame{id, ending, {0, 0}, 9, at_ms}));
        };
        for (const char* id : {"unplayed", "played", "late", "resigned", "waiting"}) {
            ASSERT_TRUE(write_and_wait(*repository, created(testing::make_game(id, 1'000))));
        }
        ASSERT_TRUE(
            write_and_wait(*repository, created(testing::make_playing_game("moving", 1'000))));
        ASSERT_TRUE(write_and_wait(*repository, appended("moving", make_move(1, "e2e4"))));
        ASSERT_TRUE(write_and_wait(*repository, appended("played", make_move(1, "e2e4"))));
        end("unplayed", GameStatus::aborted, 2'000);
        end("played", GameStatus::aborted, 2'000);
        end("late", GameStatus::aborted, 20'000);
        end("resigned", GameStatus::ended, 2'000);

        ASSERT_TRUE(write_and_wait(*repository, PruneAborted{10'000}));
        EXPECT_FALSE(repository->load("unplayed")->has_value()) << "aborted unplayed: deleted";
        for (const char* kept : {"played", "late", "resigned", "waiting", "moving"}) {
            auto loaded = repository->load(kept);
            ASSERT_TRUE(loaded);
            EXPECT_TRUE(loaded->has_value()) << kept << " must stay";
        }
        EXPECT_EQ((*repository->load("played"))->moves.size(), 1u);
        EXPECT_EQ((*repository->load("moving"))->moves.size(), 1u);
        // The writer goes on: a move to a game it knew is still taken.
        ASSERT_TRUE(write_and_wait(*repository, appended("moving", make_move(2, "e7e5"))));
        ASSERT_TRUE(write_and_wait(*repository, PruneAborted{30'000}));
        EXPECT_FALSE(repository->load("late")->has_value());
        EXPECT_TRUE(repository->load("played")->has_value());
    }
}

}  // namespace
}  // namespace arbiter::server::storage
