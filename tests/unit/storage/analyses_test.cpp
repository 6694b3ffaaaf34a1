// The analyses of every engine (issue 42; analysis_store.hpp): written through the one writer,
// read back, kept across a reopen, and listed while unfinished.

#include <gtest/gtest.h>

#include <future>
#include <string>

#include "repository_engines.hpp"
#include "storage_test_support.hpp"

namespace arbiter::server::storage {
namespace {

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

TEST(AnalysisStatusNames, RoundTrip) {
    for (auto status : {AnalysisStatus::queued, AnalysisStatus::running, AnalysisStatus::done,
                        AnalysisStatus::failed}) {
        EXPECT_EQ(parse_analysis_status(to_string(status)), status);
    }
    EXPECT_FALSE(parse_analysis_status("finished"));
}

// Every test below runs on each engine of the binary (repository_engines.hpp).
class StorageAnalyses : public testing::EngineTest {};

TEST_P(StorageAnalyses, NoneUntilRequestedThenReadBackAsWritten) {
    ASSERT_TRUE(
        testing::write_and_wait(*repository_, testing::created(testing::make_game("g1", 1))));
    auto none = repository_->find_analysis("g1");
    ASSERT_TRUE(none);
    EXPECT_FALSE(*none);

    AnalysisRow row = analysis_of("g1", AnalysisStatus::queued, 10);
    ASSERT_TRUE(save_and_wait(*repository_, row));
    row.status = AnalysisStatus::done;
    row.done = 3;
    row.plies_json = R"([{"ply":0,"eval":{"cp":20}}])";
    row.accuracy_json = R"({"white":91.5,"black":40})";
    row.counts_json = R"({"white":{"inaccuracy":0,"mistake":0,"blunder":0}})";
    row.updated_ms = 20;
    ASSERT_TRUE(save_and_wait(*repository_, row));
    auto found = repository_->find_analysis("g1");
    ASSERT_TRUE(found);
    ASSERT_TRUE(*found);
    EXPECT_EQ(**found, row);
}

TEST_P(StorageAnalyses, AnAnalysisNeedsItsGame) {
    EXPECT_FALSE(save_and_wait(*repository_, analysis_of("nosuch", AnalysisStatus::queued, 1)));
    auto none = repository_->find_analysis("nosuch");
    ASSERT_TRUE(none);
    EXPECT_FALSE(*none);
}

TEST_P(StorageAnalyses, UnfinishedOnesSurviveAReopenOldestFirst) {
    for (const char* id : {"a", "b", "c"}) {
        ASSERT_TRUE(
            testing::write_and_wait(*repository_, testing::created(testing::make_game(id, 1))));
    }
    ASSERT_TRUE(save_and_wait(*repository_, analysis_of("a", AnalysisStatus::done, 5)));
    ASSERT_TRUE(save_and_wait(*repository_, analysis_of("b", AnalysisStatus::running, 7)));
    ASSERT_TRUE(save_and_wait(*repository_, analysis_of("c", AnalysisStatus::queued, 6)));
    reopen();
    auto unfinished = repository_->unfinished_analyses();
    ASSERT_TRUE(unfinished);
    ASSERT_EQ(unfinished->size(), 2U);
    EXPECT_EQ((*unfinished)[0].game_id, "c");
    EXPECT_EQ((*unfinished)[1].game_id, "b");
    auto done = repository_->find_analysis("a");
    ASSERT_TRUE(done && *done);
    EXPECT_EQ((*done)->status, AnalysisStatus::done);
}

INSTANTIATE_TEST_SUITE_P(Engines, StorageAnalyses,
                         ::testing::ValuesIn(testing::engines_under_test()), testing::engine_name);

}  // namespace
}  // namespace arbiter::server::storage
