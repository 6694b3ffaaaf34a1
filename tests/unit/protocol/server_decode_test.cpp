// decode_server(): every server message read back as encode() wrote it, the variant's seat names,
// and the refusal of frames the server's schemas refuse.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/protocol/codec.hpp"
#include "tests/unit/protocol/samples.hpp"

namespace arbiter::protocol::test {
namespace {

using rules::Side;
using rules::Variant;

VariantOfGame every_game(Variant variant) {
    return [variant](std::string_view) { return std::optional(variant); };
}

Expected<ServerMessage, ProtocolError> read(std::string_view text,
                                            Variant variant = Variant::chess) {
    return decode_server(text, every_game(variant));
}

TEST(ServerDecode, EverySampleReadsBackAsItWasWritten) {
    for (const ServerMessage& sample : samples::server_messages()) {
        const std::string text = encode(sample);
        const auto back = read(text, samples::seat_variant(sample.body));
        ASSERT_TRUE(back) << text << " -> " << back.error().message;
        EXPECT_EQ(*back, sample) << text;
        EXPECT_EQ(encode(*back), text);
    }
}

TEST(ServerDecode, ReadsAMovedEventsFieldsAndItsLegalList) {
    const auto moved =
        read(R"({"type":"moved","game":"g7Kq2","seq":4,"ply":3,"move":"g1f3","notation":"Nf3",)"
             R"("position":"rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",)"
             R"("turn":"black","legal":["a7a6","b8c6","g8f6"],"check":false,)"
             R"("clock":{"white_ms":297100,"black_ms":299500,"running":true},"id":"m"})");
    ASSERT_TRUE(moved) << moved.error().message;
    EXPECT_EQ(moved->id, "m");
    const auto& body = std::get<Moved>(moved->body);
    EXPECT_EQ(body.game, "g7Kq2");
    EXPECT_EQ(body.seq, 4U);
    EXPECT_EQ(body.ply, 3U);
    EXPECT_EQ(body.move, "g1f3");
    EXPECT_EQ(body.turn, Side::second);
    EXPECT_EQ(body.legal, (std::vector<std::string>{"a7a6", "b8c6", "g8f6"}));
    ASSERT_TRUE(body.clock);
    EXPECT_EQ(body.clock->first_ms, 297100);
    EXPECT_EQ(body.clock->second_ms, 299500);
    EXPECT_TRUE(body.clock->running);
}

TEST(ServerDecode, ReadsADraughtsMovesRouteAndTheLegalMovesRoutes) {
    const auto moved =
        read(R"({"type":"moved","game":"d1","seq":9,"ply":7,"move":"7x23","notation":"7x23",)"
             R"("route":{"path":[7,14,23],"taken":[10,18]},"position":"W:W21:B23",)"
             R"("turn":"white","legal":["21-17"],"routes":[{"path":[21,17],"taken":[]}],)"
             R"("check":false,"clock":null})",
             Variant::draughts);
    ASSERT_TRUE(moved) << moved.error().message;
    const auto& body = std::get<Moved>(moved->body);
    EXPECT_EQ(body.route, (rules::MoveRoute{{7, 14, 23}, {10, 18}}));
    EXPECT_EQ(body.routes, (std::vector<rules::MoveRoute>{{{21, 17}, {}}}));
}

TEST(ServerDecode, RefusesRoutesOffTheBoardOrInAnotherGame) {
    const std::string head =
        R"({"type":"takeback","game":"d1","seq":9,"ply":2,"position":"p","turn":"white",)"
        R"("legal":["21-17"],)";
    const std::string tail = R"("check":false,"clock":null})";
    EXPECT_TRUE(
        read(head + R"("routes":[{"path":[21,17],"taken":[]}],)" + tail, Variant::draughts));
    for (const char* routes :
         {R"("routes":[{"path":[21,33],"taken":[]}],)", R"("routes":[{"path":[0,17],"taken":[]}],)",
          R"("routes":[{"path":[21,17]}],)", R"("routes":[[21,17]],)",
          R"("routes":[{"path":[21,17.0],"taken":[]}],)"}) {
        EXPECT_FALSE(read(head + routes + tail, Variant::draughts)) << routes;
    }
    EXPECT_FALSE(read(head + R"("routes":[{"path":[21,17],"taken":[]}],)" + tail, Variant::chess))
        << "chess has no routes";
}

TEST(ServerDecode, TheRequestIdMayStandAnywhere) {
    const auto first = read(R"({"id":"p","type":"pong"})");
    const auto last = read(R"( {"type":"pong","id":"p"} )");
    ASSERT_TRUE(first && last);
    EXPECT_EQ(*first, *last);
    EXPECT_EQ(first->id, "p");
}

TEST(ServerDecode, SeatsAreNamedByTheVariant) {
    const std::string presence =
        R"({"type":"presence","game":"g1","seq":5,"seat":"red","connected":true,)"
        R"("claim_after_ms":null})";
    const auto in_xiangqi = read(presence, Variant::xiangqi);
    ASSERT_TRUE(in_xiangqi) << in_xiangqi.error().message;
    EXPECT_EQ(std::get<Presence>(in_xiangqi->body).seat, Side::first);
    EXPECT_EQ(std::get<Presence>(in_xiangqi->body).variant, Variant::xiangqi);
    const auto in_chess = read(presence, Variant::chess);
    ASSERT_FALSE(in_chess);
    EXPECT_EQ(in_chess.error().code, ErrorCode::bad_request);
    EXPECT_NE(in_chess.error().message.find("\"seat\""), std::string::npos);
    // A message that names its variant is read with its own, whatever the client passes.
    const auto created =
        read(R"({"type":"created","game":"g1","seat":"red","token":"t0","variant":"xiangqi"})",
             Variant::chess);
    ASSERT_TRUE(created) << created.error().message;
    EXPECT_EQ(std::get<SeatGranted>(created->body).seat, Side::first);
}

TEST(ServerDecode, AGameWhoseVariantIsNotKnownIsUnknownGame) {
    const auto none = [](std::string_view) { return std::optional<Variant>(); };
    const auto offer = decode_server(
        R"({"type":"offer","game":"g9","seq":3,"kind":"draw","action":"offer","by":"white",)"
        R"("id":"d"})",
        none);
    ASSERT_FALSE(offer);
    EXPECT_EQ(offer.error().code, ErrorCode::unknown_game);
    EXPECT_EQ(offer.error().id, "d");
    EXPECT_NE(offer.error().message.find("g9"), std::string::npos);
    // Messages without seats, or with their variant, need nothing from the client.
    EXPECT_TRUE(decode_server(R"({"type":"rematch","game":"g9","seq":4,"next":"g10"})", none));
    EXPECT_TRUE(decode_server(R"({"type":"spectators","game":"g9","count":2})", none));
}

TEST(ServerDecode, DecodesEscapedStrings) {
    const auto error = read(
        R"({"type":"error","code":"bad_\u0072equest","message":"a\"b\\c\/d\n\u00e9\ud83d\ude00"})");
    ASSERT_TRUE(error) << error.error().message;
    EXPECT_EQ(std::get<ErrorMessage>(error->body).code, ErrorCode::bad_request);
    EXPECT_EQ(std::get<ErrorMessage>(error->body).message, "a\"b\\c/d\n\xC3\xA9\xF0\x9F\x98\x80");
    const auto keyed = read(R"({"\u0074ype":"pong"})");
    ASSERT_TRUE(keyed) << keyed.error().message;
}

struct Refusal {
    std::string frame;
    ErrorCode code;
    std::string says;  ///< a part of the message
};

TEST(ServerDecode, RefusesMalformedFrames) {
    const auto moved = [](const std::string& clock, const std::string& legal = "[]",
                          const std::string& more = "") {
        return R"({"type":"moved","game":"g1","seq":4,"ply":3,"move":"g1f3","notation":"Nf3",)"
               R"("position":"p","turn":"black","check":false,"legal":)" +
               legal + R"(,"clock":)" + clock + more + "}";
    };
    const std::vector<Refusal> refusals = {
        {"", ErrorCode::bad_json, "not valid JSON"},
        {"pong", ErrorCode::bad_json, "JSON"},
        {R"({"type":"pong"} {})", ErrorCode::bad_json, "not valid JSON"},
        {R"({"type":"pong")", ErrorCode::bad_json, "JSON object"},
        {R"(["pong"])", ErrorCode::bad_json, "JSON object"},
        {R"("pong")", ErrorCode::bad_json, "JSON object"},
        {R"({"type":"pong",})", ErrorCode::bad_json, "JSON object"},
        {R"({"type" "pong"})", ErrorCode::bad_json, "JSON object"},
        {R"({type:"pong"})", ErrorCode::bad_json, "JSON object"},
        {R"({})", ErrorCode::bad_request, "missing field \"type\""},
        {R"({"type":7})", ErrorCode::bad_request, "must be a string"},
        {R"({"type":"hello"})", ErrorCode::unknown_type, "\"hello\""},
        {R"({"type":"pong","extra":1})", ErrorCode::bad_request, "unknown field \"extra\""},
        {R"({"type":"pong","type":"pong"})", ErrorCode::bad_request, "repeated"},
        {R"({"type":"pong","id":5})", ErrorCode::bad_request, "\"id\""},
        {R"({"type":"pong","id":")" + std::string(65, 'x') + R"("})", ErrorCode::bad_request,
         "\"id\""},
        {R"({"type":"pong","id":"a\ud800"})", ErrorCode::bad_request, "\"id\""},
        {"{\"type\":\"pong\",\"id\":\"\xC3\"}", ErrorCode::bad_request, "\"id\""},
        {"{\"type\":\"pong\",\"id\":\"a\nb\"}", ErrorCode::bad_request, "\"id\""},
        {R"({"type":"spectators","game":"g1","count":-1})", ErrorCode::bad_request, "\"count\""},
        {R"({"type":"spectators","game":"g1","count":1.0})", ErrorCode::bad_request, "\"count\""},
        {R"({"type":"spectators","game":"g1","count":1e2})", ErrorCode::bad_request, "\"count\""},
        {R"({"type":"spectators","game":"g1","count":01})", ErrorCode::bad_json, "JSON object"},
        {R"({"type":"spectators","game":"g1","count":"1"})", ErrorCode::bad_request, "\"count\""},
        {R"({"type":"spectators","game":"g1","count":4294967296})", ErrorCode::bad_request,
         "\"count\""},
        {R"({"type":"spectators","game":"g 1","count":1})", ErrorCode::bad_request, "\"game\""},
        {R"({"type":"spectators","game":"g1"})", ErrorCode::bad_request, "missing field \"count\""},
        {R"({"type":"rematch","game":"g1","seq":18446744073709551616,"next":"g2"})",
         ErrorCode::bad_request, "\"seq\""},
        {moved("null", "[]", R"(,"check":true)"), ErrorCode::bad_request, "repeated"},
        {moved("7"), ErrorCode::bad_request, "\"clock\""},
        {moved(R"({"white_ms":1,"black_ms":2})"), ErrorCode::bad_request, "\"clock.running\""},
        {moved(R"({"red_ms":1,"black_ms":2,"running":true})"), ErrorCode::bad_request,
         "\"clock.white_ms\""},
        {moved(R"({"white_ms":1,"black_ms":2,"running":1})"), ErrorCode::bad_request,
         "\"clock.running\""},
        {moved(R"({"white_ms":1,"black_ms":2,"running":true,"x":0})"), ErrorCode::bad_request,
         "unknown field \"clock.x\""},
        {moved("null", R"(["a",7])"), ErrorCode::bad_request, "\"legal\""},
        {moved("null", R"(["a",""])"), ErrorCode::bad_request, "\"legal\""},
        {moved("null", R"(["a",])"), ErrorCode::bad_request, "\"legal\""},
        {moved("null", R"("a")"), ErrorCode::bad_request, "\"legal\""},
        {R"({"type":"ended","game":"g1","seq":9,"result":"1-0","reason":"","status":"ended"})",
         ErrorCode::bad_request, "\"reason\""},
        {R"({"type":"ended","game":"g1","seq":9,"result":"2-0","reason":"resign","status":"ended"})",
         ErrorCode::bad_request, "\"result\""},
        {R"({"type":"ended","game":"g1","seq":9,"result":null,"reason":"aborted","status":"playing"})",
         ErrorCode::bad_request, "\"status\""},
        {R"({"type":"error","code":"oops","message":"m"})", ErrorCode::bad_request, "\"code\""},
        {R"({"type":"welcome","server":"s","protocol":0,"engines":[]})", ErrorCode::bad_request,
         "\"protocol\""},
        {R"({"type":"welcome","server":"s","protocol":1,"engines":[{"name":"b","variants":["chess","chess"]}]})",
         ErrorCode::bad_request, "\"engines[0].variants\""},
        {R"({"type":"welcome","server":"s","protocol":1})", ErrorCode::bad_request,
         "missing field \"engines\""},
        {R"({"type":"lobby","games":[{"game":"g1"}]})", ErrorCode::bad_request,
         "missing field \"games[0].variant\""},
        {R"({"type":"lobby","games":{}})", ErrorCode::bad_request, "\"games\""},
        {R"({"type":"seat_lost","game":"g1","seat":"white","reason":"kicked","you":null})",
         ErrorCode::bad_request, "\"reason\""},
        {R"({"type":"created","game":"g1","seat":"white","token":"a b","variant":"chess"})",
         ErrorCode::bad_request, "\"token\""},
        {"{\"type\":\"error\",\"code\":\"internal\",\"message\":\"\xFF\"}", ErrorCode::bad_request,
         "\"message\""},
        {"{\"type\":\"error\",\"code\":\"internal\",\"message\":\"\xED\xA0\x80\"}",
         ErrorCode::bad_request, "\"message\""},
        {R"({"type":"error","code":"internal","message":"\x"})", ErrorCode::bad_request,
         "\"message\""},
        {R"({"type":"error","code":"internal","message":"\u12"})", ErrorCode::bad_request,
         "\"message\""},
        {R"({"type":"error","code":"internal","message":"\udc00"})", ErrorCode::bad_request,
         "\"message\""},
    };
    for (const Refusal& refusal : refusals) {
        Expected<ServerMessage, ProtocolError> result = unexpected(ProtocolError{});
        EXPECT_NO_THROW(result = read(refusal.frame)) << refusal.frame;
        ASSERT_FALSE(result) << refusal.frame;
        EXPECT_EQ(result.error().code, refusal.code)
            << refusal.frame << " -> " << result.error().message;
        EXPECT_NE(result.error().message.find(refusal.says), std::string::npos)
            << refusal.frame << " -> " << result.error().message;
    }
}

TEST(ServerDecode, ARefusalCarriesTheIdWhenItCouldBeRead) {
    const auto refused = read(R"({"type":"spectators","game":"g1","count":-1,"id":"s1"})");
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().id, "s1");
    const auto unknown = read(R"({"type":"hello","id":"h"})");
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().id, "h");
}

TEST(ServerDecode, AFieldAnEngineSeatHasIsTrueOrAbsent) {
    const std::string state =
        R"({"type":"state","game":"g1","seq":1,"variant":"chess","status":"waiting",)"
        R"("you":"white","players":{"white":{"name":"A","connected":true},"black":BLACK},)"
        R"("initial_position":"s","position":"s","moves":[],"notation":[],"ply":0,)"
        R"("turn":"white","legal":[],"check":false,"clock":null,"time_control":null,)"
        R"("result":null,"reason":null,"offers":[],"spectators":0,"rematch":null})";
    const auto with = [&](const std::string& black) {
        std::string text = state;
        text.replace(text.find("BLACK"), 5, black);
        return read(text);
    };
    ASSERT_TRUE(with("null"));
    EXPECT_FALSE(std::get<State>(with("null")->body).second);
    const auto engine = with(R"({"name":"E","connected":true,"engine":true})");
    ASSERT_TRUE(engine) << engine.error().message;
    EXPECT_TRUE(std::get<State>(engine->body).second->engine);
    EXPECT_FALSE(with(R"({"name":"E","connected":true,"engine":false})"));
    EXPECT_FALSE(with(R"({"name":"E"})"));
}

}  // namespace
}  // namespace arbiter::protocol::test
