// encode(): each server message parsed back with nlohmann, field by field.

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "common/protocol/codec.hpp"

namespace arbiter::protocol::test {
namespace {

using Json = nlohmann::json;
using rules::Side;
using rules::Variant;

Json round_trip(const ServerMessage& message) {
    const std::string text = encode(message);
    EXPECT_EQ(text.find('\n'), std::string::npos) << "not one line: " << text;
    Json json = Json::parse(text, nullptr, false);
    EXPECT_FALSE(json.is_discarded()) << text;
    EXPECT_TRUE(json.is_object()) << text;
    return json;
}

Json round_trip(ServerBody body) {
    return round_trip(ServerMessage{std::move(body), {}});
}

TEST(ProtocolEncode, WelcomeAndPong) {
    const Json welcome = round_trip(Welcome{"arbiter/0.1.0", kProtocolVersion, {}});
    EXPECT_EQ(welcome, (Json{{"type", "welcome"},
                             {"server", "arbiter/0.1.0"},
                             {"protocol", 1},
                             {"engines", Json::array()},
                             {"user", nullptr}}));
    EXPECT_EQ(
        round_trip(Welcome{"arbiter/0.1.0", kProtocolVersion, {}, SignedInUser{"Anna"}})["user"],
        (Json{{"username", "Anna"}}));
    EXPECT_EQ(round_trip(Pong{}), (Json{{"type", "pong"}}));
}

TEST(ProtocolEncode, TypeComesFirst) {
    EXPECT_EQ(encode(ServerMessage{Pong{}, "p"}), R"({"type":"pong","id":"p"})");
    EXPECT_EQ(encode(ServerMessage{SpectatorCount{"g", 2}, {}}),
              R"({"type":"spectators","game":"g","count":2,"watchers":[]})");
}

TEST(ProtocolEncode, IdIsAddedOnlyWhenSet) {
    EXPECT_EQ(round_trip(ServerMessage{Pong{}, "req-9"})["id"], "req-9");
    EXPECT_FALSE(round_trip(ServerMessage{Pong{}, std::nullopt}).contains("id"));
}

TEST(ProtocolEncode, CreatedAndJoinedNameTheSeatOfTheVariant) {
    const Json created = round_trip(SeatGranted{true, "g1", Variant::xiangqi, Side::first, "tok"});
    EXPECT_EQ(created, (Json{{"type", "created"},
                             {"game", "g1"},
                             {"seat", "red"},
                             {"token", "tok"},
                             {"variant", "xiangqi"}}));
    const Json joined = round_trip(SeatGranted{false, "g1", Variant::chess, Side::second, "t2"});
    EXPECT_EQ(joined["type"], "joined");
    EXPECT_EQ(joined["seat"], "black");
    EXPECT_EQ(round_trip(SeatGranted{false, "g", Variant::draughts, Side::first, "t"})["seat"],
              "white");
}

State sample_state() {
    State state;
    state.game = "g1";
    state.seq = 7;
    state.variant = Variant::chess;
    state.status = GameStatus::playing;
    state.you = Side::second;
    state.first = PlayerInfo{"Ana", true};
    state.second = PlayerInfo{"Bo", false};
    state.initial_position = "startpos-fen";
    state.position = "now-fen";
    state.moves = {"e2e4"};
    state.notation = {"e4"};
    state.ply = 1;
    state.turn = Side::second;
    state.legal = {"e7e5", "c7c5"};
    state.check = false;
    state.clock = ClockState{299000, 300000, true};
    state.time_control = ClockSpec{300000, 2000};
    state.offers = {OpenOffer{OfferKind::draw, Side::first}};
    state.spectators = 3;
    return state;
}

GameSummary sample_summary() {
    return GameSummary{"g5",
                       Variant::xiangqi,
                       GameStatus::waiting,
                       PlayerInfo{"Li", true},
                       std::nullopt,
                       ClockSpec{60000, 0},
                       0,
                       rules::Outcome::ongoing,
                       EndReason::none,
                       1700000000000};
}

TEST(ProtocolEncode, StateCarriesEveryField) {
    const Json state = round_trip(sample_state());
    EXPECT_EQ(state["type"], "state");
    EXPECT_EQ(state["game"], "g1");
    EXPECT_EQ(state["seq"], 7);
    EXPECT_EQ(state["variant"], "chess");
    EXPECT_EQ(state["status"], "playing");
    EXPECT_EQ(state["you"], "black");
    EXPECT_EQ(
        state["players"],
        (Json{{"white",
               {{"name", "Ana"}, {"connected", true}, {"guest", false}, {"rating", nullptr}}},
              {"black",
               {{"name", "Bo"}, {"connected", false}, {"guest", false}, {"rating", nullptr}}}}));
    EXPECT_EQ(state["initial_position"], "startpos-fen");
    EXPECT_EQ(state["position"], "now-fen");
    EXPECT_EQ(state["moves"], Json::array({"e2e4"}));
    EXPECT_EQ(state["notation"], Json::array({"e4"}));
    EXPECT_EQ(state["ply"], 1);
    EXPECT_EQ(state["turn"], "black");
    EXPECT_EQ(state["legal"], Json::array({"e7e5", "c7c5"}));
    EXPECT_EQ(state["check"], false);
    EXPECT_EQ(state["clock"],
              (Json{{"white_ms", 299000}, {"black_ms", 300000}, {"running", true}}));
    EXPECT_EQ(state["time_control"], (Json{{"initial_ms", 300000}, {"increment_ms", 2000}}));
    EXPECT_TRUE(state["result"].is_null());
    EXPECT_TRUE(state["reason"].is_null());
    EXPECT_EQ(state["offers"], Json::array({{{"kind", "draw"}, {"by", "white"}}}));
    EXPECT_EQ(state["spectators"], 3);
    EXPECT_TRUE(state["rematch"].is_null());
    EXPECT_EQ(state["rated"], false);
    EXPECT_TRUE(state["rating_range"].is_null());
    EXPECT_EQ(state["chat"], Json::array());
    EXPECT_EQ(state.size(), 25U) << state.dump();
}

TEST(ProtocolEncode, StateOfAWaitingXiangqiGameForASpectator) {
    State waiting;
    waiting.game = "x1";
    waiting.variant = Variant::xiangqi;
    waiting.status = GameStatus::waiting;
    waiting.first = PlayerInfo{"Li", true};
    const Json state = round_trip(waiting);
    EXPECT_EQ(state["you"], "spectator");
    EXPECT_EQ(state["turn"], "red");
    EXPECT_EQ(
        state["players"],
        (Json{{"red", {{"name", "Li"}, {"connected", true}, {"guest", false}, {"rating", nullptr}}},
              {"black", nullptr}}));
    EXPECT_TRUE(state["clock"].is_null());
    EXPECT_TRUE(state["time_control"].is_null());
    EXPECT_EQ(state["offers"], Json::array());
    EXPECT_EQ(state["moves"], Json::array());
}

TEST(ProtocolEncode, StateOfAnEndedGameWithARematch) {
    State ended = sample_state();
    ended.status = GameStatus::ended;
    ended.result = rules::Outcome::second_wins;
    ended.reason = EndReason::resign;
    ended.rematch = "g2";
    ended.variant = Variant::xiangqi;
    const Json state = round_trip(ended);
    EXPECT_EQ(state["result"], "0-1");
    EXPECT_EQ(state["reason"], "resign");
    EXPECT_EQ(state["rematch"], "g2");
    EXPECT_EQ(state["clock"], (Json{{"red_ms", 299000}, {"black_ms", 300000}, {"running", true}}));
    EXPECT_EQ(state["offers"][0]["by"], "red");
}

TEST(ProtocolEncode, Moved) {
    Moved moved{"g1",
                8,
                Variant::draughts,
                3,
                "22x15",
                "22x15",
                "W:W15:B1",
                Side::second,
                {"10-14"},
                false,
                ClockState{1000, 2000, false},
                {{22, 15}, {18}},
                {{{10, 14}, {}}}};
    const Json json = round_trip(moved);
    // protocol.md, Routes: a draughts move's route, and one per legal move.
    EXPECT_EQ(json,
              (Json{{"type", "moved"},
                    {"game", "g1"},
                    {"seq", 8},
                    {"ply", 3},
                    {"move", "22x15"},
                    {"notation", "22x15"},
                    {"route", {{"path", {22, 15}}, {"taken", {18}}}},
                    {"position", "W:W15:B1"},
                    {"turn", "black"},
                    {"legal", {"10-14"}},
                    {"routes", Json::array({{{"path", {10, 14}}, {"taken", Json::array()}}})},
                    {"check", false},
                    {"clock", {{"white_ms", 1000}, {"black_ms", 2000}, {"running", false}}}}));
    moved.clock.reset();
    EXPECT_TRUE(round_trip(moved)["clock"].is_null());
}

TEST(ProtocolEncode, OnlyDraughtsEventsCarryRoutes) {
    Moved moved{"g1", 8, Variant::chess, 3, "e2e4", "e4", "fen", Side::second, {"e7e5"}, false, {}};
    const Json chess = round_trip(moved);
    EXPECT_FALSE(chess.contains("route"));
    EXPECT_FALSE(chess.contains("routes"));
    moved.variant = Variant::draughts;
    const Json draughts = round_trip(moved);
    EXPECT_EQ(draughts["routes"], Json::array());
    EXPECT_FALSE(draughts.contains("route")) << "no route is known for this move";
    State state = sample_state();
    EXPECT_FALSE(round_trip(state).contains("routes"));
    state.variant = Variant::draughts;
    state.legal = {"7x23"};
    state.routes = {{{7, 14, 23}, {10, 18}}};
    EXPECT_EQ(round_trip(state)["routes"], Json::parse(R"([{"path":[7,14,23],"taken":[10,18]}])"));
    const Json takeback = round_trip(TakenBack{"g1",
                                               11,
                                               Variant::draughts,
                                               2,
                                               "fen",
                                               Side::first,
                                               {"7x23"},
                                               false,
                                               {},
                                               {{{7, 14, 23}, {10, 18}}}});
    EXPECT_EQ(takeback["routes"], Json::parse(R"([{"path":[7,14,23],"taken":[10,18]}])"));
}

// Every message is written straight into its text, not through a Json tree: the text must be
// exactly what a tree of the same fields dumps (no spaces, escapes as nlohmann writes them), with
// the fields in the documented order.
std::vector<ServerMessage> one_of_each_message() {
    State ended = sample_state();
    ended.status = GameStatus::ended;
    ended.you.reset();
    ended.second = PlayerInfo{"Bo \xE7\x8E\x8B", false, true};
    ended.clock.reset();
    ended.time_control.reset();
    ended.result = rules::Outcome::draw;
    ended.reason = EndReason::agreement;
    ended.offers.clear();
    ended.rematch = "g2";
    Record record{"g1",
                  Variant::draughts,
                  GameStatus::ended,
                  PlayerInfo{"Ana", false},
                  std::nullopt,
                  std::nullopt,
                  "W:W31:B1",
                  {},
                  rules::Outcome::ongoing,
                  EndReason::none,
                  -1700000000000};
    record.moves = {RecordMove{1, "31-27", "31-27", "W:W27:B1", 299000, 1000},
                    RecordMove{2, "1-5", "1-5", "B:W27:B5", std::nullopt, std::nullopt}};
    const Moved moved{"g1", 8,    Variant::xiangqi,        3, "h2e2", "C2.5", "fen", Side::second,
                      {},   true, ClockState{-5, 0, false}};
    return {
        {Welcome{"arbiter/0.1.0",
                 kProtocolVersion,
                 {EngineInfo{"builtin", {Variant::chess, Variant::draughts}}, EngineInfo{"x", {}}}},
         std::nullopt},
        {SeatGranted{true, "g1", Variant::xiangqi, Side::first, "tok"}, "c1"},
        {sample_state(), "j1"},
        {ended, std::nullopt},
        {moved, "m1"},
        {Ended{"g1", 9, rules::Outcome::ongoing, EndReason::aborted, GameStatus::aborted},
         std::nullopt},
        {OfferEvent{"g1", 10, Variant::chess, OfferKind::takeback, OfferAction::decline,
                    Side::second},
         std::nullopt},
        {TakenBack{"g1",
                   11,
                   Variant::chess,
                   0,
                   "fen",
                   Side::first,
                   {"e2e4"},
                   false,
                   ClockState{1, 2, true}},
         std::nullopt},
        {Presence{"g1", 12, Variant::draughts, Side::second, false, 30000}, std::nullopt},
        {Presence{"g1", 13, Variant::chess, Side::first, true, std::nullopt}, std::nullopt},
        {RematchEvent{"g1", 14, "g2"}, std::nullopt},
        {SpectatorCount{"g1", 0}, std::nullopt},
        {LobbyList{{sample_summary(), sample_summary()}}, "l1"},
        {GamesList{}, std::nullopt},
        {record, "r1"},
        {ErrorMessage{ErrorCode::illegal_move, "e2e5: no piece \"there\"\n"}, "m2"},
        {Pong{}, "p"},
        {SeatLost{"g1", Variant::chess, Side::second, SeatLossReason::resumed_elsewhere,
                  std::nullopt, false},
         std::nullopt},
        {ChatEvent{"g1", 15, ChatRoom::players, "Ana", "gl", 1700000000000}, "t1"},
        {ChatMuted{"g1", true}, std::nullopt},
        {AnalysisProgress{"g1", AnalysisStatus::running, 3, 8}, std::nullopt},
    };
}

// The names of an object's members, in their order in the text.
std::vector<std::string> member_names(const nlohmann::ordered_json& object) {
    std::vector<std::string> names;
    for (const auto& [name, value] : object.items()) {
        names.push_back(name);
    }
    return names;
}

TEST(ProtocolEncode, EveryMessageIsTheCanonicalDumpInTheDocumentedOrder) {
    using Ordered = nlohmann::ordered_json;
    using Names = std::vector<std::string>;
    const std::map<std::string, Names> documented = {
        {"welcome", {"type", "server", "protocol", "engines", "user"}},
        {"created", {"type", "game", "seat", "token", "variant", "id"}},
        {"state", {"type",         "game",    "seq",      "variant",
                   "status",       "you",     "players",  "initial_position",
                   "position",     "moves",   "notation", "ply",
                   "turn",         "legal",   "check",    "clock",
                   "time_control", "result",  "reason",   "offers",
                   "spectators",   "rematch", "rated",    "rating_range",
                   "chat"}},
        {"moved",
         {"type", "game", "seq", "ply", "move", "notation", "position", "turn", "legal", "check",
          "clock", "id"}},
        {"ended", {"type", "game", "seq", "result", "reason", "status", "ratings"}},
        {"offer", {"type", "game", "seq", "kind", "action", "by"}},
        {"takeback", {"type", "game", "seq", "ply", "position", "turn", "legal", "check", "clock"}},
        {"presence", {"type", "game", "seq", "seat", "connected", "claim_after_ms"}},
        {"rematch", {"type", "game", "seq", "next"}},
        {"spectators", {"type", "game", "count", "watchers"}},
        {"seat_lost", {"type", "game", "seat", "reason", "you"}},
        {"lobby", {"type", "games", "id"}},
        {"games", {"type", "games"}},
        {"record",
         {"type", "game", "variant", "status", "players", "time_control", "initial_position",
          "initial_check", "moves", "result", "reason", "created_ms", "rated", "rating_range",
          "ratings", "chat", "id"}},
        {"chat", {"type", "game", "seq", "room", "from", "text", "at_ms", "id"}},
        {"chat_muted", {"type", "game", "mute"}},
        {"analysis", {"type", "game", "status", "done", "total"}},
        {"error", {"type", "code", "message", "id"}},
        {"pong", {"type", "id"}},
    };
    std::set<std::size_t> kinds;
    for (const ServerMessage& message : one_of_each_message()) {
        kinds.insert(message.body.index());
        const std::string text = encode(message);
        const Ordered parsed = Ordered::parse(text, nullptr, false);
        ASSERT_FALSE(parsed.is_discarded()) << text;
        EXPECT_EQ(parsed.dump(-1, ' ', false, Ordered::error_handler_t::strict), text);
        Names expected = documented.at(parsed["type"]);
        if (parsed["type"] == "state" && message.id) {
            expected.push_back("id");
        }
        EXPECT_EQ(member_names(parsed), expected) << text;
    }
    EXPECT_EQ(kinds.size(), std::variant_size_v<ServerBody>);

    const Ordered state = Ordered::parse(encode(one_of_each_message()[3]));
    EXPECT_EQ(member_names(state["players"]), (Names{"white", "black"}));
    EXPECT_EQ(member_names(state["players"]["black"]),
              (Names{"name", "connected", "engine", "guest", "rating"}));
    const Ordered record = Ordered::parse(encode(one_of_each_message()[14]));
    EXPECT_EQ(member_names(record["moves"][0]),
              (Names{"ply", "move", "notation", "position", "clock_ms", "think_ms", "check"}));
    const Ordered lobby = Ordered::parse(encode(one_of_each_message()[12]));
    EXPECT_EQ(member_names(lobby["games"][1]),
              (Names{"game", "variant", "status", "players", "time_control", "ply", "result",
                     "reason", "created_ms", "rated", "rating_range"}));
    EXPECT_EQ(member_names(lobby["games"][1]["time_control"]),
              (Names{"initial_ms", "increment_ms"}));
}

TEST(ProtocolEncode, NumbersKeepTheirWholeRange) {
    using Ordered = nlohmann::ordered_json;
    const std::optional<ClockState> clocks[] = {std::nullopt, ClockState{0, -5, true},
                                                ClockState{9007199254740993, 299000, false}};
    for (const Variant variant : {Variant::chess, Variant::xiangqi, Variant::draughts}) {
        for (const auto& clock : clocks) {
            const Moved moved{
                "Xq7Rk2LmP9", 18446744073709551615ULL, variant,      4294967295U,       "e2e4",
                "e4",         "8/8/8 w - - 0 1",       Side::second, {"e2e4", "10-14"}, true,
                clock};
            const std::string text = encode(ServerMessage{moved, std::nullopt});
            const Ordered parsed = Ordered::parse(text, nullptr, false);
            ASSERT_FALSE(parsed.is_discarded()) << text;
            EXPECT_EQ(parsed.dump(), text);
            EXPECT_EQ(parsed["seq"], 18446744073709551615ULL);
            EXPECT_EQ(parsed["ply"], 4294967295U);
            EXPECT_EQ(parsed["turn"], rules::seat_name(variant, Side::second));
            if (clock) {
                const std::string second(rules::seat_name(variant, Side::second));
                EXPECT_EQ(parsed["clock"][second + "_ms"], clock->second_ms);
                EXPECT_EQ(parsed["clock"]["running"], clock->running);
            } else {
                EXPECT_TRUE(parsed["clock"].is_null());
            }
        }
    }
    const Json presence =
        round_trip(Presence{"g", 1, Variant::chess, Side::first, false, INT64_MIN});
    EXPECT_EQ(presence["claim_after_ms"], INT64_MIN);
}

TEST(ProtocolEncode, TextToEscapeIsStillValidJson) {
    for (const std::string& odd :
         {std::string("a\"b"), std::string("back\\slash"), std::string("tab\there"),
          std::string("\xE5\x85\xB5\xE4\xB8\x83"),
          std::string("bad\xFF"
                      "byte"),
          std::string("del\x7F")}) {
        const std::string expected = odd == "bad\xFF"
                                            "byte"
                                         ? "bad\xEF\xBF\xBD"
                                           "byte"
                                         : odd;
        Moved moved{"g1",  2,     Variant::xiangqi, 1, "h2e2", odd, "pos", Side::second,
                    {odd}, false, std::nullopt};
        const Json parsed = round_trip(ServerMessage{moved, odd});
        EXPECT_EQ(parsed["notation"], expected);
        EXPECT_EQ(parsed["legal"][0], expected);
        EXPECT_EQ(parsed["id"], expected);

        State state = sample_state();
        state.first->name = odd;
        state.moves = {odd, "e7e5"};
        const Json state_json = round_trip(state);
        EXPECT_EQ(state_json["players"]["white"]["name"], expected);
        EXPECT_EQ(state_json["moves"], Json::array({expected, "e7e5"}));

        Record record;
        record.game = odd;
        record.moves = {RecordMove{1, "e2e4", odd, "fen", std::nullopt, 0}};
        const Json record_json = round_trip(record);
        EXPECT_EQ(record_json["game"], expected);
        EXPECT_EQ(record_json["moves"][0]["notation"], expected);
    }
}

TEST(ProtocolEncode, EndedWritesNullForTheResultOfAnAbortedGame) {
    EXPECT_EQ(
        round_trip(Ended{"g1", 9, rules::Outcome::draw, EndReason::agreement, GameStatus::ended}),
        (Json{{"type", "ended"},
              {"game", "g1"},
              {"seq", 9},
              {"result", "1/2-1/2"},
              {"reason", "agreement"},
              {"status", "ended"},
              {"ratings", nullptr}}));
    const Json aborted = round_trip(
        Ended{"g1", 2, rules::Outcome::ongoing, EndReason::aborted, GameStatus::aborted});
    EXPECT_TRUE(aborted["result"].is_null());
    EXPECT_EQ(aborted["status"], "aborted");
}

TEST(ProtocolEncode, OfferNamesKindActionAndSeat) {
    const Json offer = round_trip(OfferEvent{"g1", 10, Variant::xiangqi, OfferKind::takeback,
                                             OfferAction::decline, Side::first});
    EXPECT_EQ(offer, (Json{{"type", "offer"},
                           {"game", "g1"},
                           {"seq", 10},
                           {"kind", "takeback"},
                           {"action", "decline"},
                           {"by", "red"}}));
}

TEST(ProtocolEncode, TakenBack) {
    const Json json = round_trip(TakenBack{
        "g1", 11, Variant::chess, 2, "fen", Side::first, {"e2e4"}, true, ClockState{5, 6, true}});
    EXPECT_EQ(json["type"], "takeback");
    EXPECT_EQ(json["seq"], 11);
    EXPECT_EQ(json["ply"], 2);
    EXPECT_EQ(json["position"], "fen");
    EXPECT_EQ(json["turn"], "white");
    EXPECT_EQ(json["legal"], Json::array({"e2e4"}));
    EXPECT_EQ(json["check"], true);
    EXPECT_EQ(json["clock"]["white_ms"], 5);
    EXPECT_EQ(json.size(), 9U);
}

TEST(ProtocolEncode, PresenceWithAndWithoutClaimDelay) {
    const Json gone = round_trip(Presence{"g1", 12, Variant::xiangqi, Side::second, false, 60000});
    EXPECT_EQ(gone, (Json{{"type", "presence"},
                          {"game", "g1"},
                          {"seq", 12},
                          {"seat", "black"},
                          {"connected", false},
                          {"claim_after_ms", 60000}}));
    const Json back = round_trip(Presence{"g1", 13, Variant::xiangqi, Side::first, true, {}});
    EXPECT_EQ(back["seat"], "red");
    EXPECT_TRUE(back["claim_after_ms"].is_null());
}

TEST(ProtocolEncode, RematchAndSpectators) {
    EXPECT_EQ(round_trip(RematchEvent{"g1", 14, "g2"}),
              (Json{{"type", "rematch"}, {"game", "g1"}, {"seq", 14}, {"next", "g2"}}));
    EXPECT_EQ(
        round_trip(SpectatorCount{"g1", 4}),
        (Json{{"type", "spectators"}, {"game", "g1"}, {"count", 4}, {"watchers", Json::array()}}));
    EXPECT_EQ(round_trip(SpectatorCount{"g1", 2, {{"Ann", false}, {"Guest1234", true}}}),
              (Json{{"type", "spectators"},
                    {"game", "g1"},
                    {"count", 2},
                    {"watchers", Json::array({Json{{"name", "Ann"}, {"guest", false}},
                                              Json{{"name", "Guest1234"}, {"guest", true}}})}}));
}

TEST(ProtocolEncode, SeatLostSaysWhatTheConnectionStillIs) {
    const Json gone = round_trip(SeatLost{"g1", Variant::xiangqi, Side::first,
                                          SeatLossReason::resumed_elsewhere, std::nullopt, false});
    EXPECT_EQ(gone, (Json{{"type", "seat_lost"},
                          {"game", "g1"},
                          {"seat", "red"},
                          {"reason", "resumed_elsewhere"},
                          {"you", nullptr}}));
    const Json other_seat =
        round_trip(SeatLost{"g1", Variant::xiangqi, Side::first, SeatLossReason::resumed_elsewhere,
                            Side::second, true});
    EXPECT_EQ(other_seat["you"], "black");
    const Json watching = round_trip(SeatLost{
        "g1", Variant::draughts, Side::second, SeatLossReason::resumed_elsewhere, {}, true});
    EXPECT_EQ(watching["seat"], "black");
    EXPECT_EQ(watching["you"], "spectator");
    // Not a game event: no seq that a client could take for a gap or a duplicate.
    EXPECT_FALSE(watching.contains("seq"));
}

TEST(ProtocolEncode, LobbyAndGamesListSummaries) {
    const Json expected_summary = {
        {"game", "g5"},
        {"variant", "xiangqi"},
        {"status", "waiting"},
        {"players",
         {{"red", {{"name", "Li"}, {"connected", true}, {"guest", false}, {"rating", nullptr}}},
          {"black", nullptr}}},
        {"time_control", {{"initial_ms", 60000}, {"increment_ms", 0}}},
        {"ply", 0},
        {"result", nullptr},
        {"reason", nullptr},
        {"created_ms", 1700000000000},
        {"rated", false},
        {"rating_range", nullptr}};
    const Json lobby = round_trip(LobbyList{{sample_summary()}});
    EXPECT_EQ(lobby["type"], "lobby");
    EXPECT_EQ(lobby["games"], Json::array({expected_summary}));
    EXPECT_FALSE(lobby.contains("next"));
    EXPECT_EQ(round_trip(LobbyList{{sample_summary()}, "g5"})["next"], "g5");
    const Json games = round_trip(GamesList{});
    EXPECT_EQ(games, (Json{{"type", "games"}, {"games", Json::array()}}));
}

TEST(ProtocolEncode, RecordListsEveryMove) {
    Record record{"g1",
                  Variant::chess,
                  GameStatus::ended,
                  PlayerInfo{"Ana", false},
                  PlayerInfo{"Bo", true},
                  std::nullopt,
                  "start",
                  {},
                  rules::Outcome::first_wins,
                  EndReason::checkmate,
                  1700000000000};
    record.moves = {RecordMove{1, "e2e4", "e4", "fen1", 299000, 1000},
                    RecordMove{2, "e7e5", "e5", "fen2", std::nullopt, std::nullopt, true}};
    record.initial_check = true;
    const Json json = round_trip(record);
    EXPECT_EQ(json["type"], "record");
    EXPECT_EQ(json["variant"], "chess");
    EXPECT_EQ(json["status"], "ended");
    EXPECT_EQ(json["players"]["black"]["name"], "Bo");
    EXPECT_TRUE(json["time_control"].is_null());
    EXPECT_EQ(json["initial_position"], "start");
    EXPECT_EQ(json["initial_check"], true);
    EXPECT_EQ(json["moves"][0], (Json{{"ply", 1},
                                      {"move", "e2e4"},
                                      {"notation", "e4"},
                                      {"position", "fen1"},
                                      {"clock_ms", 299000},
                                      {"think_ms", 1000},
                                      {"check", false}}));
    EXPECT_EQ(json["moves"][1]["check"], true);
    EXPECT_TRUE(json["moves"][1]["clock_ms"].is_null());
    EXPECT_TRUE(json["moves"][1]["think_ms"].is_null());
    EXPECT_EQ(json["result"], "1-0");
    EXPECT_EQ(json["reason"], "checkmate");
    EXPECT_EQ(json["created_ms"], 1700000000000);
}

// protocol.md, Chat: a member who may not read the room gets the event with "text": null; the
// text is a JSON string whatever it holds (markup is escaped by JSON, not interpreted).
TEST(ProtocolEncode, ChatEventWithTextOrNull) {
    EXPECT_EQ(encode(ServerMessage{ChatEvent{"g1", 7, ChatRoom::spectators, "Cy",
                                             "<script>\"x\"</script>", 1700000000000},
                                   "t1"}),
              R"({"type":"chat","game":"g1","seq":7,"room":"spectators","from":"Cy",)"
              R"("text":"<script>\"x\"</script>","at_ms":1700000000000,"id":"t1"})");
    EXPECT_EQ(encode(ServerMessage{ChatEvent{"g1", 8, ChatRoom::players, "Ana", std::nullopt, 1},
                                   std::nullopt}),
              R"({"type":"chat","game":"g1","seq":8,"room":"players","from":"Ana","text":null,)"
              R"("at_ms":1})");
}

TEST(ProtocolEncode, ErrorWithAndWithoutId) {
    EXPECT_EQ(
        round_trip(ServerMessage{ErrorMessage{ErrorCode::stale_ply, "ply is 4"}, "m1"}),
        (Json{{"type", "error"}, {"code", "stale_ply"}, {"message", "ply is 4"}, {"id", "m1"}}));
    EXPECT_EQ(Json::parse(encode_error(ErrorCode::not_your_turn, "wait", std::nullopt)),
              (Json{{"type", "error"}, {"code", "not_your_turn"}, {"message", "wait"}}));
    EXPECT_EQ(Json::parse(encode_error(ErrorCode::bad_json, "x", "r"))["id"], "r");
}

TEST(ProtocolEncode, InvalidUtf8IsReplacedNotThrown) {
    State state = sample_state();
    state.first = PlayerInfo{"bad\xFF\xC3", true};
    const Json json = round_trip(state);
    EXPECT_EQ(json["players"]["white"]["name"], "bad\xEF\xBF\xBD\xEF\xBF\xBD");
    EXPECT_NO_THROW(encode_error(ErrorCode::internal, "\x80", std::string("\xFE")));
}

TEST(ProtocolEncode, ControlCharactersAreEscaped) {
    const std::string text = encode_error(ErrorCode::illegal_move, "line1\nline2\t\x01", {});
    EXPECT_EQ(text.find('\n'), std::string::npos);
    EXPECT_EQ(Json::parse(text)["message"], "line1\nline2\t\x01");
}

TEST(ProtocolNames, ErrorCodesAreDistinctSnakeCase) {
    std::set<std::string_view> names;
    for (int code = 0; code <= static_cast<int>(ErrorCode::internal); ++code) {
        const std::string_view name = to_string(static_cast<ErrorCode>(code));
        EXPECT_FALSE(name.empty());
        EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_"), std::string_view::npos);
        names.insert(name);
    }
    EXPECT_EQ(names.size(), static_cast<std::size_t>(ErrorCode::internal) + 1);
    EXPECT_EQ(to_string(ErrorCode::not_your_turn), "not_your_turn");
    EXPECT_EQ(to_string(ErrorCode::too_large), "too_large");
}

TEST(ProtocolNames, OfferKindsAndActions) {
    EXPECT_EQ(to_string(OfferKind::draw), "draw");
    EXPECT_EQ(to_string(OfferKind::takeback), "takeback");
    EXPECT_EQ(to_string(OfferKind::rematch), "rematch");
    EXPECT_EQ(to_string(OfferAction::offer), "offer");
    EXPECT_EQ(to_string(OfferAction::accept), "accept");
    EXPECT_EQ(to_string(OfferAction::decline), "decline");
}

}  // namespace
}  // namespace arbiter::protocol::test
