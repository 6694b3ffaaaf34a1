// Each storage intent changes the columns intents.hpp names for it and only those, on every
// engine (repository_engines.hpp): on SQLite with or without the move journal, and right after
// other moves went through it; on PostgreSQL. An intent that does not apply changes nothing.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "intent_cases.hpp"
#include "repository_engines.hpp"

namespace arbiter::server::storage {
namespace {

using protocol::EndReason;
using protocol::GameStatus;
using rules::Outcome;
using testing::after;
using testing::appended;
using testing::changed_columns;
using testing::Columns;
using testing::created;
using testing::expect_same_game;
using testing::intent_cases;
using testing::IntentCase;
using testing::make_move;
using testing::play_two_moves;
using testing::rich_game;
using testing::write_and_wait;

class StorageIntents : public testing::EngineTest {};

// Each intent on a fresh store of the test's engine, on rich_game() after two moves: with the
// offer set again after them, or (`moves_left_journaled`) not, which on SQLite leaves the moves in
// the journal (a SetOffers would file them) and on any engine meets a row without offers.
void expect_intents_change_their_columns(const testing::RepositoryEngine& engine,
                                         bool moves_left_journaled) {
    for (const IntentCase& intent_case : intent_cases()) {
        SCOPED_TRACE(std::string(intent_case.name) + " on " + engine.name +
                     (moves_left_journaled ? ", moves journaled" : ""));
        auto store = engine.open();
        ASSERT_NE(store, nullptr);
        const GameRow before = play_two_moves(store->repository(), moves_left_journaled);
        auto stored_before = store->repository().load(before.id);
        ASSERT_TRUE(stored_before && stored_before->has_value());
        expect_same_game((*stored_before)->header, before);

        ASSERT_TRUE(write_and_wait(store->repository(), intent_case.intent));
        auto stored = store->repository().load(before.id);
        ASSERT_TRUE(stored && stored->has_value());
        Columns expected = intent_case.columns;
        if (before.offers.empty() && !std::holds_alternative<SetOffers>(intent_case.intent)) {
            expected.erase("offers");  // the moves lapsed them already
        }
        EXPECT_EQ(changed_columns(before, (*stored)->header), expected);
        expect_same_game((*stored)->header, after(before, intent_case.intent));
        // As the next reader after a restart sees it (on SQLite, with the journal filed).
        ASSERT_TRUE(store->reopen());
        auto filed = store->repository().load(before.id);
        ASSERT_TRUE(filed && filed->has_value());
        expect_same_game((*filed)->header, after(before, intent_case.intent));
    }
}

// On SQLite's engines: without the journal and with it (the three tests of before issue 43).
TEST_P(StorageIntents, EachChangesItsColumnsAndOnlyThose) {
    expect_intents_change_their_columns(GetParam(), false);
}

// Moves still in the journal are filed before any other intent writes its columns: the row the
// intent meets is the game's latest, whatever the journal still held.
TEST_P(StorageIntents, EachChangesItsColumnsAndOnlyThoseAfterJournaledMoves) {
    expect_intents_change_their_columns(GetParam(), true);
}

TEST_P(StorageIntents, ANewGameIsStoredWholeWithItsCreationTime) {
    const GameRow game = rich_game();
    ASSERT_TRUE(write_and_wait(*repository_, created(game)));
    auto stored = repository_->load(game.id);
    ASSERT_TRUE(stored && stored->has_value());
    expect_same_game((*stored)->header, game);
    EXPECT_TRUE((*stored)->moves.empty());
}

// An intent for a game that is not stored (never created, or deleted by hand) is refused and
// creates nothing: an intent carries its columns, not the row.
TEST_P(StorageIntents, AnIntentForAGameNotStoredFailsAndChangesNothing) {
    {
        GameRepository* repository = repository_;
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

// Aborted games nobody played are deleted once aborted and created before the cutoff; a game
// with a move (in `moves` or still in the journal) never is, nor one in play, ended, waiting, or
// aborted after the cutoff.
TEST_P(StorageIntents, PruneAbortedDeletesOnlyUnplayedGamesAbortedBeforeTheCutoff) {
    {
        GameRepository* repository = repository_;
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

INSTANTIATE_TEST_SUITE_P(Engines, StorageIntents,
                         ::testing::ValuesIn(testing::engines_under_test()), testing::engine_name);

}  // namespace
}  // namespace arbiter::server::storage
