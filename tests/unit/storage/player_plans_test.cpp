// SQLite's query plans of the players' reads (issue 40): a player's games and counts search the
// two seat indexes, never walk every game. PostgreSQL plans by its statistics, so its plans are
// not pinned here; what both engines answer is held by players_test.cpp.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/storage/player_reads.hpp"
#include "storage_test_support.hpp"

namespace arbiter::server::storage {
namespace {

TEST(SqlitePlayerPlans, GamesAndCountsSearchTheSeatIndexes) {
    testing::TempDatabase database;
    auto repository = testing::open_or_die(database.path());
    ASSERT_NE(repository, nullptr);
    auto rows = sqlite::Connection::open(database.path(), false);
    ASSERT_TRUE(rows) << rows.error().message;
    std::vector<UserGamesQuery> queries(4);
    queries[1].variant = rules::Variant::chess;
    queries[2].before = "g1";
    queries[3].ended_only = true;
    queries[3].include_private = true;
    std::vector<std::string> statements;
    for (const auto& query : queries) {
        statements.push_back(detail::user_games_sql(query));
    }
    statements.emplace_back(detail::kGameCountsSql);
    for (const auto& sql : statements) {
        auto plan = rows->prepare("EXPLAIN QUERY PLAN " + sql);
        ASSERT_TRUE(plan) << sql;
        std::string details;
        while (plan->step().value_or(false)) {
            details += plan->column_text(3) + "\n";
        }
        EXPECT_EQ(details.find("SCAN games"), std::string::npos) << sql << "\n" << details;
        EXPECT_NE(details.find("SEARCH games USING INDEX games_by_first_user"), std::string::npos)
            << sql << "\n"
            << details;
        EXPECT_NE(details.find("SEARCH games USING INDEX games_by_second_user"), std::string::npos)
            << sql << "\n"
            << details;
    }
}

}  // namespace
}  // namespace arbiter::server::storage
