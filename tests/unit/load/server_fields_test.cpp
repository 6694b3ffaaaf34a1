// arbiter-load reads the few fields its players act on from each server message.
#include "bench/load/server_fields.hpp"

#include <gtest/gtest.h>

namespace arbiter::bench::load {
namespace {

TEST(ServerFields, ReadsAMovedEventsTopLevelFieldsAndItsLegalList) {
    ServerFields fields;
    ASSERT_TRUE(read_server_fields(
        R"({"type":"moved","game":"g7Kq2","seq":4,"ply":3,"move":"g1f3","notation":"Nf3",)"
        R"("position":"rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",)"
        R"("turn":"black","legal":["a7a6","b8c6","g8f6"],"check":false,)"
        R"("clock":{"white_ms":297100,"black_ms":299500,"running":true},"id":"m"})",
        fields));
    EXPECT_EQ(fields.type, "moved");
    EXPECT_EQ(fields.game, "g7Kq2");
    EXPECT_EQ(fields.move, "g1f3");
    EXPECT_EQ(fields.turn, "black");
    EXPECT_EQ(fields.id, "m");
    EXPECT_TRUE(fields.has_id);
    EXPECT_EQ(fields.ply, 3u);
    EXPECT_EQ(std::vector<std::string>(fields.legal_moves().begin(), fields.legal_moves().end()),
              (std::vector<std::string>{"a7a6", "b8c6", "g8f6"}));
}

TEST(ServerFields, NestedValuesDoNotOverwriteTopLevelOnes) {
    ServerFields fields;
    ASSERT_TRUE(read_server_fields(
        R"({"type":"state","game":"g1","turn":"white","status":"playing","ply":0,)"
        R"("seats":[{"seat":"s-first","name":"a"},{"seat":"s-second"}],)"
        R"("moves":[{"move":"e2e4","ply":1}],"legal":["e2e4"],"extra":{"type":"x","legal":["z"]}})",
        fields));
    EXPECT_EQ(fields.type, "state");
    EXPECT_EQ(fields.status, "playing");
    EXPECT_EQ(fields.seat, "");
    EXPECT_EQ(fields.move, "");
    EXPECT_EQ(fields.ply, 0u);
    ASSERT_EQ(fields.legal_moves().size(), 1u);
    EXPECT_EQ(fields.legal_moves()[0], "e2e4");
    EXPECT_FALSE(fields.has_id);
}

TEST(ServerFields, EachMessageStartsAfresh) {
    ServerFields fields;
    ASSERT_TRUE(
        read_server_fields(R"({"type":"moved","legal":["a","b","c"],"id":"m","ply":9})", fields));
    ASSERT_TRUE(read_server_fields(R"({"type":"error","code":"stale_ply","legal":["d"]})", fields));
    EXPECT_EQ(fields.type, "error");
    EXPECT_EQ(fields.code, "stale_ply");
    EXPECT_EQ(fields.id, "");
    EXPECT_FALSE(fields.has_id);
    EXPECT_EQ(fields.ply, 0u);
    ASSERT_EQ(fields.legal_moves().size(), 1u);
    EXPECT_EQ(fields.legal_moves()[0], "d");
}

TEST(ServerFields, DecodesEscapedStrings) {
    ServerFields fields;
    ASSERT_TRUE(read_server_fields(
        R"({"type":"error","code":"bad_\u0072equest","game":"a\"b\\c","legal":["x\ny"]})", fields));
    EXPECT_EQ(fields.code, "bad_request");
    EXPECT_EQ(fields.game, "a\"b\\c");
    ASSERT_EQ(fields.legal_moves().size(), 1u);
    EXPECT_EQ(fields.legal_moves()[0], "x\ny");
}

TEST(ServerFields, RefusesWhatIsNotOneJsonObject) {
    ServerFields fields;
    EXPECT_FALSE(read_server_fields(R"({"type":"moved")", fields));
    EXPECT_FALSE(read_server_fields(R"({"type":"moved"} trailing)", fields));
    EXPECT_FALSE(read_server_fields("", fields));
    EXPECT_FALSE(read_server_fields(R"({"type":"mo\ved"})", fields));
}

}  // namespace
}  // namespace arbiter::bench::load
