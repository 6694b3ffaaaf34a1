// The analyses of SqliteRepository (issue 42; analysis_store.hpp): written through the one
// writer, read back, kept across a reopen, and listed while unfinished.

#include <gtest/gtest.h>

#include <future>
#include <string>

#include "storage_test_support.hpp"

namespace arbiter::server::storage {
namespace {

using testing::TempDatabase;

Expected<void, StorageError> save_and_wait(AnalysisStore& store, AnalysisRow row) {
    std::promise<Expected<void, StorageError>> promise;
    auto future = promise.get_future();
    store.write_analysis(
        SaveAnalysis{std::move(row)},
        [&promise](Expected<void, StorageError> done) { promise.set_value(std::move(done)); });
    return future.get();
}

AnalysisRow analysis_of(const std::string& game, AnalysisStatus status, std::int64_t at_ms) {
    AnalysisRow row;
    row.game_id = game;
    row.status = status;
    row.engine = "stockfish";
    row.total = 3;
    row.requested_ms = at_ms;
    row.updated_ms = at_ms;
    return row;
}

TEST(StorageAnalyses, StatusNamesRoundTrip) {
    for (auto status : {AnalysisStatus::queued, AnalysisStatus::running, AnalysisStatus::done,
                        AnalysisStatus::failed}) {
        EXPECT_EQ(parse_analysis_status(to_string(status)), status);
    }
    EXPECT_FALSE(parse_analysis_status("finished"));
}

TEST(StorageAnalyses, NoneUntilRequestedThenReadBackAsWritten) {
    TempDatabase database;
    auto repository = testing::open_or_die(database.path());
    ASSERT_TRUE(
        testing::write_and_wait(*repository, testing::created(testing::make_game("g1", 1))));
    auto none = repository->find_analysis("g1");
    ASSERT_TRUE(none);
    EXPECT_FALSE(*none);

    AnalysisRow row = analysis_of("g1", AnalysisStatus::queued, 10);
    ASSERT_TRUE(save_and_wait(*repository, row));
    row.status = AnalysisStatus::done;
    row.done = 3;
    row.plies_json = R"([{"ply":0,"eval":{"cp":20}}])";
    row.accuracy_json = R"({"white":91.5,"black":40})";
    row.counts_json = R"({"white":{"inaccuracy":0,"mistake":0,"blunder":0}})";
    row.updated_ms = 20;
    ASSERT_TRUE(save_and_wait(*repository, row));
    auto found = repository->find_analysis("g1");
    ASSERT_TRUE(found);
    ASSERT_TRUE(*found);
    EXPECT_EQ(**found, row);
}

TEST(StorageAnalyses, AnAnalysisNeedsItsGame) {
    TempDatabase database;
    auto repository = testing::open_or_die(database.path());
    EXPECT_FALSE(save_and_wait(*repository, analysis_of("nosuch", AnalysisStatus::queued, 1)));
}

TEST(StorageAnalyses, UnfinishedOnesSurviveAReopenOldestFirst) {
    TempDatabase database;
    {
        auto repository = testing::open_or_die(database.path());
        for (const char* id : {"a", "b", "c"}) {
            ASSERT_TRUE(
                testing::write_and_wait(*repository, testing::created(testing::make_game(id, 1))));
        }
        ASSERT_TRUE(save_and_wait(*repository, analysis_of("a", AnalysisStatus::done, 5)));
        ASSERT_TRUE(save_and_wait(*repository, analysis_of("b", AnalysisStatus::running, 7)));
        ASSERT_TRUE(save_and_wait(*repository, analysis_of("c", AnalysisStatus::queued, 6)));
    }
    auto repository = testing::open_or_die(database.path());
    auto unfinished = repository->unfinished_analyses();
    ASSERT_TRUE(unfinished);
    ASSERT_EQ(unfinished->size(), 2U);
    EXPECT_EQ((*unfinished)[0].game_id, "c");
    EXPECT_EQ((*unfinished)[1].game_id, "b");
    auto done = repository->find_analysis("a");
    ASSERT_TRUE(done && *done);
    EXPECT_EQ((*done)->status, AnalysisStatus::done);
}

}  // namespace
}  // namespace arbiter::server::storage
