// A game's analysis as arbiter-cli reads and prints it (issue 42; schema/protocol.md, Analysis).

#include "client/cli/analysis_view.hpp"

#include <gtest/gtest.h>

#include "client/cli/game_view.hpp"

namespace arbiter::client {
namespace {

using protocol::AnalysisEval;
using protocol::AnalysisStatus;
using protocol::decode_analysis;

// Fool's mate, analysed: 2. g4?? lets mate in one.
constexpr std::string_view kDone = R"({"game":"g1","status":"done","engine":"stockfish",
 "done":5,"total":5,
 "plies":[{"ply":0,"eval":{"cp":31},"best":"e2e4","pv":["e2e4","e7e5"],"mark":null},
          {"ply":1,"eval":{"cp":-60},"best":"e7e5","pv":["e7e5"],"mark":"?!"},
          {"ply":2,"eval":{"cp":-50},"best":"g2g3","pv":["g2g3"],"mark":null},
          {"ply":3,"eval":{"mate":-1},"best":"d8h4","pv":["d8h4"],"mark":"??"},
          {"ply":4,"eval":null,"best":null,"pv":[],"mark":null}],
 "accuracy":{"white":12.3,"black":98.04},
 "counts":{"white":{"inaccuracy":1,"mistake":0,"blunder":1},
           "black":{"inaccuracy":0,"mistake":0,"blunder":0}}})";

GameRecord fools_mate() {
    GameRecord record;
    record.game = "g1";
    record.variant = "chess";
    record.status = "finished";
    record.initial_position = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    record.players = {{"white", "Ana"}, {"black", "Bo"}};
    record.moves = {{1, "f2f3", "f3", "", false},
                    {2, "e7e5", "e5", "", false},
                    {3, "g2g4", "g4", "", false},
                    {4, "d8h4", "Qh4#", "", true}};
    record.result = "0-1";
    record.reason = "checkmate";
    return record;
}

TEST(CliAnalysis, ADoneAnalysisIsReadWithItsEvaluationsMarksAndFigures) {
    const auto analysis = decode_analysis(kDone);
    ASSERT_TRUE(analysis) << analysis.error();
    EXPECT_EQ(analysis->status, AnalysisStatus::done);
    EXPECT_TRUE(protocol::is_finished(analysis->status));
    ASSERT_EQ(analysis->plies.size(), 5u);
    EXPECT_EQ(analysis->plies[3].eval, (AnalysisEval{AnalysisEval::Kind::mate, -1}));
    EXPECT_EQ(analysis->plies[3].mark, protocol::MoveMark::blunder);
    EXPECT_FALSE(analysis->plies[4].eval);
    EXPECT_TRUE(analysis->plies[4].best.empty());
    ASSERT_TRUE(analysis->figures);
    ASSERT_EQ(analysis->figures->size(), 2u);
    for (const protocol::SeatFigures& seat : *analysis->figures) {
        EXPECT_EQ(seat.counts.blunder, seat.seat == "white" ? 1 : 0) << seat.seat;
        EXPECT_EQ(seat.counts.inaccuracy, seat.seat == "white" ? 1 : 0) << seat.seat;
        EXPECT_DOUBLE_EQ(seat.accuracy.value_or(0), seat.seat == "white" ? 12.3 : 98.04);
    }
}

TEST(CliAnalysis, AnAnalysisInProgressHasNoFiguresYet) {
    const auto analysis = decode_analysis(
        R"({"game":"g1","status":"running","engine":"builtin","done":2,"total":9,)"
        R"("plies":[{"ply":0,"eval":{"cp":0},"best":"c3d4","pv":["c3d4"],"mark":null}],)"
        R"("accuracy":null,"counts":null})");
    ASSERT_TRUE(analysis) << analysis.error();
    EXPECT_FALSE(protocol::is_finished(analysis->status));
    EXPECT_FALSE(analysis->figures);
    EXPECT_EQ(progress_text(*analysis), "analysing g1 with builtin: 2/9 positions");
}

TEST(CliAnalysis, AMalformedAnalysisIsRefusedWithWhatIsWrong) {
    // Each body whole but for one thing wrong, which the refusal names.
    const auto body = [](std::string_view status, std::string_view plies, std::string_view counts) {
        return R"({"game":"g1","status":")" + std::string(status) +
               R"(","engine":"builtin","done":1,"total":1,"plies":[)" + std::string(plies) +
               R"(],"accuracy":)" + (counts == "null" ? "null" : "{}") + R"(,"counts":)" +
               std::string(counts) + "}";
    };
    ASSERT_TRUE(decode_analysis(body("done", "", "null")));
    EXPECT_FALSE(decode_analysis("not json"));
    for (const auto& [bad, says] : std::vector<std::pair<std::string, std::string>>{
             {body("finished", "", "null"), "status"},
             {R"({"game":"g1","status":"done","engine":"builtin","total":1,"plies":[],)"
              R"("accuracy":null,"counts":null})",
              "no done"},
             {body("done", R"({"ply":0,"eval":{"cp":"1"}})", "null"), "ply 0: the eval"},
             {body("done", R"({"ply":0,"eval":null,"mark":"!!"})", "null"), "ply 0: the mark"},
             {body("done", "", R"({"white":{"inaccuracy":1}})"), "counts of white"},
         }) {
        const auto refused = decode_analysis(bad);
        ASSERT_FALSE(refused) << bad;
        EXPECT_NE(refused.error().find(says), std::string::npos) << refused.error();
    }
}

TEST(CliAnalysis, TheProgressMessageSaysHowFarItIs) {
    EXPECT_EQ(progress_text(protocol::AnalysisProgress{"g1", AnalysisStatus::queued, 0, 9}),
              "analysis of g1 queued");
    EXPECT_EQ(progress_text(protocol::AnalysisProgress{"g1", AnalysisStatus::running, 5, 9}),
              "analysing g1: 5/9 positions");
    EXPECT_EQ(progress_text(protocol::AnalysisProgress{"g1", AnalysisStatus::done, 9, 9}),
              "analysis of g1 done");
    EXPECT_EQ(progress_text(protocol::AnalysisProgress{"g1", AnalysisStatus::failed, 4, 9}),
              "analysis of g1 failed");
    // As the game screen tells it, and without changing the game drawn.
    const protocol::ServerMessage message{
        protocol::AnalysisProgress{"g1", AnalysisStatus::running, 5, 9}, std::nullopt};
    GameView view;
    EXPECT_EQ(describe(view, message), "analysing g1: 5/9 positions");
    EXPECT_EQ(apply_message(view, message, 0), Applied::other);
}

TEST(CliAnalysis, EvaluationsReadInPawnsAndMates) {
    constexpr auto cp = AnalysisEval::Kind::cp;
    constexpr auto mate = AnalysisEval::Kind::mate;
    EXPECT_EQ(evaluation_text(AnalysisEval{cp, -410}), "-4.1");
    EXPECT_EQ(evaluation_text(AnalysisEval{cp, 31}), "+0.3");
    EXPECT_EQ(evaluation_text(AnalysisEval{cp, -4}), "0.0");
    EXPECT_EQ(evaluation_text(AnalysisEval{mate, 3}), "#3");
    EXPECT_EQ(evaluation_text(AnalysisEval{mate, -2}), "#-2");
    EXPECT_EQ(evaluation_text(std::nullopt), "-");
}

TEST(CliAnalysis, TheGameIsPrintedInPairsWithMarksEvaluationsAndAccuracy) {
    const auto analysis = decode_analysis(kDone);
    ASSERT_TRUE(analysis) << analysis.error();
    const std::string printed = print_analysed_record(fools_mate(), *analysis);
    EXPECT_NE(printed.find("1. f3?! (-0.6) e5 (-0.5)"), std::string::npos) << printed;
    EXPECT_NE(printed.find("2. g4?? (#-1) Qh4#"), std::string::npos) << printed;
    EXPECT_EQ(printed.find("Qh4# ("), std::string::npos) << "a decisive end has no number";
    EXPECT_NE(printed.find("Result: 0-1 (checkmate)"), std::string::npos) << printed;
    EXPECT_NE(printed.find("Accuracy: Ana (white) 12.3%: 1 inaccuracy, 0 mistakes, 1 blunder"),
              std::string::npos)
        << printed;
    EXPECT_NE(printed.find("Accuracy: Bo (black) 98.0%: 0 inaccuracies"), std::string::npos)
        << printed;
    EXPECT_LT(printed.find("Accuracy: Ana"), printed.find("Accuracy: Bo")) << "first seat first";
    EXPECT_NE(printed.find("stockfish"), std::string::npos) << printed;
}

TEST(CliAnalysis, AStepOfTheReplayShowsTheEvaluationMarkAndBestMove) {
    const auto analysis = decode_analysis(kDone);
    ASSERT_TRUE(analysis) << analysis.error();
    EXPECT_EQ(analysis_line_at(*analysis, 3), "Eval #-1  ??  best: d8h4\n");
    EXPECT_EQ(analysis_line_at(*analysis, 0), "Eval +0.3  best: e2e4 (e2e4 e7e5)\n");
    EXPECT_EQ(analysis_line_at(*analysis, 4), "Eval -\n");
    EXPECT_EQ(analysis_line_at(*analysis, 9), "");
}

TEST(CliAnalysis, AFullQueueSaysWhenToTryAgain) {
    const auto busy = read_analysis_refusal(
        503, R"({"error":"busy","message":"the analysis queue is full","retry_after_s":30})");
    EXPECT_EQ(refusal_text(busy, "g1"),
              "the server's analysis queue is full: try again in 30 seconds (arbiter-cli "
              "analyse g1)");
    const auto unfinished =
        read_analysis_refusal(409, R"({"error":"not_finished","message":"game g1 has not ended"})");
    EXPECT_EQ(refusal_text(unfinished, "g1"), "game g1 has not ended");
    EXPECT_EQ(refusal_text(read_analysis_refusal(500, "<html>"), "g1"), "the server answered 500");
}

}  // namespace
}  // namespace arbiter::client
