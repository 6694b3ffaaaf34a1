#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "client/cli/game_view.hpp"
#include "client/cli/replay_view.hpp"
#include "common/protocol/codec.hpp"

namespace arbiter::client {
namespace {

using nlohmann::json;

// Server messages reach the view decoded by the protocol's codec, which refuses a malformed one
// whole; the messages of these tests are written as JSON and read as the client reads them.
Expected<protocol::ServerMessage, protocol::ProtocolError> decoded(const json& message) {
    return protocol::decode_server(
        message.dump(), [](std::string_view) { return std::optional(rules::Variant::chess); });
}

protocol::ServerMessage server(const json& message) {
    auto result = decoded(message);
    EXPECT_TRUE(result) << message.dump() << " -> " << result.error().message;
    return result ? std::move(*result) : protocol::ServerMessage{protocol::Pong{}, std::nullopt};
}

Applied apply_message(GameView& view, const json& message, std::int64_t elapsed_ms = 0) {
    return client::apply_message(view, server(message), elapsed_ms);
}

std::string describe(const GameView& view, const json& message) {
    return client::describe(view, server(message));
}

GameRecord read_record(const json& message) {
    const protocol::ServerMessage record = server(message);
    return std::holds_alternative<protocol::Record>(record.body)
               ? client::read_record(std::get<protocol::Record>(record.body))
               : GameRecord{};
}

json chess_state() {
    return json::parse(R"({"type":"state","game":"g1","seq":3,"variant":"chess","status":"playing",
 "you":"black","players":{"white":{"name":"Ana","connected":true},
 "black":{"name":"Bo","connected":true}},
 "initial_position":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
 "position":"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2",
 "moves":["e2e4","e7e5"],"notation":["e4","e5"],"ply":2,"turn":"white",
 "legal":["g1f3"],"check":false,
 "clock":{"white_ms":298000,"black_ms":299500,"running":true},
 "time_control":{"initial_ms":300000,"increment_ms":2000},
 "result":null,"reason":null,"offers":[{"kind":"draw","by":"white"}],"spectators":1,
 "rematch":null})");
}

json moved(std::uint64_t seq) {
    return json::parse(R"({"type":"moved","game":"g1","seq":)" + std::to_string(seq) +
                       R"(,"ply":3,"move":"g1f3","notation":"Nf3",
 "position":"rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2","turn":"black",
 "legal":["b8c6"],"check":false,"clock":{"white_ms":297100,"black_ms":299500,"running":true}})");
}

TEST(CliGameView, StateFillsTheView) {
    GameView view;
    EXPECT_EQ(apply_message(view, chess_state()), Applied::changed);
    EXPECT_EQ(view.seq, 3u);
    EXPECT_EQ(view.you, "black");
    EXPECT_EQ(view.players["white"].name, "Ana");
    EXPECT_EQ(view.moves, (std::vector<std::string>{"e2e4", "e7e5"}));
    ASSERT_TRUE(view.clock);
    EXPECT_EQ(view.clock->remaining_ms["black"], 299500);
    ASSERT_EQ(view.offers.size(), 1u);
    EXPECT_TRUE(drawn_flipped(view, false));
    EXPECT_FALSE(drawn_flipped(view, true));
}

TEST(CliGameView, NextEventIsAppliedAndClearsTheDrawOffer) {
    GameView view;
    (void)apply_message(view, chess_state());
    EXPECT_EQ(apply_message(view, moved(4)), Applied::changed);
    EXPECT_EQ(view.seq, 4u);
    EXPECT_EQ(view.ply, 3u);
    EXPECT_EQ(view.moves.back(), "g1f3");
    EXPECT_EQ(view.notation.back(), "Nf3");
    EXPECT_EQ(view.turn, "black");
    EXPECT_TRUE(view.offers.empty());
}

TEST(CliGameView, OldEventsAreDuplicatesAndSkippedOnesAGap) {
    GameView view;
    (void)apply_message(view, chess_state());
    EXPECT_EQ(apply_message(view, moved(3)), Applied::duplicate);
    EXPECT_EQ(apply_message(view, moved(6)), Applied::gap);
    EXPECT_EQ(view.moves.size(), 2u);
    EXPECT_EQ(view.seq, 3u);
}

TEST(CliGameView, EventsOfAnotherGameAreNotApplied) {
    GameView view;
    (void)apply_message(view, chess_state());
    json other = moved(4);
    other["game"] = "g2";
    EXPECT_EQ(apply_message(view, other), Applied::other);
}

TEST(CliGameView, TakebackTruncatesTheMovesAndEndedStopsTheClock) {
    GameView view;
    (void)apply_message(view, chess_state());
    json takeback = {{"type", "takeback"},
                     {"game", "g1"},
                     {"seq", 4},
                     {"ply", 1},
                     {"position", "x"},
                     {"turn", "black"},
                     {"legal", json::array()},
                     {"check", false},
                     {"clock", nullptr}};
    EXPECT_EQ(apply_message(view, takeback), Applied::changed);
    EXPECT_EQ(view.moves, (std::vector<std::string>{"e2e4"}));
    EXPECT_FALSE(view.clock);
    json ended = {{"type", "ended"}, {"game", "g1"},       {"seq", 5},
                  {"result", "0-1"}, {"reason", "resign"}, {"status", "ended"}};
    EXPECT_EQ(apply_message(view, ended), Applied::changed);
    EXPECT_EQ(view.status, "ended");
    EXPECT_EQ(describe(view, ended), "Game over: 0-1 (resign)");
}

// Found in review: `ended` carries no clock, and the view kept the values of the last move, so
// a side that had lost on time was shown with time left.
TEST(CliGameView, EndedStopsTheRunningClockWhereItWasCountedDown) {
    GameView view;
    (void)apply_message(view, chess_state());  // white to move, 298000 ms, running
    json ended = {{"type", "ended"}, {"game", "g1"},       {"seq", 4},
                  {"result", "0-1"}, {"reason", "resign"}, {"status", "ended"}};
    EXPECT_EQ(apply_message(view, ended, 8000), Applied::changed);
    ASSERT_TRUE(view.clock);
    EXPECT_FALSE(view.clock->running);
    EXPECT_EQ(view.clock->remaining_ms["white"], 290000);
    EXPECT_EQ(view.clock->remaining_ms["black"], 299500);
    EXPECT_NE(render_clocks(view, false, 60000).find("White  Ana  4:50"), std::string::npos);
}

TEST(CliGameView, ATimeoutStopsTheRunningClockAtZero) {
    GameView view;
    (void)apply_message(view, chess_state());
    json ended = {{"type", "ended"}, {"game", "g1"},        {"seq", 4},
                  {"result", "0-1"}, {"reason", "timeout"}, {"status", "ended"}};
    EXPECT_EQ(apply_message(view, ended, 297900), Applied::changed);
    EXPECT_EQ(view.clock->remaining_ms["white"], 0);
    EXPECT_EQ(view.clock->remaining_ms["black"], 299500);
}

// Found in exploratory QA: every offer event told its reader how to answer it, so the player who
// had just offered a draw read "answer: draw accept | draw decline", and so did spectators.
TEST(CliGameView, OnlyThePlayerAnOfferIsMadeToIsToldHowToAnswerIt) {
    GameView view;
    (void)apply_message(view, chess_state());  // you: black
    const json by_white = {{"type", "offer"}, {"game", "g1"},      {"seq", 4},
                           {"kind", "draw"},  {"action", "offer"}, {"by", "white"}};
    json by_black = by_white;
    by_black["by"] = "black";
    EXPECT_EQ(describe(view, by_white), "White offers a draw (answer: draw accept | draw decline)");
    EXPECT_EQ(describe(view, by_black), "Black offers a draw");
    view.you = "spectator";
    EXPECT_EQ(describe(view, by_white), "White offers a draw");
}

// Found in exploratory QA: a spectator was told "you may claim" when a player left.
TEST(CliGameView, OnlyTheOpponentOfAPlayerWhoLeftIsToldTheyMayClaim) {
    GameView view;
    (void)apply_message(view, chess_state());  // you: black
    const json gone = {{"type", "presence"}, {"game", "g1"},       {"seq", 4},
                       {"seat", "white"},    {"connected", false}, {"claim_after_ms", 60000}};
    EXPECT_NE(describe(view, gone).find("you may claim after 60 s"), std::string::npos);
    view.you = "spectator";
    EXPECT_EQ(describe(view, gone).find("you may claim"), std::string::npos);
    EXPECT_NE(describe(view, gone).find("White disconnected"), std::string::npos);
}

// Found in exploratory QA: the replay screen ended without a newline, so the prompt and what was
// typed ran on after the keys ("... flip, quit> next").
TEST(CliReplay, TheScreenEndsWithALineOfItsOwnForThePrompt) {
    GameRecord record;
    record.variant = "chess";
    record.initial_position = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    const std::string screen = render_record_at(record, 0, RenderStyle{false, false, false}, false);
    ASSERT_FALSE(screen.empty());
    EXPECT_EQ(screen.back(), '\n');
}

// Found in exploratory QA: the server ends a game whose draw offer was accepted with `ended`
// alone, and the screen went on saying "Open offer: draw by white" under "Game over".
TEST(CliGameView, AGameThatIsOverHasNoOpenDrawOffer) {
    GameView view;
    (void)apply_message(view, chess_state());  // white's draw offer is open
    const json ended = {{"type", "ended"},     {"game", "g1"},          {"seq", 4},
                        {"result", "1/2-1/2"}, {"reason", "agreement"}, {"status", "ended"}};
    EXPECT_EQ(apply_message(view, ended), Applied::changed);
    EXPECT_TRUE(view.offers.empty());
    const std::string screen = render_screen(view, RenderStyle{false, false, false}, false, 0);
    EXPECT_EQ(screen.find("Open offer"), std::string::npos) << screen;
    EXPECT_NE(screen.find("Game over: 1/2-1/2 (agreement)"), std::string::npos);
}

TEST(CliGameView, OfferAcceptedOrDeclinedIsNoLongerOpen) {
    GameView view;
    (void)apply_message(view, chess_state());
    json answer = {{"type", "offer"}, {"game", "g1"},        {"seq", 4},
                   {"kind", "draw"},  {"action", "decline"}, {"by", "black"}};
    EXPECT_EQ(apply_message(view, answer), Applied::changed);
    EXPECT_TRUE(view.offers.empty());
    EXPECT_EQ(describe(view, answer), "Black declines the draw");
}

TEST(CliGameView, AStateSaysWhenAClaimOpensAgainstAnOpponentWhoIsAway) {
    json state = chess_state();
    state["players"]["white"]["connected"] = false;
    state["players"]["white"]["claim_after_ms"] = 45500;
    GameView view;
    (void)apply_message(view, state);
    EXPECT_EQ(describe(view, state),
              "White is away; you may claim after 45 s (claim win | claim draw)");
    state["players"]["white"]["claim_after_ms"] = 0;
    EXPECT_EQ(describe(view, state), "White is away; you may claim now (claim win | claim draw)");
    // Only the opponent of the one away may claim: not a spectator, nor that player.
    GameView watching = view;
    watching.you = "spectator";
    EXPECT_EQ(describe(watching, state), "");
    GameView away = view;
    away.you = "white";
    EXPECT_EQ(describe(away, state), "");
    EXPECT_EQ(describe(view, chess_state()), "") << "nobody away";
}

TEST(CliGameView, ErrorsAreDescribedWithTheirCode) {
    json error = {{"type", "error"}, {"code", "not_your_turn"}, {"message", "wait"}};
    EXPECT_EQ(describe(GameView{}, error), "error (not_your_turn): wait");
}

// Issue 41: the reason the server gives for a refused move is for the player, as it came.
TEST(CliGameView, AnIllegalMoveIsDescribedByTheServersReasonAlone) {
    json error = {
        {"type", "error"}, {"code", "illegal_move"}, {"message", "Qg5: no queen can reach g5"}};
    EXPECT_EQ(describe(GameView{}, error), "Qg5: no queen can reach g5");
}

// Issue 41: the screen shows the move list in pairs, what each side took, and the king in check.
TEST(CliGameView, ScreenShowsTheMoveListCapturesAndCheck) {
    GameView view;
    json state = chess_state();
    // 1. e4 d5 2. exd5 Qxd5 3. Nc3 Qe5+: white in check.
    state["moves"] = {"e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5e5"};
    state["notation"] = {"e4", "d5", "exd5", "Qxd5", "Nc3", "Qe5+"};
    state["ply"] = 6;
    state["position"] = "rnb1kbnr/ppp1pppp/8/4q3/8/2N5/PPPP1PPP/R1BQKBNR w KQkq - 2 4";
    state["check"] = true;
    state["you"] = "white";
    (void)apply_message(view, state);
    const std::string screen = render_screen(view, {false, false, false}, false, 0);
    EXPECT_NE(screen.find("1. e4 d5  2. exd5 Qxd5  3. Nc3 Qe5+\n"), std::string::npos) << screen;
    EXPECT_NE(screen.find("Captured: by White p, by Black P\n"), std::string::npos) << screen;
    EXPECT_NE(screen.find("(K)"), std::string::npos) << screen;
    EXPECT_NE(screen.find("Your move (check!)"), std::string::npos) << screen;
}

TEST(CliGameView, ScreenShowsOpponentOnTopAndTheClocks) {
    GameView view;
    (void)apply_message(view, chess_state());
    const std::string screen = render_screen(view, {false, false, false}, false, 1000);
    const auto white = screen.find("White  Ana  4:57");
    const auto black = screen.find("Black  Bo  4:59");
    ASSERT_NE(white, std::string::npos) << screen;
    ASSERT_NE(black, std::string::npos) << screen;
    EXPECT_LT(white, black);  // black plays from the bottom
    EXPECT_NE(screen.find("Last move: 1... e5 (e7e5)"), std::string::npos) << screen;
    EXPECT_NE(screen.find("White to move"), std::string::npos);
    EXPECT_NE(screen.find("Open offer: draw by white"), std::string::npos);
}

TEST(CliGameView, LastMoveIsNumberedAsTheMoveListNumbersIt) {
    GameView view;
    (void)apply_message(view, chess_state());
    (void)apply_message(view, moved(4));
    std::string screen = render_screen(view, {false, false, false}, false, 0);
    EXPECT_NE(screen.find("Last move: 2. Nf3 (g1f3)"), std::string::npos) << screen;

    // From a position with black to move, black's first move is "1..." and white's reply "2.".
    GameView from_fen;
    from_fen.have_state = true;
    from_fen.variant = "chess";
    from_fen.moves = {"e7e5"};
    from_fen.notation = {"e5"};
    from_fen.ply = 1;
    from_fen.position = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2";
    screen = render_screen(from_fen, {false, false, false}, false, 0);
    EXPECT_NE(screen.find("Last move: 1... e5"), std::string::npos) << screen;
    from_fen.moves.push_back("g1f3");
    from_fen.notation.push_back("Nf3");
    from_fen.ply = 2;
    from_fen.position = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2";
    screen = render_screen(from_fen, {false, false, false}, false, 0);
    EXPECT_NE(screen.find("Last move: 2. Nf3"), std::string::npos) << screen;

    // Xiangqi names red "w" in its FEN; draughts opens its PDN FEN with the side to move.
    GameView xiangqi = from_fen;
    xiangqi.variant = "xiangqi";
    xiangqi.moves = {"h2e2", "h9g7", "b0c2"};
    xiangqi.notation = {"C2=5", "H8+7", "H2+3"};
    xiangqi.ply = 3;
    xiangqi.position = "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN1C4/9/R1BAKABNR b - - 1 2";
    screen = render_screen(xiangqi, {false, false, false}, false, 0);
    EXPECT_NE(screen.find("Last move: 2. H2+3"), std::string::npos) << screen;
    GameView draughts = from_fen;
    draughts.variant = "draughts";
    draughts.moves = {"22-18", "11-15"};
    draughts.notation = draughts.moves;
    draughts.ply = 2;
    draughts.position = "W:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15";
    screen = render_screen(draughts, {false, false, false}, false, 0);
    EXPECT_NE(screen.find("Last move: 1... 11-15"), std::string::npos) << screen;
}

TEST(CliReplayView, PrintsEveryMoveAndTheResult) {
    json record = json::parse(R"({"type":"record","game":"g1","variant":"draughts",
 "status":"ended","players":{"white":{"name":"A","connected":false},"black":null},
 "time_control":null,"initial_position":"W:W22:B18",
 "initial_check":false,
 "moves":[{"ply":1,"move":"22x15","notation":"22x15","position":"B:W15:B",
 "clock_ms":null,"think_ms":null,"check":false}],"result":"1-0","reason":"no_moves","created_ms":1})");
    const GameRecord game = read_record(record);
    EXPECT_EQ(print_record(game),
              "Game g1 (draughts): A (white) vs (open) (black)\n"
              "1. 22x15\nResult: 1-0 (no_moves)\n");
    EXPECT_NE(render_record_at(game, 0, {false, false, false}, false).find("Ply 0/1"),
              std::string::npos);
    EXPECT_NE(render_record_at(game, 1, {false, false, false}, false).find("Ply 1/1: 22x15"),
              std::string::npos);
}

// Issue 41: replay --print shows move pairs, --pgn a PGN game.
TEST(CliReplayView, PrintsMovePairsOrPgn) {
    json record = json::parse(R"({"type":"record","game":"g7","variant":"chess",
 "status":"ended","players":{"white":{"name":"Ana","connected":false},
 "black":{"name":"Bo \"the\" bold","connected":false}},"time_control":null,
 "initial_position":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
 "initial_check":false,"moves":[
 {"ply":1,"move":"f2f3","notation":"f3","position":"x","clock_ms":null,"think_ms":null,"check":false},
 {"ply":2,"move":"e7e5","notation":"e5","position":"x","clock_ms":null,"think_ms":null,"check":false},
 {"ply":3,"move":"g2g4","notation":"g4","position":"x","clock_ms":null,"think_ms":null,"check":false},
 {"ply":4,"move":"d8h4","notation":"Qh4#","position":"x","clock_ms":null,"think_ms":null,"check":true}],
 "result":"0-1","reason":"checkmate","created_ms":1})");
    const GameRecord game = read_record(record);
    EXPECT_EQ(print_record(game),
              "Game g7 (chess): Ana (white) vs Bo \"the\" bold (black)\n"
              "1. f3 e5  2. g4 Qh4#\nResult: 0-1 (checkmate)\n");
    EXPECT_EQ(print_record_pgn(game),
              "[Event \"Arbiter game g7\"]\n[White \"Ana\"]\n[Black \"Bo \\\"the\\\" bold\"]\n"
              "[Result \"0-1\"]\n[Termination \"checkmate\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n");
    // A game from a position with black to move opens with "1...", and PGN says where it began.
    record["initial_position"] = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    const std::string pgn = print_record_pgn(read_record(record));
    EXPECT_NE(pgn.find("[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b"),
              std::string::npos)
        << pgn;
    EXPECT_NE(pgn.find("\n1... f3 2. e5 g4 3. Qh4# 0-1\n"), std::string::npos) << pgn;
}

TEST(CliReplayView, SaysCheckWhereTheRecordSaysSo) {
    // Xiangqi's "R9+2" advances a chariot: the "+" is a direction, so only the flag says check.
    json record = json::parse(R"({"type":"record","game":"g1","variant":"xiangqi",
 "status":"ended","players":{"red":{"name":"A","connected":false},"black":{"name":"B","connected":false}},
 "time_control":null,"initial_position":"3k5/8R/R8/9/9/9/9/9/9/4K4 w - - 0 1","initial_check":false,
 "moves":[{"ply":1,"move":"a8a10","notation":"R9+2","position":"R2k5/8R/9/9/9/9/9/9/9/4K4 b - - 1 1",
 "clock_ms":null,"think_ms":null,"check":true}],"result":"1-0","reason":"checkmate","created_ms":1})");
    const RenderStyle plain{false, false, false};
    const GameRecord game = read_record(record);
    EXPECT_EQ(render_record_at(game, 0, plain, false).find("(check)"), std::string::npos);
    EXPECT_NE(render_record_at(game, 1, plain, false).find("Ply 1/1: R9+2 (a8a10) (check)"),
              std::string::npos);
    record["moves"][0]["check"] = false;
    EXPECT_EQ(render_record_at(read_record(record), 1, plain, false).find("(check)"),
              std::string::npos);
    record["initial_check"] = true;
    EXPECT_NE(render_record_at(read_record(record), 0, plain, false).find("Ply 0/1 (check)"),
              std::string::npos);
}

// Found by fuzz_cli_view: nlohmann's value() throws on a field of another type, and nothing
// catches it, so one odd message from a server ended the client (std::terminate). Messages now
// reach the view through the protocol's codec, which refuses such a message whole, as a value:
// nothing throws, and the view keeps what it had.
TEST(CliGameView, AMessageWithAFieldOfTheWrongTypeIsRefusedWhole) {
    GameView view;
    (void)apply_message(view, chess_state());
    std::vector<json> broken(5, chess_state());
    broken[0]["check"] = json::object();
    broken[1]["clock"]["running"] = "yes";
    broken[2]["clock"]["white_ms"] = 1e300;
    broken[3]["players"]["white"] = json::array();
    broken[4]["players"]["black"]["connected"] = 1;
    json presence = json::parse(R"({"type":"presence","game":"g1","seq":4,"seat":"black",
 "claim_after_ms":null})");
    presence["connected"] = "true";
    broken.push_back(presence);
    for (const json& message : broken) {
        Expected<protocol::ServerMessage, protocol::ProtocolError> result =
            unexpected(protocol::ProtocolError{});
        EXPECT_NO_THROW(result = decoded(message));
        ASSERT_FALSE(result) << message.dump();
        EXPECT_EQ(result.error().code, protocol::ErrorCode::bad_request) << message.dump();
    }
    EXPECT_EQ(view.seq, 3u);
    EXPECT_FALSE(view.check);
    ASSERT_TRUE(view.clock.has_value());
    EXPECT_TRUE(view.clock->running);
    EXPECT_EQ(view.clock->remaining_ms.at("white"), 298000);
    EXPECT_TRUE(view.players["black"].connected);
}

TEST(CliReplayView, StepKeys) {
    EXPECT_EQ(parse_replay_step("", 2, 5)->ply, 3u);
    EXPECT_EQ(parse_replay_step("n", 5, 5)->ply, 5u);
    EXPECT_EQ(parse_replay_step("prev", 2, 5)->ply, 1u);
    EXPECT_EQ(parse_replay_step("p", 0, 5)->ply, 0u);
    EXPECT_EQ(parse_replay_step("first", 3, 5)->ply, 0u);
    EXPECT_EQ(parse_replay_step("l", 0, 5)->ply, 5u);
    EXPECT_EQ(parse_replay_step("4", 0, 5)->ply, 4u);
    EXPECT_TRUE(parse_replay_step("q", 0, 5)->quit);
    EXPECT_TRUE(parse_replay_step("flip", 0, 5)->flip);
    EXPECT_FALSE(parse_replay_step("6", 0, 5));
    EXPECT_FALSE(parse_replay_step("jump", 0, 5));
}

// Issue 40: a rated game's seats show their ratings (`?` while provisional), a guest is marked,
// and the end tells both rating changes.
TEST(CliGameView, RatingsGuestMarksAndTheRatingChangeAtTheEnd) {
    GameView view;
    json state = chess_state();
    state["players"]["white"]["guest"] = false;
    state["players"]["white"]["rating"] = {{"rating", 1512}, {"provisional", true}};
    state["players"]["black"]["guest"] = false;
    state["players"]["black"]["rating"] = {{"rating", 1720}, {"provisional", false}};
    state["rated"] = true;
    state["rating_range"] = nullptr;
    (void)apply_message(view, state);
    EXPECT_EQ(view.players["white"].badge, " 1512?");
    EXPECT_EQ(view.players["black"].badge, " 1720");
    const std::string clocks = render_clocks(view, false, 0);
    EXPECT_NE(clocks.find("Ana 1512?"), std::string::npos) << clocks;
    json ended = {{"type", "ended"}, {"game", "g1"},       {"seq", 5},
                  {"result", "0-1"}, {"reason", "resign"}, {"status", "ended"}};
    ended["ratings"] = {
        {"white", {{"before", 1512}, {"after", 1490}, {"diff", -22}, {"provisional", true}}},
        {"black", {{"before", 1720}, {"after", 1725}, {"diff", 5}, {"provisional", false}}}};
    (void)apply_message(view, ended);
    EXPECT_EQ(describe(view, ended), "Game over: 0-1 (resign); white 1490? (-22); black 1725 (+5)");

    GameView guest_view;
    json guest = chess_state();
    guest["players"]["white"]["guest"] = true;
    (void)apply_message(guest_view, guest);
    EXPECT_EQ(guest_view.players["white"].badge, " (guest)");
}

}  // namespace
}  // namespace arbiter::client
