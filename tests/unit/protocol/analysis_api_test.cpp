// The analysis messages of issue 42 (protocol.md, "Analysis"), as the codec writes and reads them.

#include "common/protocol/analysis_api.hpp"

#include <gtest/gtest.h>

#include <string>

#include "common/protocol/codec.hpp"

namespace arbiter::protocol {
namespace {

std::string encode_progress(const AnalysisProgress& progress,
                            std::optional<std::string> id = std::nullopt) {
    return encode(ServerMessage{progress, std::move(id)});
}

Expected<ServerMessage, ProtocolError> decode_progress(std::string_view text) {
    // `analysis` names no seat: it is read without knowing the game's variant.
    return decode_server(text, [](std::string_view) { return std::nullopt; });
}

TEST(AnalysisProgress, IsAServerMessageOfTheCodec) {
    EXPECT_EQ(encode_progress({"g7Kq2", AnalysisStatus::running, 3, 8}),
              R"({"type":"analysis","game":"g7Kq2","status":"running","done":3,"total":8})");
    for (const auto status : {AnalysisStatus::queued, AnalysisStatus::running, AnalysisStatus::done,
                              AnalysisStatus::failed}) {
        const AnalysisProgress progress{"g1", status, 8, 8};
        const auto back = decode_progress(encode_progress(progress));
        ASSERT_TRUE(back) << back.error().message;
        EXPECT_EQ(*back, (ServerMessage{progress, std::nullopt}));
    }
}

TEST(AnalysisProgress, CarriesARequestIdLikeTheOthers) {
    const std::string text = encode_progress({"g1", AnalysisStatus::done, 2, 2}, "r7");
    EXPECT_EQ(text, R"({"type":"analysis","game":"g1","status":"done","done":2,"total":2,)"
                    R"("id":"r7"})");
    const auto back = decode_progress(text);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->id, "r7");
    // Wherever it stands, and on a refusal too.
    const auto first = decode_progress(
        R"({"id":"r8","type":"analysis","game":"g1","status":"queued","done":0,"total":5})");
    ASSERT_TRUE(first) << first.error().message;
    EXPECT_EQ(first->id, "r8");
    const auto refused = decode_progress(
        R"({"type":"analysis","game":"g1","status":"paused","done":0,"total":5,"id":"r9"})");
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().id, "r9");
    // The requester's copy of a shared message.
    EXPECT_EQ(*SharedMessage(AnalysisProgress{"g1", AnalysisStatus::done, 2, 2}).with_id("r7"),
              R"({"id":"r7","type":"analysis","game":"g1","status":"done","done":2,"total":2})");
}

TEST(AnalysisProgress, RefusesWhatItsSchemaRefuses) {
    for (const std::string_view text : {
             R"({"type":"analysis","game":"g1","status":"paused","done":1,"total":2})",
             R"({"type":"analysis","game":"g1","status":"done","done":3,"total":2})",
             R"({"type":"analysis","game":"g1","status":"done","done":0,"total":0})",
             R"({"type":"analysis","game":"g1","status":"done","done":-1,"total":2})",
             R"({"type":"analysis","game":"g1","status":"done","done":1})",
             R"({"type":"analysis","game":"g1","status":"done","done":1.5,"total":2})",
             R"({"type":"analysis","game":"not an id","status":"done","done":1,"total":2})",
             R"({"type":"analysis","game":"g1","status":"done","done":1,"total":2,"seq":3})",
         }) {
        const auto refused = decode_progress(text);
        ASSERT_FALSE(refused) << text;
        EXPECT_EQ(refused.error().code, ErrorCode::bad_request) << text;
    }
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
    // A centipawn score beyond int is damage, not a score to cut down to size.
    EXPECT_FALSE(
        decode_analysis_plies(R"([{"ply":1,"eval":{"cp":99999999999},"best":null,"pv":[]}])"));
    // An accuracy for a seat that has no counts.
    EXPECT_FALSE(decode_analysis_figures(R"({"red":50.0})",
                                         R"({"white":)"
                                         R"({"inaccuracy":0,"mistake":0,"blunder":0}})"));
}

AnalysisView sample_view() {
    return {"g7Kq2", AnalysisStatus::done, "stockfish", 8, 8, sample_plies(), sample_figures()};
}

TEST(AnalysisBody, DecodesWhatItEncodes) {
    for (const auto status : {AnalysisStatus::queued, AnalysisStatus::running, AnalysisStatus::done,
                              AnalysisStatus::failed}) {
        AnalysisView view = sample_view();
        view.status = status;
        const auto back = decode_analysis(encode_analysis(view));
        ASSERT_TRUE(back) << back.error();
        EXPECT_EQ(*back, view);
    }
    // In progress: null accuracy and counts, the plies done so far.
    AnalysisView running = sample_view();
    running.status = AnalysisStatus::running;
    running.done = 3;
    running.figures.reset();
    const auto back = decode_analysis(encode_analysis(running));
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(*back, running);
    // The seats come back in the order the server wrote them (the first seat first).
    AnalysisView xiangqi = sample_view();
    xiangqi.figures = {{"red", 80.5, {1, 0, 0}}, {"black", 70.0, {0, 1, 0}}};
    EXPECT_EQ(decode_analysis(encode_analysis(xiangqi))->figures, xiangqi.figures);
}

TEST(AnalysisBody, DecodesTheContractsExample) {
    // schema/protocol.md, "Analysis".
    const auto view = decode_analysis(
        R"({"game":"g7Kq2","status":"done","engine":"stockfish","done":8,"total":8,
            "plies":[{"ply":0,"eval":{"cp":31},"best":"e2e4","pv":["e2e4","e7e5","g1f3"],"mark":null},
                     {"ply":6,"eval":{"mate":1},"best":"h5f7","pv":["h5f7"],"mark":"??"},
                     {"ply":7,"eval":null,"best":null,"pv":[],"mark":null}],
            "accuracy":{"white":97.1,"black":52.3},
            "counts":{"white":{"inaccuracy":0,"mistake":0,"blunder":0},
                      "black":{"inaccuracy":0,"mistake":0,"blunder":1}}})");
    ASSERT_TRUE(view) << view.error();
    EXPECT_EQ(view->status, AnalysisStatus::done);
    ASSERT_EQ(view->plies.size(), 3U);
    EXPECT_EQ(view->plies[1].eval, (AnalysisEval{AnalysisEval::Kind::mate, 1}));
    EXPECT_EQ(view->plies[1].mark, MoveMark::blunder);
    EXPECT_EQ(view->plies[0].pv, (std::vector<std::string>{"e2e4", "e7e5", "g1f3"}));
    EXPECT_EQ(view->figures,
              (std::vector<SeatFigures>{{"white", 97.1, {0, 0, 0}}, {"black", 52.3, {0, 0, 1}}}));
}

// The body of encode_analysis(sample_view()) with `from` replaced by `to` (once).
std::string altered(std::string_view from, std::string_view to) {
    std::string body = encode_analysis(sample_view());
    const auto at = body.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? body : body.replace(at, from.size(), to);
}

TEST(AnalysisBody, RefusesAMalformedBodyAndSaysWhy) {
    struct Case {
        std::string body;
        std::string says;
    };
    const std::vector<Case> cases = {
        {"not json", "not a JSON object"},
        {"[]", "not a JSON object"},
        {altered(R"("status":"done")", R"("status":"paused")"), "status"},
        {altered(R"("status":"done")", R"("status":3)"), "status"},
        {altered(R"({"cp":31})", R"({"cp":31.5})"), "ply 0: the eval"},
        {altered(R"({"cp":31})", R"({"cp":"31"})"), "ply 0: the eval"},
        {altered(R"({"cp":31})", R"({"cp":99999999999})"), "ply 0: the eval"},
        {altered(R"({"cp":31})", R"({"cp":31,"mate":2})"), "ply 0: the eval"},
        {altered(R"({"cp":31})", R"({"pawns":31})"), "ply 0: the eval"},
        {altered(R"("mark":"??")", R"("mark":"!")"), "ply 6: the mark"},
        {altered(R"("mark":"??")", R"("mark":1)"), "ply 6: the mark"},
        {altered(R"("pv":["h5f7"])", R"("pv":"h5f7")"), "ply 6: pv"},
        {altered(R"("best":"h5f7")", R"("best":7)"), "ply 6: best"},
        {altered(R"({"ply":6,)", R"({"ply":-6,)"), "a ply without its number"},
        {altered(R"("done":8)", R"("done":9)"), "done"},
        {altered(R"("engine":"stockfish",)", ""), "has no engine"},
        {altered(R"("game":"g7Kq2",)", R"("game":"g7Kq2","seq":1,)"), R"(unknown field "seq")"},
        {R"({"game":"g1","status":"running","engine":"builtin","done":0,"total":1,)"
         R"("plies":{},"accuracy":null,"counts":null})",
         "plies are not a list"},
        {altered(R"("accuracy":{"white":97.1})", R"("accuracy":null)"), "accuracy and counts"},
        {altered(R"("accuracy":{"white":97.1})", R"("accuracy":{"white":"97"})"),
         "accuracy of white"},
        {altered(R"("accuracy":{"white":97.1})", R"("accuracy":{"red":97.1})"), "accuracy of red"},
        {altered(R"("blunder":3)", R"("blunder":-3)"), "counts of black"},
    };
    for (const Case& bad : cases) {
        const auto read = decode_analysis(bad.body);
        ASSERT_FALSE(read) << bad.body;
        EXPECT_NE(read.error().find(bad.says), std::string::npos)
            << bad.body << " -> " << read.error();
    }
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
