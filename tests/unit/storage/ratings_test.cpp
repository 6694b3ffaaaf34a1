// Rated games in storage (issue 40): a game row keeps its accounts, rated flag, seek range and
// seat ratings; the end of a rated game stores its players' ratings, their history and the
// game's rating changes in the end's own transaction, and an end that fails stores none of them.

#include <gtest/gtest.h>

#include <future>
#include <string>

#include "repository_engines.hpp"
#include "storage_test_support.hpp"

namespace arbiter::server::storage {
namespace {

using protocol::EndReason;
using protocol::GameStatus;
using rules::Outcome;
using testing::write_and_wait;

Expected<void, StorageError> sign_up(AccountStore& store, const std::string& name) {
    return testing::write_account_and_wait(store, CreateUser{name, name, "$argon2id$h", 1000});
}

// Every test here runs on each engine of the binary (repository_engines.hpp).
class StorageRatings : public testing::EngineTest {
  protected:
    void SetUp() override {
        testing::EngineTest::SetUp();
        ASSERT_NE(repository_, nullptr);
        ASSERT_TRUE(sign_up(*repository_, "ann"));
        ASSERT_TRUE(sign_up(*repository_, "bob"));
        ann_ = (*repository_->find_user("ann"))->id;
        bob_ = (*repository_->find_user("bob"))->id;
    }

    /// A rated blitz game in play between ann (first) and bob (second).
    GameRow rated_game(const std::string& id) const {
        GameRow game = testing::make_playing_game(id, 1700000000000);
        game.clock_initial_ms = 180000;
        game.clock_increment_ms = 2000;
        game.rated = true;
        game.rating_range = protocol::RatingRange{1400, std::nullopt};
        game.seats[0].user_id = ann_;
        game.seats[0].rating = protocol::PlayerRating{1500, true};
        game.seats[1].user_id = bob_;
        game.seats[1].rating = protocol::PlayerRating{1612, false};
        return game;
    }

    /// Rated from rows that counted `games_before` games each.
    RatingsSettled settled(int first_diff, int second_diff, std::int64_t games_before = 0) const {
        RatingsSettled ratings;
        ratings.variant = rules::Variant::chess;
        ratings.speed = "blitz";
        ratings.at_ms = 1700000060000;
        ratings.seats[0] =
            RatingUpdate{ann_, 1662.3, 290.3, 0.059999, first_diff, true, games_before};
        ratings.seats[1] =
            RatingUpdate{bob_, 1337.7, 95.1, 0.059999, second_diff, false, games_before};
        return ratings;
    }

    std::int64_t count(const std::string& sql) const {
        return store_->query_integer(sql).value_or(-1);
    }

    std::int64_t ann_ = 0;
    std::int64_t bob_ = 0;
};

TEST_P(StorageRatings, ARatedGameKeepsItsAccountsRangeAndSeatRatings) {
    GameRow game = rated_game("r1");
    game.status = GameStatus::waiting;
    game.seats[1] = SeatRow{};
    ASSERT_TRUE(write_and_wait(*repository_, testing::created(game)));
    SeatRow bob{"bob", std::string(64, 'b'), "", 0, bob_, protocol::PlayerRating{1388, false}};
    ASSERT_TRUE(write_and_wait(*repository_, SeatPlayer{"r1", rules::Side::second, bob, 2, 5}));
    auto stored = repository_->load("r1");
    ASSERT_TRUE(stored && stored->has_value());
    const GameRow& row = (*stored)->header;
    EXPECT_TRUE(row.rated);
    EXPECT_EQ(row.rating_range, (protocol::RatingRange{1400, std::nullopt}));
    EXPECT_EQ(row.seats[0].user_id, ann_);
    EXPECT_EQ(row.seats[0].rating->rating, 1500);
    EXPECT_EQ(row.seats[1].user_id, bob_);
    EXPECT_EQ(row.seats[1].rating->rating, 1388);
    // Whether each rating was provisional is kept (migration 0011): a settled 1388 is no "1388?".
    EXPECT_TRUE(row.seats[0].rating->provisional);
    EXPECT_FALSE(row.seats[1].rating->provisional);
    EXPECT_FALSE(row.rating_diffs[0] || row.rating_diffs[1]);
}

TEST_P(StorageRatings, TheEndStoresRatingsHistoryAndChangesWithIt) {
    ASSERT_TRUE(write_and_wait(*repository_, testing::created(rated_game("r1"))));
    EndGame end{"r1",
                GameEnding{GameStatus::ended, Outcome::first_wins, EndReason::resign},
                {170000, 160000},
                9,
                1700000060000,
                settled(162, -162)};
    ASSERT_TRUE(write_and_wait(*repository_, end));
    auto stored = repository_->load("r1");
    ASSERT_TRUE(stored && stored->has_value());
    EXPECT_EQ((*stored)->header.rating_diffs[0], 162);
    EXPECT_EQ((*stored)->header.rating_diffs[1], -162);
    EXPECT_EQ((*stored)->header.rating_after_provisional, (std::array<bool, 2>{true, false}));
    EXPECT_FALSE((*stored)->header.seats[1].rating->provisional);
    auto ratings = repository_->load_ratings();
    ASSERT_TRUE(ratings);
    ASSERT_EQ(ratings->size(), 2U);
    for (const RatingRow& rating : *ratings) {
        EXPECT_EQ(rating.games, 1);
        EXPECT_EQ(rating.speed, "blitz");
        EXPECT_EQ(rating.updated_ms, 1700000060000);
        EXPECT_DOUBLE_EQ(rating.rating, rating.user_id == ann_ ? 1662.3 : 1337.7);
    }
    EXPECT_EQ(count("SELECT COUNT(*) FROM rating_history WHERE game_id = 'r1'"), 2);

    // A second rated game ending by a move: one more game each, the rows updated in place.
    ASSERT_TRUE(write_and_wait(*repository_, testing::created(rated_game("r2"))));
    MoveRow mate = testing::make_move(1, "e2e4");
    mate.seq = 2;
    AppendMove append{"r2",
                      mate,
                      {170000, 160000},
                      3,
                      GameEnding{GameStatus::ended, Outcome::second_wins, EndReason::checkmate},
                      settled(-5, 5, /*games_before=*/1)};
    ASSERT_TRUE(write_and_wait(*repository_, append));
    ratings = repository_->load_ratings();
    ASSERT_TRUE(ratings);
    ASSERT_EQ(ratings->size(), 2U);
    EXPECT_EQ((*ratings)[0].games, 2);
    EXPECT_EQ((*ratings)[1].games, 2);
    EXPECT_EQ(count("SELECT COUNT(*) FROM rating_history"), 4);
    EXPECT_EQ(count("SELECT second_rating_diff FROM games WHERE id = 'r2'"), 5);
}

// Ratings computed from a row that no longer counts the same games (another node rated the
// player meanwhile) are refused `stale`, and the end with them: nothing of it is stored.
TEST_P(StorageRatings, AnEndRatedFromAStaleRowIsRefusedStaleAndStoresNothing) {
    ASSERT_TRUE(write_and_wait(*repository_, testing::created(rated_game("r1"))));
    ASSERT_TRUE(write_and_wait(*repository_, testing::created(rated_game("r2"))));
    EndGame first{"r1",
                  GameEnding{GameStatus::ended, Outcome::first_wins, EndReason::resign},
                  {170000, 160000},
                  9,
                  1700000060000,
                  settled(162, -162)};
    ASSERT_TRUE(write_and_wait(*repository_, first));
    // r2's end was rated from the rows as they were before r1's (no row: 0 games).
    EndGame second = first;
    second.game = "r2";
    auto refused = write_and_wait(*repository_, second);
    ASSERT_FALSE(refused);
    EXPECT_TRUE(refused.error().stale) << refused.error().message;
    EXPECT_FALSE(refused.error().fenced);
    auto stored = repository_->load("r2");
    ASSERT_TRUE(stored && stored->has_value());
    EXPECT_EQ((*stored)->header.status, GameStatus::playing);
    EXPECT_EQ(count("SELECT COUNT(*) FROM rating_history WHERE game_id = 'r2'"), 0);
    EXPECT_EQ(count("SELECT MAX(games) FROM ratings"), 1);
    // Rated again from the stored rows (1 game each): stored.
    second.ratings = settled(-3, 3, 1);
    ASSERT_TRUE(write_and_wait(*repository_, second));
    EXPECT_EQ(count("SELECT MIN(games) FROM ratings"), 2);
}

TEST_P(StorageRatings, AnEndThatFailsStoresNoRating) {
    // The end of a game that is not stored fails: no rating row, no history.
    EndGame end{
        "nowhere",     GameEnding{GameStatus::ended, Outcome::first_wins, EndReason::resign},
        {1, 1},        9,
        1700000060000, settled(162, -162)};
    EXPECT_FALSE(write_and_wait(*repository_, end));
    // Ratings for a game that is not rated: the end itself is refused whole.
    GameRow casual = rated_game("c1");
    casual.rated = false;
    ASSERT_TRUE(write_and_wait(*repository_, testing::created(casual)));
    end.game = "c1";
    EXPECT_FALSE(write_and_wait(*repository_, end));
    auto ratings = repository_->load_ratings();
    ASSERT_TRUE(ratings);
    EXPECT_TRUE(ratings->empty());
    EXPECT_EQ(count("SELECT COUNT(*) FROM rating_history"), 0);
    auto stored = repository_->load("c1");
    ASSERT_TRUE(stored && stored->has_value());
    EXPECT_EQ((*stored)->header.status, GameStatus::playing);
}

INSTANTIATE_TEST_SUITE_P(Engines, StorageRatings,
                         ::testing::ValuesIn(testing::engines_under_test()), testing::engine_name);

}  // namespace
}  // namespace arbiter::server::storage
