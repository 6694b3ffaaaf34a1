// Samples of every protocol message, shared by protocol_samples (the schema check) and the
// codec's tests.

#include "tests/unit/protocol/samples.hpp"

namespace arbiter::protocol::samples {

namespace {

using rules::Side;
using rules::Variant;

using arbiter::rules::Side;
using arbiter::rules::Variant;

constexpr Variant kVariants[] = {Variant::chess, Variant::xiangqi, Variant::draughts};

State state_of(Variant variant, std::optional<Side> you, bool ended) {
    State state;
    state.game = "g" + std::string(arbiter::rules::to_string(variant));
    state.seq = ended ? 42 : 3;
    state.variant = variant;
    state.status = ended ? GameStatus::ended : GameStatus::playing;
    state.you = you;
    state.first = PlayerInfo{"Ana", true};
    state.second = ended ? std::optional<PlayerInfo>{} : PlayerInfo{"Bo \xE7\x8E\x8B", false};
    state.initial_position = "start";
    state.position = "now";
    state.moves = {"a1a2", "b1b2"};
    state.notation = {"A2", "B2"};
    state.ply = 2;
    state.turn = Side::first;
    state.legal = ended ? std::vector<std::string>{} : std::vector<std::string>{"c1c2"};
    state.check = !ended;
    if (!ended) {
        state.clock = ClockState{295000, 300000, true};
        state.time_control = ClockSpec{300000, 5000};
        state.offers = {OpenOffer{OfferKind::draw, Side::second}};
    } else {
        state.result = arbiter::rules::Outcome::second_wins;
        state.reason = EndReason::timeout;
        state.rematch = "g-next";
    }
    state.spectators = 2;
    return state;
}

GameSummary summary_of(Variant variant) {
    return GameSummary{"s1",
                       variant,
                       GameStatus::waiting,
                       PlayerInfo{"Ana", true},
                       std::nullopt,
                       ClockSpec{60000, 0},
                       0,
                       arbiter::rules::Outcome::ongoing,
                       EndReason::none,
                       1700000000000};
}

}  // namespace

std::vector<ServerMessage> server_messages() {
    std::vector<ServerMessage> out;
    out.push_back({Welcome{"arbiter/0.1.0", kProtocolVersion, {}}, "h1"});
    out.push_back(
        {Welcome{"arbiter/0.1.0",
                 kProtocolVersion,
                 {EngineInfo{"builtin", {Variant::chess, Variant::xiangqi, Variant::draughts}},
                  EngineInfo{"fairy-stockfish", {Variant::xiangqi}}},
                 SignedInUser{"Anna_B"}},
         {}});
    out.push_back({Pong{}, "p1"});
    out.push_back({Pong{}, std::nullopt});
    out.push_back({ErrorMessage{ErrorCode::illegal_move, "e2e5: a pawn cannot move there"}, "m1"});
    out.push_back({ErrorMessage{ErrorCode::bad_json, "the frame is not valid JSON"}, {}});
    out.push_back(
        {ErrorMessage{ErrorCode::unauthorized, "the session has ended: sign in again"}, "h2"});
    out.push_back(
        {ErrorMessage{ErrorCode::name_taken, "that name belongs to a registered player"}, "h3"});
    for (Variant variant : kVariants) {
        for (Side side : {Side::first, Side::second}) {
            out.push_back({SeatGranted{true, "g1", variant, side, "0123456789abcdef"}, "c1"});
            out.push_back({SeatGranted{false, "g1", variant, side, "fedcba9876543210"}, {}});
            out.push_back({State{state_of(variant, side, false)}, {}});
            out.push_back({Presence{"g1", 5, variant, side, false, 60000}, {}});
            out.push_back({Presence{"g1", 6, variant, side, true, std::nullopt}, {}});
            out.push_back({SeatLost{"g1", variant, side, SeatLossReason::resumed_elsewhere,
                                    std::nullopt, false},
                           {}});
            out.push_back({SeatLost{"g1", variant, side, SeatLossReason::resumed_elsewhere,
                                    arbiter::rules::opponent(side), false},
                           {}});
            out.push_back({SeatLost{"g1", variant, side, SeatLossReason::resumed_elsewhere,
                                    std::nullopt, true},
                           {}});
            out.push_back(
                {OfferEvent{"g1", 7, variant, OfferKind::takeback, OfferAction::offer, side}, {}});
            out.push_back({Moved{"g1",
                                 8,
                                 variant,
                                 3,
                                 "a1a2",
                                 "A2",
                                 "now",
                                 side,
                                 {"b1b2"},
                                 false,
                                 ClockState{1000, 2000, true}},
                           {}});
            out.push_back({TakenBack{"g1",
                                     9,
                                     variant,
                                     1,
                                     "now",
                                     side,
                                     {"a1a2"},
                                     true,
                                     ClockState{1000, 2000, false}},
                           {}});
        }
        out.push_back({State{state_of(variant, std::nullopt, true)}, "w1"});
        out.push_back(
            {Moved{"g1", 10, variant, 4, "a1a2", "A2", "now", Side::first, {}, true, {}}, {}});
        if (variant == Variant::draughts) {
            // protocol.md, Routes: the played move's route, and one per legal move.
            const arbiter::rules::MoveRoute jump{{7, 14, 23}, {10, 18}};
            const arbiter::rules::MoveRoute step{{26, 22}, {}};
            out.push_back({Moved{"g1",
                                 11,
                                 variant,
                                 5,
                                 "7x23",
                                 "7x23",
                                 "now",
                                 Side::first,
                                 {"26-22", "7x23"},
                                 false,
                                 std::nullopt,
                                 jump,
                                 {step, jump}},
                           {}});
            out.push_back({TakenBack{"g1",
                                     12,
                                     variant,
                                     4,
                                     "now",
                                     Side::second,
                                     {"7x23"},
                                     false,
                                     std::nullopt,
                                     {jump}},
                           {}});
            State state = state_of(variant, Side::first, false);
            state.legal = {"26-22", "7x23"};
            state.routes = {step, jump};
            out.push_back({std::move(state), {}});
        }
        out.push_back({LobbyList{{summary_of(variant)}}, {}});
        Record record{"g1",
                      variant,
                      GameStatus::ended,
                      PlayerInfo{"Ana", false},
                      PlayerInfo{"Bo", true},
                      ClockSpec{60000, 1000},
                      "start",
                      {},
                      arbiter::rules::Outcome::first_wins,
                      EndReason::resign,
                      1700000000000};
        record.moves = {RecordMove{1, "a1a2", "A2", "p1", 59000, 2000},
                        RecordMove{2, "b1b2", "B2", "p2", std::nullopt, std::nullopt},
                        RecordMove{3, "a2a3", "A3", "p3", 58000, 1200, false, 180}};
        out.push_back({record, "r1"});
    }
    out.push_back({OfferEvent{"g1", 11, Variant::chess, OfferKind::rematch, OfferAction::decline,
                              Side::second},
                   {}});
    out.push_back(
        {Ended{"g1", 12, arbiter::rules::Outcome::draw, EndReason::agreement, GameStatus::ended},
         {}});
    out.push_back(
        {Ended{"g1", 2, arbiter::rules::Outcome::ongoing, EndReason::aborted, GameStatus::aborted},
         {}});
    out.push_back({Ended{"g1", 14, arbiter::rules::Outcome::first_wins, EndReason::engine_failure,
                         GameStatus::ended},
                   {}});
    out.push_back({Ended{"g1", 1, arbiter::rules::Outcome::ongoing, EndReason::engine_failure,
                         GameStatus::aborted},
                   {}});
    State against_engine = state_of(Variant::draughts, Side::first, false);
    against_engine.second = PlayerInfo{"Arbiter builtin (level 8)", true, true};
    out.push_back({against_engine, {}});
    // Rated games (issue 40): ratings by seat, a guest, a seek's range, the changes at the end.
    for (const Variant variant : kVariants) {
        State rated = state_of(variant, Side::second, false);
        rated.first = PlayerInfo{"ann", true, false, std::nullopt, false, PlayerRating{1512, true}};
        rated.second = PlayerInfo{"bob", true, false, 0, false, PlayerRating{1388, false}};
        rated.rated = true;
        rated.rating_range = RatingRange{1200, std::nullopt};
        out.push_back({rated, {}});
        const EndRatings changes{RatingChange{1512, 1530, 18, true},
                                 RatingChange{1388, 1370, -18, false}};
        out.push_back({Ended{"g1", 15, arbiter::rules::Outcome::first_wins, EndReason::resign,
                             GameStatus::ended, changes, variant},
                       "e1"});
        GameSummary seek = summary_of(variant);
        seek.first->rating = PlayerRating{1500, true};
        seek.rated = true;
        seek.rating_range = RatingRange{std::nullopt, 1800};
        Record record{"g1",        variant,      GameStatus::ended,
                      rated.first, rated.second, ClockSpec{180000, 2000}};
        record.rated = true;
        record.ratings = changes;
        out.push_back({GamesList{{seek}}, {}});
        out.push_back({record, {}});
    }
    State guest = state_of(Variant::chess, Side::first, false);
    guest.first->guest = true;
    out.push_back({guest, {}});
    out.push_back({RematchEvent{"g1", 13, "g2"}, {}});
    // Chat: a message as its readers get it, as others get it, and as states and records list it.
    out.push_back(
        {ChatEvent{"g1", 16, ChatRoom::players, "Ana", "good luck \xE7\x8E\x8B", 1700000000123},
         "t1"});
    out.push_back(
        {ChatEvent{"g1", 17, ChatRoom::spectators, "Bo", std::nullopt, 1700000000456}, {}});
    out.push_back({ChatMuted{"g1", true}, "u1"});
    out.push_back({ChatMuted{"g1", false}, {}});
    State chatty = state_of(Variant::xiangqi, Side::second, false);
    chatty.chat = {ChatLine{2, ChatRoom::players, "Ana", "hi", 1700000000000},
                   ChatLine{3, ChatRoom::spectators, "Cy", "<b>nice</b>", 1700000000100}};
    out.push_back({chatty, {}});
    Record chat_record;
    chat_record.game = "g1";
    chat_record.status = GameStatus::ended;
    chat_record.chat = {ChatLine{5, ChatRoom::spectators, "Cy", "gg", 1700000000200}};
    out.push_back({chat_record, "r2"});
    out.push_back({SpectatorCount{"g1", 0}, {}});
    out.push_back({SpectatorCount{"g1", 60, {{"Ann", false}, {"Guest1234", true}}}, {}});
    out.push_back({LobbyList{}, {}});
    out.push_back({LobbyList{{summary_of(Variant::chess)}, "g1"}, "l1"});
    out.push_back({GamesList{{summary_of(Variant::chess), summary_of(Variant::xiangqi)}}, "q1"});
    // Analysis progress, pushed to the replay's requester: from queued to each end.
    for (const auto status : {AnalysisStatus::queued, AnalysisStatus::running, AnalysisStatus::done,
                              AnalysisStatus::failed}) {
        out.push_back({AnalysisProgress{"g7Kq2", status, 3, 8}, {}});
    }
    out.push_back({AnalysisProgress{"g1", AnalysisStatus::done, 1, 1}, "a1"});
    return out;
}

const std::vector<std::string_view>& client_frames() {
    static const std::vector<std::string_view> frames = {
        R"({"type":"hello","name":"Ana","id":"1"})",
        R"({"type":"create","variant":"chess"})",
        R"({"type":"create","variant":"xiangqi","side":"first","clock":{"initial_ms":300000,"increment_ms":2000},"private":true,"position":"startpos","id":"c"})",
        R"({"type":"create","variant":"draughts","side":"random","clock":null})",
        R"({"type":"create","variant":"chess","side":"first","opponent":{"engine":"stockfish","level":8}})",
        R"({"type":"join","game":"g1"})",
        R"({"type":"resume","game":"g1","token":"0123456789abcdef","since":4})",
        R"({"type":"watch","game":"g1"})",
        R"({"type":"watch","game":"g1","since":0})",
        R"({"type":"unwatch","game":"g1"})",
        R"({"type":"move","game":"g1","move":"e2e4","ply":0,"id":"m1"})",
        R"({"type":"move","game":"g1","move":"e2e4","ply":2,"think_ms":1250})",
        R"({"type":"resign","game":"g1"})",
        R"({"type":"draw","game":"g1","action":"offer"})",
        R"({"type":"takeback","game":"g1","action":"accept"})",
        R"({"type":"rematch","game":"g1","action":"decline"})",
        R"({"type":"abort","game":"g1"})",
        R"({"type":"claim","game":"g1","kind":"win"})",
        R"({"type":"lobby"})",
        R"({"type":"games"})",
        R"({"type":"games","status":"ended","variant":"xiangqi","limit":200,"before":"g0"})",
        R"({"type":"replay","game":"g1"})",
        R"({"type":"ping","id":"p"})",
        R"({"type":"chat","game":"g1","room":"players","text":"good luck","id":"t"})",
        R"({"type":"chat","game":"g1","room":"spectators","text":"  <script>x</script>  "})",
        R"({"type":"chat_mute","game":"g1","mute":false,"id":"u"})",
        R"({"type":"chat_mute","game":"g1"})",
    };
    return frames;
}

const std::vector<std::string_view>& invalid_client_frames() {
    // Refusals that JSON Schema can express too; 1.0-versus-1, which JSON.parse cannot tell,
    // through validate.mjs, which reads client messages as the server does.
    static const std::vector<std::string_view> frames = {
        R"([])",
        R"({})",
        R"({"type":"fly"})",
        R"({"type":7})",
        R"({"type":"ping","id":5})",
        R"({"type":"ping","id":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"})",
        R"({"type":"ping","extra":true})",
        R"({"type":"hello"})",
        R"({"type":"hello","name":""})",
        R"({"type":"hello","name":"nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"})",
        R"({"type":"hello","name":"a\nb"})",
        R"({"type":"hello","name":"c1\u0085"})",
        R"({"type":"hello","name":"   "})",
        R"({"type":"hello","name":"An\u200ba"})",
        R"({"type":"hello","name":"\u202eanA"})",
        R"({"type":"create","variant":"go"})",
        R"({"type":"create","variant":"chess","side":"white"})",
        R"({"type":"create","variant":"chess","clock":300})",
        R"({"type":"create","variant":"chess","clock":{"initial_ms":0,"increment_ms":0}})",
        R"({"type":"create","variant":"chess","clock":{"initial_ms":86400001,"increment_ms":0}})",
        R"({"type":"create","variant":"chess","clock":{"initial_ms":1000,"increment_ms":3600001}})",
        R"({"type":"create","variant":"chess","clock":{"initial_ms":1000}})",
        R"({"type":"create","variant":"chess","private":"yes"})",
        R"({"type":"create","variant":"chess","position":null})",
        R"({"type":"create","variant":"chess","position":"  "})",
        R"({"type":"create","variant":"chess","opponent":null})",
        R"({"type":"create","variant":"chess","opponent":{"engine":"stockfish"}})",
        R"({"type":"create","variant":"chess","opponent":{"engine":"stockfish","level":0}})",
        R"({"type":"create","variant":"chess","opponent":{"engine":"stockfish","level":9}})",
        R"({"type":"create","variant":"chess","opponent":{"engine":"a b","level":3}})",
        R"({"type":"create","variant":"chess","opponent":{"engine":"s","level":3,"x":1}})",
        R"({"type":"join","game":""})",
        R"({"type":"join","game":"a b"})",
        R"({"type":"join","game":"gggggggggggggggggggggggggggggggggg"})",
        R"({"type":"join"})",
        R"({"type":"resume","game":"g1","token":"a b"})",
        R"({"type":"resume","game":"g1","token":"t","since":-1})",
        R"({"type":"watch","game":"g1","since":"1"})",
        R"({"type":"move","game":"g1","move":"","ply":0})",
        R"({"type":"move","game":"g1","move":"e2e4","ply":-1})",
        R"({"type":"move","game":"g1","move":"e2e4","ply":4294967296})",
        R"({"type":"move","game":"g1","move":"e2e4","ply":1.5})",
        R"({"type":"move","game":"g1","move":"e2e4","ply":1.0})",
        R"({"type":"move","game":"g1","move":"e2e4","ply":1e0})",
        R"({"type":"move","game":"g1","move":"e2e4","ply":2,"think_ms":5.0})",
        R"({"type":"resume","game":"g1","token":"t","since":3.0})",
        R"({"type":"watch","game":"g1","since":1E2})",
        R"({"type":"games","limit":20.0})",
        R"({"type":"create","variant":"chess","clock":{"initial_ms":6e4,"increment_ms":0}})",
        R"({"type":"create","variant":"chess","clock":{"initial_ms":60000,"increment_ms":0.0}})",
        R"({"type":"create","variant":"chess","opponent":{"engine":"builtin","level":3.0}})",
        R"({"type":"create","variant":"chess","rated":true,"rating_range":{"min":1500.0}})",
        R"({"type":"move","game":"g1","move":"e2e4"})",
        R"({"type":"move","game":"g1","move":"e2e4","ply":2,"think_ms":-1})",
        R"({"type":"move","game":"g1","move":"e2e4","ply":2,"think_ms":null})",
        R"({"type":"move","game":"g1","move":"e2e4","ply":2,"think_ms":9007199254740992})",
        R"({"type":"draw","game":"g1","action":"withdraw"})",
        R"({"type":"takeback","game":"g1"})",
        R"({"type":"claim","game":"g1","kind":"loss"})",
        R"({"type":"lobby","variant":"chess"})",
        R"({"type":"games","limit":0})",
        R"({"type":"games","limit":201})",
        R"({"type":"games","status":"running"})",
        R"({"type":"games","before":"not an id"})",
        R"({"type":"chat","game":"g1","room":"all","text":"hi"})",
        R"({"type":"chat","game":"g1","room":"players"})",
        R"({"type":"chat","game":"g1","room":"players","text":""})",
        R"({"type":"chat","game":"g1","room":"players","text":" \t "})",
        R"({"type":"chat","game":"g1","room":"players","text":7})",
        R"({"type":"chat_mute","game":"g1","mute":"yes"})",
    };
    return frames;
}

rules::Variant seat_variant(const ServerBody& body) {
    return std::visit(
        [](const auto& message) {
            if constexpr (requires { message.variant; }) {
                return message.variant;
            } else {
                return Variant::chess;
            }
        },
        body);
}

}  // namespace arbiter::protocol::samples
