// The players' reads of every engine (issue 40; player_store.hpp), over games, ratings and
// history rows inserted directly, so that each read is held to rows chosen for it.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "repository_engines.hpp"
#include "storage_test_support.hpp"

namespace arbiter::server::storage {
namespace {

using testing::SqlValue;

constexpr std::int64_t kDay = 24LL * 60 * 60 * 1000;

// Every test here runs on each engine of the binary (repository_engines.hpp).
class StoragePlayers : public testing::EngineTest {
  protected:
    std::int64_t user(const std::string& name, bool deleted = false) {
        execute(
            "INSERT INTO users (username, username_key, password_hash, created_ms, deleted_ms) "
            "VALUES (?1, lower(?1), 'h', 1, ?2)",
            {name, deleted ? SqlValue(std::int64_t{5}) : SqlValue(nullptr)});
        return store_->query_integer("SELECT max(id) FROM users").value_or(0);
    }

    /// A game between two users (0: a guest), as `status` with `result`.
    void game(const std::string& id, std::int64_t created_ms, std::int64_t first,
              std::int64_t second, const std::string& status = "ended",
              const std::string& result = "1-0", const std::string& variant = "chess",
              std::int64_t is_private = 0) {
        const auto id_or_null = [](std::int64_t user_id) {
            return user_id == 0 ? SqlValue(nullptr) : SqlValue(user_id);
        };
        execute(
            "INSERT INTO games (id, variant, initial_position, status, result, created_ms, "
            "updated_ms, first_name, second_name, first_user_id, second_user_id, is_private) "
            "VALUES (?1, ?2, 'startpos', ?3, ?4, ?5, ?5, 'a', 'b', ?6, ?7, ?8)",
            {id, variant, status, result, created_ms, id_or_null(first), id_or_null(second),
             is_private});
    }

    void rating(std::int64_t user_id, const std::string& variant, const std::string& speed,
                double value, double deviation, std::int64_t updated_ms, std::int64_t games = 10) {
        execute(
            "INSERT INTO ratings (user_id, variant, speed, rating, deviation, volatility, games, "
            "updated_ms) VALUES (?1, ?2, ?3, ?4, ?5, 0.06, ?6, ?7)",
            {user_id, variant, speed, value, deviation, games, updated_ms});
    }

    std::vector<std::string> ids(const UserGamesQuery& query) {
        auto games = repository_->user_games(query);
        EXPECT_TRUE(games) << games.error().message;
        std::vector<std::string> out;
        for (const auto& game : games.value_or(std::vector<GameRow>{})) {
            out.push_back(game.id);
        }
        return out;
    }

    std::vector<std::string> leaders(const LeaderboardQuery& query, std::size_t limit = 100) {
        std::vector<std::string> names;
        auto read = repository_->leaderboard(query, [&](const LeaderRow& row) {
            names.push_back(row.username);
            return names.size() < limit;
        });
        EXPECT_TRUE(read) << read.error().message;
        return names;
    }
};

TEST_P(StoragePlayers, CountsWinsDrawsAndLossesFromEitherSeatButNotAbortedOrUnfinished) {
    const auto ann = user("Ann");
    const auto bob = user("Bob");
    game("g1", 1, ann, bob, "ended", "1-0");              // Ann won as first
    game("g2", 2, bob, ann, "ended", "1-0");              // Ann lost as second
    game("g3", 3, bob, ann, "ended", "0-1");              // Ann won as second
    game("g4", 4, ann, 0, "ended", "1/2-1/2");            // a draw against a guest
    game("g5", 5, ann, bob, "aborted", "");               // not a result
    game("g6", 6, ann, bob, "playing", "");               // not yet
    game("g7", 7, 0, bob, "ended", "1-0");                // not hers
    game("g8", 8, ann, ann, "ended", "0-1", "chess", 1);  // both seats, private: counted once
    EXPECT_EQ(repository_->game_counts(ann).value(), (GameCounts{5, 2, 1, 2}));
    EXPECT_EQ(repository_->game_counts(bob).value(), (GameCounts{4, 1, 0, 3}));
    EXPECT_EQ(repository_->game_counts(user("Cyd")).value(), GameCounts{});
}

TEST_P(StoragePlayers, GamesAreNewestFirstAndPagedByIdWithoutRepeatsOrGaps) {
    const auto ann = user("Ann");
    const auto bob = user("Bob");
    game("a", 10, ann, bob);
    game("b", 20, bob, ann, "playing", "");
    game("c", 20, ann, 0, "aborted", "");  // same millisecond as b: id breaks the tie
    game("d", 30, 0, ann, "ended", "0-1", "draughts");
    game("e", 40, bob, 0);                                // not hers
    game("f", 50, ann, bob, "ended", "1-0", "chess", 1);  // private: not listed
    game("g", 60, ann, ann);                              // both seats: listed once
    UserGamesQuery query;
    query.user_id = ann;
    EXPECT_EQ(ids(query), (std::vector<std::string>{"g", "d", "c", "b", "a"}));
    query.limit = 2;
    EXPECT_EQ(ids(query), (std::vector<std::string>{"g", "d"}));
    query.before = "d";
    EXPECT_EQ(ids(query), (std::vector<std::string>{"c", "b"}));
    query.before = "b";
    EXPECT_EQ(ids(query), (std::vector<std::string>{"a"}));
    query.before = "nope";
    EXPECT_TRUE(ids(query).empty());
    query = UserGamesQuery{};
    query.user_id = ann;
    query.variant = rules::Variant::draughts;
    EXPECT_EQ(ids(query), (std::vector<std::string>{"d"}));
    query.variant.reset();
    query.ended_only = true;
    EXPECT_EQ(ids(query), (std::vector<std::string>{"g", "d", "a"}));
    query.include_private = true;
    EXPECT_EQ(ids(query), (std::vector<std::string>{"g", "f", "d", "a"}));
}

TEST_P(StoragePlayers, RatingsAndHistoryAreTheUsersOwnByPoolOldestFirst) {
    const auto ann = user("Ann");
    const auto bob = user("Bob");
    rating(ann, "xiangqi", "rapid", 1600, 90, 7);
    rating(ann, "chess", "blitz", 1512.4, 180.3, 9, 3);
    rating(bob, "chess", "blitz", 1400, 80, 9);
    const auto rows = repository_->ratings_of(ann).value();
    ASSERT_EQ(rows.size(), 2U);
    EXPECT_EQ(rows[0], (RatingRow{rules::Variant::chess, "blitz", 1512.4, 180.3, 0.06, 3, 9, ann}));
    EXPECT_EQ(rows[1].variant, rules::Variant::xiangqi);
    EXPECT_TRUE(repository_->ratings_of(user("Cyd")).value().empty());

    const auto point = [&](std::int64_t user_id, const std::string& variant,
                           const std::string& speed, std::int64_t at, const std::string& game_id,
                           double value) {
        execute(
            "INSERT INTO rating_history (user_id, variant, speed, at_ms, game_id, rating, "
            "deviation) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 100)",
            {user_id, variant, speed, at, game_id, value});
    };
    point(ann, "chess", "blitz", 300, "g3", 1530);
    point(ann, "chess", "blitz", 100, "g1", 1510);
    point(ann, "chess", "bullet", 200, "g2", 1490);
    point(bob, "chess", "blitz", 100, "g1", 1490);
    const auto history = repository_->rating_history(ann).value();
    ASSERT_EQ(history.size(), 3U);
    EXPECT_EQ(history[0], (RatingPoint{rules::Variant::chess, "blitz", 100, "g1", 1510, 100}));
    EXPECT_EQ(history[1].game_id, "g3");
    EXPECT_EQ(history[2].speed, "bullet");
}

TEST_P(StoragePlayers, LeaderboardKeepsActiveSettledLivePlayersOfThePoolBestFirst) {
    const std::int64_t now = 100 * kDay;
    rating(user("Top"), "chess", "blitz", 2000, 60, now - kDay);
    rating(user("Unsure"), "chess", "blitz", 2100, 150, now - kDay);     // provisional
    rating(user("Away"), "chess", "blitz", 2200, 60, now - 31 * kDay);   // inactive
    rating(user("Gone", true), "chess", "blitz", 2300, 60, now - kDay);  // deleted
    rating(user("Rapid"), "chess", "rapid", 2400, 60, now - kDay);       // another speed
    rating(user("Wxf"), "xiangqi", "blitz", 2500, 60, now - kDay);       // another variant
    // Ties on rating: the lower deviation first, then the name ignoring case.
    rating(user("zed"), "chess", "blitz", 1800, 70, now - kDay);
    rating(user("Amy"), "chess", "blitz", 1800, 70, now - kDay);
    rating(user("Sure"), "chess", "blitz", 1800, 50, now - kDay);
    rating(user("Edge"), "chess", "blitz", 1700, 110, now - 30 * kDay);  // on both bounds
    const LeaderboardQuery query{rules::Variant::chess, "blitz", now - 30 * kDay, 110};
    EXPECT_EQ(leaders(query), (std::vector<std::string>{"Top", "Sure", "Amy", "zed", "Edge"}));
    EXPECT_EQ(leaders(query, 2), (std::vector<std::string>{"Top", "Sure"}));
    EXPECT_TRUE(leaders(LeaderboardQuery{rules::Variant::draughts, "blitz", 0, 110}).empty());
}

INSTANTIATE_TEST_SUITE_P(Engines, StoragePlayers,
                         ::testing::ValuesIn(testing::engines_under_test()), testing::engine_name);

}  // namespace
}  // namespace arbiter::server::storage
