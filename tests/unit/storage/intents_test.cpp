// SQLite's own cases of the intents (the cases every engine shares are in
// intent_contract_test.cpp): a game deleted behind the writer's memory of its ply, and how a
// row's text that no server writes is read.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "intent_cases.hpp"

namespace arbiter::server::storage {
namespace {

using protocol::EndReason;
using protocol::GameStatus;
using rules::Outcome;
using testing::appended;
using testing::created;
using testing::make_move;
using testing::TempDatabase;
using testing::write_and_wait;

// synchronous NORMAL (these tests check columns, not durability), with `journal_rows` moves
// journaled before they are filed (0: every move written in place).
SqliteOptions normal_with_journal(std::size_t journal_rows) {
    SqliteOptions options;
    options.synchronous = Synchronous::normal;
    options.journal_rows = journal_rows;
    return options;
}

// The writer remembers each game's last ply so that a move goes to the journal without reading
// its row. A game deleted by another connection must not take a journaled move against the
// missing row (acknowledged, then dropped by the filing): the writer sees the other commit and
// reads again.
TEST(SqliteIntents, AMoveToAGameDeletedBehindTheWriterIsRefused) {
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
TEST(SqliteIntents, TextNoServerWritesReadsAsTheSafeTerm) {
    TempDatabase database;
    auto repository = testing::open_or_die(database.path());
    ASSERT_NE(repository, nullptr);
    ASSERT_TRUE(write_and_wait(*repository, created(testing::rich_game())));
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
TEST(SqliteIntents, AnUnreadableUnfinishedGameFailsTheReload) {
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

}  // namespace
}  // namespace arbiter::server::storage
