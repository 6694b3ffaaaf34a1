// decode(): resume, watch, move, offers, claim, lobby, games and ping.

#include <gtest/gtest.h>

#include <string>

#include "decode_helpers.hpp"

namespace arbiter::protocol::test {
namespace {

TEST(ProtocolDecodeResume, GameTokenAndOptionalSince) {
    const Resume plain = accepted_body<Resume>(R"({"type":"resume","game":"g1","token":"t0k3n"})");
    EXPECT_EQ(plain.game, "g1");
    EXPECT_EQ(plain.token, "t0k3n");
    EXPECT_FALSE(plain.since.has_value());
    const std::string longest(128, 'f');
    const Resume full = accepted_body<Resume>(
        frame("resume", "\"game\":\"g1\",\"token\":\"" + longest + "\",\"since\":12"));
    EXPECT_EQ(full.token, longest);
    EXPECT_EQ(full.since, 12U);
}

TEST(ProtocolDecodeResume, BadTokenOrSinceIsRefused) {
    // No token at all is a resume by the connection's account (issue 40): accepted.
    expect_bad_request(R"({"type":"resume","game":"g1","token":""})", "\"token\"");
    expect_bad_request(
        frame("resume", "\"game\":\"g1\",\"token\":\"" + std::string(129, 'f') + "\""),
        "\"token\"");
    expect_bad_request(R"({"type":"resume","game":"g1","token":"a b"})", "\"token\"");
    expect_bad_request(R"({"type":"resume","game":"g1","token":"\u00e9"})", "\"token\"");
    expect_bad_request(R"({"type":"resume","game":"g1","token":123})", "\"token\"");
    expect_bad_request(R"({"type":"resume","game":"g1","token":"t","since":-1})", "\"since\"");
    expect_bad_request(R"({"type":"resume","game":"g1","token":"t","since":"4"})", "\"since\"");
    expect_bad_request(R"({"type":"resume","token":"t"})", "missing field \"game\"");
}

TEST(ProtocolDecodeWatch, GameAndOptionalSince) {
    EXPECT_FALSE(accepted_body<Watch>(R"({"type":"watch","game":"g1"})").since.has_value());
    EXPECT_EQ(accepted_body<Watch>(R"({"type":"watch","game":"g1","since":0})").since, 0U);
    expect_bad_request(R"({"type":"watch","game":"g1","since":1.5})", "\"since\"");
    expect_bad_request(R"({"type":"watch","game":"g1","token":"t"})", "\"token\"");
}

TEST(ProtocolDecodeMove, GameMoveAndPly) {
    const MoveRequest move =
        accepted_body<MoveRequest>(R"({"type":"move","game":"g1","move":"e7e8q","ply":0})");
    EXPECT_EQ(move.game, "g1");
    EXPECT_EQ(move.move, "e7e8q");
    EXPECT_EQ(move.ply, 0U);
    EXPECT_EQ(accepted_body<MoveRequest>(frame("move", "\"game\":\"g\",\"move\":\"" +
                                                           std::string(64, 'm') + "\",\"ply\":3"))
                  .move.size(),
              64U);
}

// protocol.md, move and Lag compensation: the optional think time the client reports.
TEST(ProtocolDecodeMove, AReportedThinkTimeIsOptional) {
    EXPECT_EQ(
        accepted_body<MoveRequest>(R"({"type":"move","game":"g1","move":"e2e4","ply":2})").think_ms,
        std::nullopt);
    EXPECT_EQ(accepted_body<MoveRequest>(
                  R"({"type":"move","game":"g1","move":"e2e4","ply":2,"think_ms":1250})")
                  .think_ms,
              1250);
    EXPECT_EQ(accepted_body<MoveRequest>(
                  R"({"type":"move","game":"g1","move":"e2e4","ply":2,"think_ms":0})")
                  .think_ms,
              0);
    EXPECT_EQ(
        accepted_body<MoveRequest>(
            R"({"type":"move","game":"g1","move":"e2e4","ply":2,"think_ms":9007199254740991})")
            .think_ms,
        9007199254740991);
    for (const char* bad : {"-1", "1.5", "null", "\"5\"", "9007199254740992"}) {
        expect_bad_request(
            std::string(R"({"type":"move","game":"g1","move":"e2e4","ply":2,"think_ms":)") + bad +
                "}",
            "\"think_ms\"");
    }
}

TEST(ProtocolDecodeMove, BadMoveOrPlyIsRefused) {
    expect_bad_request(R"({"type":"move","game":"g","move":"","ply":0})", "\"move\"");
    expect_bad_request(
        frame("move", "\"game\":\"g\",\"move\":\"" + std::string(65, 'm') + "\",\"ply\":0"),
        "\"move\"");
    expect_bad_request(R"({"type":"move","game":"g","move":"e2\u0000e4","ply":0})", "\"move\"");
    expect_bad_request(R"({"type":"move","game":"g","move":["e2e4"],"ply":0})", "\"move\"");
    expect_bad_request(R"({"type":"move","game":"g","ply":0})", "missing field \"move\"");
    expect_bad_request(R"({"type":"move","game":"g","move":"e2e4"})", "missing field \"ply\"");
}

TEST(ProtocolDecodeOffers, DrawTakebackAndRematchCarryTheirKindAndAction) {
    const std::pair<std::string_view, OfferKind> kinds[] = {{"draw", OfferKind::draw},
                                                            {"takeback", OfferKind::takeback},
                                                            {"rematch", OfferKind::rematch}};
    const std::pair<std::string_view, OfferAction> actions[] = {{"offer", OfferAction::offer},
                                                                {"accept", OfferAction::accept},
                                                                {"decline", OfferAction::decline}};
    for (const auto& [type, kind] : kinds) {
        for (const auto& [action_name, action] : actions) {
            const OfferRequest request = accepted_body<OfferRequest>(
                frame(type, "\"game\":\"g2\",\"action\":\"" + std::string(action_name) + "\""));
            EXPECT_EQ(request.game, "g2");
            EXPECT_EQ(request.kind, kind);
            EXPECT_EQ(request.action, action);
        }
    }
}

TEST(ProtocolDecodeOffers, BadOrMissingActionIsRefused) {
    for (std::string_view type : {"draw", "takeback", "rematch"}) {
        expect_bad_request(frame(type, R"("game":"g2","action":"withdraw")"), "\"action\"");
        expect_bad_request(frame(type, R"("game":"g2","action":true)"), "\"action\"");
        expect_bad_request(frame(type, R"("game":"g2")"), "missing field \"action\"");
        expect_bad_request(frame(type, R"("action":"offer")"), "missing field \"game\"");
    }
}

TEST(ProtocolDecodeClaim, WinOrDraw) {
    EXPECT_EQ(accepted_body<Claim>(R"({"type":"claim","game":"g","kind":"win"})").kind,
              ClaimKind::win);
    EXPECT_EQ(accepted_body<Claim>(R"({"type":"claim","game":"g","kind":"draw"})").kind,
              ClaimKind::draw);
    expect_bad_request(R"({"type":"claim","game":"g","kind":"loss"})", "\"kind\"");
    expect_bad_request(R"({"type":"claim","game":"g"})", "missing field \"kind\"");
}

TEST(ProtocolDecodeEmpty, LobbyAndPingTakeNoFields) {
    EXPECT_TRUE(std::holds_alternative<LobbySubscribe>(accepted(R"({"type":"lobby"})").body));
    EXPECT_TRUE(std::holds_alternative<Ping>(accepted(R"({"type":"ping","id":"x"})").body));
    expect_bad_request(R"({"type":"lobby","variant":"chess"})", "\"variant\"");
    expect_bad_request(R"({"type":"ping","game":"g"})", "\"game\"");
}

TEST(ProtocolDecodeLobby, APageIsALimitAndOrAGameToGoOnAfter) {
    const auto follow = accepted_body<LobbySubscribe>(R"({"type":"lobby"})");
    EXPECT_FALSE(follow.paged()) << "unchanged: follow the lobby";
    const auto first = accepted_body<LobbySubscribe>(R"({"type":"lobby","limit":20})");
    EXPECT_TRUE(first.paged());
    EXPECT_EQ(first.limit, 20);
    EXPECT_FALSE(first.after);
    const auto next = accepted_body<LobbySubscribe>(R"({"type":"lobby","after":"g9"})");
    EXPECT_TRUE(next.paged());
    EXPECT_FALSE(next.limit);
    EXPECT_EQ(next.after, "g9");
    EXPECT_EQ(accepted_body<LobbySubscribe>(R"({"type":"lobby","limit":200,"after":"g9"})").limit,
              200);
    expect_bad_request(R"({"type":"lobby","limit":0})", "\"limit\"");
    expect_bad_request(R"({"type":"lobby","limit":201})", "\"limit\"");
    expect_bad_request(R"({"type":"lobby","after":""})", "\"after\"");
    expect_bad_request(R"({"type":"lobby","after":7})", "\"after\"");
}

TEST(ProtocolDecodeGames, NoFieldsTakesTheDefaults) {
    const GamesQuery query = accepted_body<GamesQuery>(R"({"type":"games"})");
    EXPECT_FALSE(query.status.has_value());
    EXPECT_FALSE(query.variant.has_value());
    EXPECT_EQ(query.limit, 50);
    EXPECT_FALSE(query.before.has_value());
}

TEST(ProtocolDecodeGames, EveryFilterIsRead) {
    const GamesQuery query = accepted_body<GamesQuery>(
        R"({"type":"games","status":"ended","variant":"draughts","limit":200,"before":"g9"})");
    EXPECT_EQ(query.status, GameStatus::ended);
    EXPECT_EQ(query.variant, rules::Variant::draughts);
    EXPECT_EQ(query.limit, 200);
    EXPECT_EQ(query.before, "g9");
    for (std::string_view status : {"waiting", "playing", "ended", "aborted"}) {
        EXPECT_EQ(
            accepted_body<GamesQuery>(frame("games", "\"status\":\"" + std::string(status) + "\""))
                .status,
            parse_game_status(status));
    }
    EXPECT_EQ(accepted_body<GamesQuery>(R"({"type":"games","limit":1})").limit, 1);
}

TEST(ProtocolDecodeGames, BadFiltersAreRefused) {
    expect_bad_request(R"({"type":"games","limit":0})", "\"limit\"");
    expect_bad_request(R"({"type":"games","limit":201})", "\"limit\"");
    expect_bad_request(R"({"type":"games","limit":"10"})", "\"limit\"");
    expect_bad_request(R"({"type":"games","status":"running"})", "\"status\"");
    expect_bad_request(R"({"type":"games","variant":"shogi"})", "\"variant\"");
    expect_bad_request(R"({"type":"games","before":"not an id"})", "\"before\"");
    expect_bad_request(R"({"type":"games","offset":10})", "\"offset\"");
}

}  // namespace
}  // namespace arbiter::protocol::test
