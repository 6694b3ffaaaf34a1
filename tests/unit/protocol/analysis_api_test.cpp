// The analysis messages of issue 42 (protocol.md, "Analysis"), as the codec writes and reads them.

#include "common/protocol/analysis_api.hpp"

#include <gtest/gtest.h>

namespace arbiter::protocol {
namespace {

TEST(AnalysisProgress, EncodesTheContractsFields) {
    EXPECT_EQ(encode_analysis_progress({"g7Kq2", AnalysisStatus::running, 3, 8}),
              R"({"type":"analysis","game":"g7Kq2","status":"running","done":3,"total":8})");
}

TEST(AnalysisProgress, DecodesWhatItEncodes) {
    for (const auto status : {AnalysisStatus::queued, AnalysisStatus::running, AnalysisStatus::done,
                              AnalysisStatus::failed}) {
        const AnalysisProgress progress{"g1", status, 8, 8};
        EXPECT_EQ(decode_analysis_progress(encode_analysis_progress(progress)), progress);
    }
}

TEST(AnalysisProgress, RefusesAnythingElse) {
    EXPECT_FALSE(decode_analysis_progress("not json"));
    EXPECT_FALSE(decode_analysis_progress(R"({"type":"chat","game":"g1"})"));
    EXPECT_FALSE(decode_analysis_progress(
        R"({"type":"analysis","game":"g1","status":"paused","done":1,"total":2})"));
    EXPECT_FALSE(decode_analysis_progress(
        R"({"type":"analysis","game":"g1","status":"done","done":3,"total":2})"));
    EXPECT_FALSE(
        decode_analysis_progress(R"({"type":"analysis","game":"g1","status":"done","done":1})"));
}

std::vector<AnalysisPly> sample_plies() {
    return {{0, AnalysisEval{AnalysisEval::Kind::cp, 31}, "e2e4", {"e2e4", "e7e5"}, MoveMark::none},
            {6, AnalysisEval{AnalysisEval::Kind::mate, 1}, "h5f7", {"h5f7"}, MoveMark::blunder},
            {7, std::nullopt, "", {}, MoveMark::none}};
}

std::vector<SeatFigures> sample_figures() {
    return {{"white", 97.1, {0, 0, 0}}, {"black", std::nullopt, {1, 2, 3}}};
}

TEST(AnalysisBody, EncodesTheContractsObjectInItsOrder) {
    AnalysisView view{"g7Kq2", AnalysisStatus::done, "stockfish",     3,
                      3,       sample_plies(),       sample_figures()};
    EXPECT_EQ(
        encode_analysis(view),
        R"({"game":"g7Kq2","status":"done","engine":"stockfish","done":3,"total":3,)"
        R"("plies":[{"ply":0,"eval":{"cp":31},"best":"e2e4","pv":["e2e4","e7e5"],"mark":null},)"
        R"({"ply":6,"eval":{"mate":1},"best":"h5f7","pv":["h5f7"],"mark":"??"},)"
        R"({"ply":7,"eval":null,"best":null,"pv":[],"mark":null}],)"
        R"("accuracy":{"white":97.1},)"
        R"("counts":{"white":{"inaccuracy":0,"mistake":0,"blunder":0},)"
        R"("black":{"inaccuracy":1,"mistake":2,"blunder":3}}})");
    view.status = AnalysisStatus::running;
    view.figures.reset();
    view.plies.clear();
    EXPECT_EQ(encode_analysis(view),
              R"({"game":"g7Kq2","status":"running","engine":"stockfish","done":3,"total":3,)"
              R"("plies":[],"accuracy":null,"counts":null})");
}

TEST(AnalysisBody, StoredPartsReadBackAsWritten) {
    EXPECT_EQ(decode_analysis_plies(encode_analysis_plies(sample_plies())), sample_plies());
    EXPECT_EQ(decode_analysis_figures(encode_analysis_accuracy(sample_figures()),
                                      encode_analysis_counts(sample_figures())),
              sample_figures());
    // Rows stored before this encoder (nlohmann's sorted keys) read the same.
    EXPECT_EQ(
        decode_analysis_plies(R"([{"best":null,"eval":{"cp":-20},"mark":"?!","ply":1,"pv":[]}])"),
        (std::vector<AnalysisPly>{
            {1, AnalysisEval{AnalysisEval::Kind::cp, -20}, "", {}, MoveMark::inaccuracy}}));
}

TEST(AnalysisBody, DamagedStoredPartsAreRefused) {
    EXPECT_FALSE(decode_analysis_plies("{}"));
    EXPECT_FALSE(decode_analysis_plies(R"([{"ply":1,"eval":{"cp":"x"},"best":null,"pv":[]}])"));
    EXPECT_FALSE(
        decode_analysis_plies(R"([{"ply":1,"eval":null,"best":null,"pv":[],"mark":"!"}])"));
    EXPECT_FALSE(decode_analysis_figures("{}", R"({"white":{"inaccuracy":0}})"));
    EXPECT_FALSE(decode_analysis_figures("[]", "{}"));
}

TEST(AnalysisBody, PositionEvalAndBusy) {
    EXPECT_EQ(
        encode_position_eval({AnalysisEval{AnalysisEval::Kind::mate, 2},
                              "a2a7",
                              {"a2a7", "h8g8", "b1b8"},
                              "stockfish"}),
        R"({"eval":{"mate":2},"best":"a2a7","pv":["a2a7","h8g8","b1b8"],"engine":"stockfish"})");
    EXPECT_EQ(encode_position_eval({std::nullopt, "", {}, "builtin"}),
              R"({"eval":null,"best":null,"pv":[],"engine":"builtin"})");
    EXPECT_EQ(encode_analysis_busy("full", 5),
              R"({"error":"busy","message":"full","retry_after_s":5})");
}

}  // namespace
}  // namespace arbiter::protocol
