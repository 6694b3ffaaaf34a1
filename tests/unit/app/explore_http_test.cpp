#include "server/app/explore_http.hpp"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace arbiter::server::app {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kStartFen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

Json body_of(const net::HttpResponse& response) {
    return Json::parse(response.body);
}

TEST(ExploreHttp, DescribesAChessPosition) {
    const auto answer = explore_answer("variant=chess&position=" + std::string("startpos"));
    ASSERT_EQ(answer.status, 200u) << answer.body;
    EXPECT_EQ(answer.content_type, "application/json");
    const Json body = body_of(answer);
    EXPECT_EQ(body["variant"], "chess");
    EXPECT_EQ(body["position"], kStartFen);
    EXPECT_EQ(body["turn"], "white");
    EXPECT_EQ(body["legal"].size(), 20u);
    EXPECT_EQ(body["status"], (Json{{"over", false}, {"result", nullptr}, {"reason", nullptr}}));
    EXPECT_FALSE(body.contains("played"));
}

// Found by fuzz_http: a refusal quotes the parameter it refuses, and bytes that are not UTF-8
// made the JSON writer throw. The answer is a 400 whose JSON carries U+FFFD in their place.
TEST(ExploreHttp, AParameterThatIsNotUtf8IsRefusedWithValidJson) {
    const auto answer = explore_answer("variant=chess&st\xedtus=ended&position=\xff\xff");
    ASSERT_EQ(answer.status, 400u);
    const Json body = body_of(answer);
    EXPECT_EQ(body["error"], "invalid");
    const std::string message = body["message"];
    EXPECT_NE(message.find("\xef\xbf\xbd"), std::string::npos) << message;
}

TEST(ExploreHttp, AMoveInDisplayNotationGivesThePositionAfterIt) {
    // The FEN percent-encoded as a browser's URLSearchParams writes it ('+' for the spaces).
    const auto answer = explore_answer(
        "variant=chess&position=rnbqkbnr%2Fpppppppp%2F8%2F8%2F8%2F8%2FPPPPPPPP%2FRNBQKBNR+w+KQkq+-"
        "+0+1&move=Nf3");
    ASSERT_EQ(answer.status, 200u) << answer.body;
    const Json body = body_of(answer);
    EXPECT_EQ(body["position"], "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1");
    EXPECT_EQ(body["turn"], "black");
    EXPECT_EQ(body["played"], (Json{{"move", "g1f3"}, {"notation", "Nf3"}}));
    EXPECT_EQ(body["legal"].size(), 20u);
}

TEST(ExploreHttp, AMateEndsTheListOfMovesAndSaysTheResult) {
    // Fool's mate, its last move played here.
    const auto answer = explore_answer(
        "variant=chess&position=rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR+b+KQkq+-+0+2"
        "&move=d8h4");
    ASSERT_EQ(answer.status, 200u) << answer.body;
    const Json body = body_of(answer);
    EXPECT_TRUE(body["legal"].empty());
    EXPECT_EQ(body["status"], (Json{{"over", true}, {"result", "0-1"}, {"reason", "checkmate"}}));
    EXPECT_EQ(body["played"]["notation"], "Qh4#");
}

TEST(ExploreHttp, DescribesXiangqiAndDraughtsWithTheirSeats) {
    const auto start = explore_answer("variant=xiangqi");
    ASSERT_EQ(start.status, 200u) << start.body;
    EXPECT_EQ(body_of(start)["turn"], "red");
    EXPECT_EQ(body_of(start)["legal"].size(), 44u);
    const auto xiangqi = explore_answer("variant=xiangqi&move=C2.5");
    ASSERT_EQ(xiangqi.status, 200u) << xiangqi.body;
    EXPECT_EQ(body_of(xiangqi)["turn"], "black");
    EXPECT_EQ(body_of(xiangqi)["played"], (Json{{"move", "h3e3"}, {"notation", "C2.5"}}));

    const auto draughts = explore_answer("variant=draughts");
    ASSERT_EQ(draughts.status, 200u) << draughts.body;
    EXPECT_EQ(body_of(draughts)["turn"], "white");
    EXPECT_EQ(body_of(draughts)["legal"].size(), 7u);
    const auto after =
        explore_answer("variant=draughts&move=" + body_of(draughts)["legal"][0].get<std::string>());
    ASSERT_EQ(after.status, 200u) << after.body;
    EXPECT_EQ(body_of(after)["turn"], "black");
}

TEST(ExploreHttp, ABadPositionIsRefusedWithTheParsersReason) {
    const auto answer = explore_answer("variant=chess&position=rnbqkbnr%2Fpppp+w");
    EXPECT_EQ(answer.status, 400u);
    const Json body = body_of(answer);
    EXPECT_EQ(body["error"], "bad_position");
    EXPECT_FALSE(body["message"].get<std::string>().empty());
    EXPECT_EQ(body_of(explore_answer("variant=chess&position=" + std::string(300, 'p')))["error"],
              "bad_position");
}

TEST(ExploreHttp, AnIllegalMoveIsRefusedWithTheRulesReason) {
    const auto answer = explore_answer("variant=chess&move=e2e5");
    EXPECT_EQ(answer.status, 400u);
    const Json body = body_of(answer);
    EXPECT_EQ(body["error"], "illegal_move");
    // The rules' own reason, naming the move (its wording is the rules module's).
    EXPECT_TRUE(body["message"].get<std::string>().starts_with("e2e5: ")) << body;
    EXPECT_EQ(body_of(explore_answer("variant=chess&move=hello"))["error"], "illegal_move");
    EXPECT_EQ(body_of(explore_answer("variant=chess&move="))["error"], "illegal_move");
}

TEST(ExploreHttp, AMalformedQueryIsRefused) {
    for (const std::string query : {"", "variant=go", "variant=chess&colour=white",
                                    "variant=chess&variant=chess", "variant=chess&position=%zz"}) {
        const auto answer = explore_answer(query);
        EXPECT_EQ(answer.status, 400u) << query;
        EXPECT_EQ(body_of(answer)["error"], "invalid") << query;
    }
}

}  // namespace
}  // namespace arbiter::server::app
