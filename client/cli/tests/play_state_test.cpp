// The decisions of a game session, driven with server messages, typed lines and a fake clock.

#include "client/cli/play_state.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/protocol/codec.hpp"

namespace arbiter::client {
namespace {

using nlohmann::json;

// A server message as the session gets it: decoded by the protocol's codec.
protocol::ServerMessage server(const json& message) {
    auto decoded = protocol::decode_server(
        message.dump(), [](std::string_view) { return std::optional(rules::Variant::chess); });
    EXPECT_TRUE(decoded) << message.dump() << " -> " << decoded.error().message;
    return decoded ? std::move(*decoded) : protocol::ServerMessage{protocol::Pong{}, std::nullopt};
}
using std::chrono::milliseconds;
using std::chrono::seconds;

const SteadyClock::time_point kStart{};

CliOptions command_line(const std::vector<std::string>& arguments) {
    auto options = parse_arguments(arguments);
    EXPECT_TRUE(options) << options.error();
    return options ? *options : CliOptions{};
}

// A chess game in play: Ana (white) against Bo, one minute each, the clock running.
json playing(const std::string& game, std::uint64_t seq, const std::string& you,
             const std::string& turn, std::uint64_t ply) {
    return {{"type", "state"},
            {"game", game},
            {"seq", seq},
            {"variant", "chess"},
            {"status", "playing"},
            {"you", you},
            {"players",
             {{"white", {{"name", "Ana"}, {"connected", true}}},
              {"black", {{"name", "Bo"}, {"connected", true}}}}},
            {"initial_position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"},
            {"position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"},
            {"moves", json::array()},
            {"notation", json::array()},
            {"ply", ply},
            {"turn", turn},
            {"legal", json::array()},
            {"check", false},
            {"clock", {{"white_ms", 60000}, {"black_ms", 60000}, {"running", true}}},
            {"time_control", {{"initial_ms", 60000}, {"increment_ms", 0}}},
            {"result", nullptr},
            {"reason", nullptr},
            {"offers", json::array()},
            {"spectators", 0},
            {"rematch", nullptr}};
}

json seat(const std::string& type, const std::string& game, const std::string& seat_name) {
    return {{"type", type},
            {"game", game},
            {"seat", seat_name},
            {"token", "t-" + game},
            {"variant", "chess"}};
}

json event(const std::string& type, const std::string& game, std::uint64_t seq, json fields) {
    fields["type"] = type;
    fields["game"] = game;
    fields["seq"] = seq;
    return fields;
}

json moved(const std::string& game, std::uint64_t seq, std::uint64_t ply, const std::string& move,
           const std::string& turn) {
    return event("moved", game, seq,
                 {{"ply", ply},
                  {"move", move},
                  {"notation", move},
                  {"position", "8/8/8/8/8/8/8/8 w - - 0 1"},
                  {"turn", turn},
                  {"legal", json::array()},
                  {"check", false},
                  {"clock", {{"white_ms", 60000}, {"black_ms", 60000}, {"running", true}}}});
}

json ended(const std::string& game, std::uint64_t seq, const std::string& result,
           const std::string& reason) {
    return event("ended", game, seq, {{"result", result}, {"reason", reason}, {"status", "ended"}});
}

json error(const std::string& code, const std::string& id = "") {
    json message = {{"type", "error"}, {"code", code}, {"message", code}};
    if (!id.empty()) {
        message["id"] = id;
    }
    return message;
}

std::vector<json> requests_of(const Reaction& reaction) {
    std::vector<json> requests;
    for (const std::string& text : reaction.requests) {
        requests.push_back(json::parse(text));
    }
    return requests;
}

bool mentions(const Reaction& reaction, const std::string& text) {
    for (const std::string& note : reaction.notes) {
        if (note.find(text) != std::string::npos) {
            return true;
        }
    }
    return false;
}

// Ana created game g1 as white and Bo joined: white to move, clocks running since kStart.
PlayState created_and_joined() {
    PlayState play(command_line({"create", "chess", "--clock", "1+0"}), true, kStart);
    EXPECT_TRUE(play.open(true));
    (void)play.on_message(server(seat("created", "g1", "white")), kStart);
    (void)play.on_message(server(playing("g1", 2, "white", "white", 0)), kStart);
    return play;
}

TEST(CliPlayState, OffersAndPresenceDoNotRestartTheRunningClock) {
    PlayState play = created_and_joined();
    EXPECT_TRUE(
        play.on_message(server(event("offer", "g1", 3,
                                     {{"kind", "draw"}, {"action", "offer"}, {"by", "black"}})),
                        kStart + seconds(5))
            .redraw);
    (void)play.on_message(
        server(event("presence", "g1", 4,
                     {{"seat", "black"}, {"connected", false}, {"claim_after_ms", 60000}})),
        kStart + seconds(7));
    EXPECT_EQ(play.elapsed_ms(kStart + seconds(8)), 8000);
    const std::string clocks =
        render_clocks(play.view(), false, play.elapsed_ms(kStart + seconds(8)));
    EXPECT_NE(clocks.find("White  Ana  0:52"), std::string::npos) << clocks;
    // A move carries the clocks: the count starts again from them.
    (void)play.on_message(server(moved("g1", 5, 1, "e2e4", "black")), kStart + seconds(9));
    EXPECT_EQ(play.elapsed_ms(kStart + seconds(9)), 0);
}

TEST(CliPlayState, EndedStopsTheClocksWhereTheyWereCountedDown) {
    PlayState play = created_and_joined();
    (void)play.on_message(server(ended("g1", 3, "0-1", "resign")), kStart + seconds(7));
    ASSERT_TRUE(play.view().clock);
    EXPECT_FALSE(play.view().clock->running);
    EXPECT_EQ(play.view().clock->remaining_ms.at("white"), 53000);
    EXPECT_EQ(play.view().clock->remaining_ms.at("black"), 60000);
    const std::string clocks =
        render_clocks(play.view(), false, play.elapsed_ms(kStart + seconds(30)));
    EXPECT_NE(clocks.find("White  Ana  0:53"), std::string::npos) << clocks;
}

TEST(CliPlayState, ASideThatLostOnTimeShowsNoTimeLeft) {
    PlayState play = created_and_joined();
    (void)play.on_message(server(ended("g1", 3, "0-1", "timeout")), kStart + milliseconds(59950));
    const std::string clocks = render_clocks(play.view(), false, 0);
    EXPECT_NE(clocks.find("White  Ana  0:00.0"), std::string::npos) << clocks;
    EXPECT_NE(clocks.find("Black  Bo  1:00"), std::string::npos) << clocks;
}

TEST(CliPlayState, TypedTextThatIsNotUtf8IsRefusedAndNothingIsSent) {
    PlayState play = created_and_joined();
    for (const std::string line : {"e2e4\xe9", "\xff", "draw \xc0\xaf"}) {
        Reaction reaction;
        EXPECT_NO_THROW(reaction = play.on_line(line));
        EXPECT_TRUE(mentions(reaction, "UTF-8"));
        EXPECT_TRUE(reaction.requests.empty());
        EXPECT_FALSE(reaction.exit_code);
    }
    Reaction next;
    EXPECT_NO_THROW(next = play.next_move(kStart));
    EXPECT_TRUE(next.requests.empty());
}

TEST(CliPlayState, AMoveIsOneToSixtyFourCharactersWithoutControls) {
    PlayState play = created_and_joined();
    EXPECT_TRUE(mentions(play.on_line(std::string(70000, 'e')), "1 to 64 characters"));
    EXPECT_TRUE(mentions(play.on_line("e2\x1b[Ae4"), "control"));
    EXPECT_TRUE(play.next_move(kStart).requests.empty());
    EXPECT_TRUE(play.on_line(std::string(64, 'e')).notes.empty());
    const auto sent = requests_of(play.next_move(kStart));
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0]["move"], std::string(64, 'e'));
}

TEST(CliPlayState, CommandArgumentsAreCheckedBeforeSending) {
    PlayState play = created_and_joined();
    EXPECT_TRUE(play.on_line("draw " + std::string(70000, 'x')).requests.empty());
    EXPECT_TRUE(play.on_line("claim everything").requests.empty());
    const auto sent = requests_of(play.on_line("draw decline"));
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0]["action"], "decline");
}

TEST(CliPlayState, AMoveTheServerRefusedAsTooLargeIsNotSentAgain) {
    PlayState play = created_and_joined();
    (void)play.on_line("e2e4");
    ASSERT_EQ(play.next_move(kStart).requests.size(), 1u);
    EXPECT_TRUE(mentions(play.on_closed(1009), "too large"));
    auto reopened = play.open(false);
    ASSERT_TRUE(reopened);
    for (const std::string& request : *reopened) {
        EXPECT_NE(json::parse(request)["type"], "move") << request;
    }
}

TEST(CliPlayState, ATooLargeErrorDropsTheMoveInFlight) {
    PlayState play = created_and_joined();
    (void)play.on_line("e2e4");
    ASSERT_EQ(play.next_move(kStart).requests.size(), 1u);
    (void)play.on_message(server(error("too_large")), kStart);
    (void)play.on_closed(1009);
    auto reopened = play.open(false);
    ASSERT_TRUE(reopened);
    EXPECT_EQ(reopened->size(), 1u);  // the resume alone
}

// The CI run of 2026-12-06: the error arrived, the client sent the next queued move at once, and
// the 1009 that followed dropped that one too.
TEST(CliPlayState, TheCloseAfterATooLargeErrorDropsNoOtherMove) {
    PlayState play = created_and_joined();
    (void)play.on_line("e2e4");
    (void)play.on_line("d2d4");
    ASSERT_EQ(play.next_move(kStart).requests.size(), 1u);
    EXPECT_TRUE(mentions(play.on_message(server(error("too_large")), kStart), "e2e4"));
    EXPECT_TRUE(play.next_move(kStart).requests.empty()) << "nothing more on a closing connection";
    EXPECT_FALSE(mentions(play.on_closed(1009), "too large"));
    EXPECT_EQ(play.queued(), std::vector<std::string>{"d2d4"});
    auto reopened = play.open(false);
    ASSERT_TRUE(reopened);
    EXPECT_EQ(reopened->size(), 1u);  // the resume alone
    (void)play.on_message(server(playing("g1", 3, "white", "white", 0)), kStart);
    const auto sent = requests_of(play.next_move(kStart));
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0]["move"], "d2d4");
}

TEST(CliPlayState, AMoveWhoseAnswerWasLostIsSentAgainAfterAReconnect) {
    PlayState play = created_and_joined();
    (void)play.on_line("e2e4");
    ASSERT_EQ(play.next_move(kStart).requests.size(), 1u);
    (void)play.on_closed(1006);
    auto reopened = play.open(false);
    ASSERT_TRUE(reopened);
    ASSERT_EQ(reopened->size(), 2u);
    const json resume = json::parse(reopened->at(0));
    EXPECT_EQ(resume["type"], "resume");
    EXPECT_EQ(resume["token"], "t-g1");
    EXPECT_EQ(resume["since"], 2);
    const json move = json::parse(reopened->at(1));
    EXPECT_EQ(move["move"], "e2e4");
    EXPECT_EQ(move["ply"], 0);
    EXPECT_FALSE(play.settled());  // until the resent move is answered
    (void)play.on_message(server(moved("g1", 3, 1, "e2e4", "black")), kStart);
    EXPECT_TRUE(play.settled());
}

TEST(CliPlayState, AMoveReportsTheThinkTimeFromTheArrivalOfItsTurn) {
    PlayState play = created_and_joined();  // the state gave white the turn at kStart
    (void)play.on_line("e2e4");
    auto sent = requests_of(play.next_move(kStart + milliseconds(1800)));
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].value("think_ms", -1), 1800);
    (void)play.on_message(server(moved("g1", 3, 1, "e2e4", "black")), kStart + seconds(2));
    json reply = moved("g1", 4, 2, "e7e5", "white");
    reply["legal"] = {"g1f3"};  // white has a move: the game goes on
    (void)play.on_message(server(reply), kStart + seconds(5));
    // A move typed ahead goes as the turn comes: it reports the little time since.
    (void)play.on_line("g1f3");
    sent = requests_of(play.next_move(kStart + seconds(5) + milliseconds(3)));
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0]["ply"], 2);
    EXPECT_EQ(sent[0].value("think_ms", -1), 3);
}

TEST(CliPlayState, AStateForATurnAlreadyGivenKeepsItsStart) {
    PlayState play = created_and_joined();
    // A resume's state, for the same turn, comes 4 s later: the turn was given at kStart.
    (void)play.on_message(server(playing("g1", 2, "white", "white", 0)), kStart + seconds(4));
    (void)play.on_line("e2e4");
    const auto sent = requests_of(play.next_move(kStart + seconds(5)));
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].value("think_ms", -1), 5000);
}

TEST(CliPlayState, ATakebackToATurnOnceGivenStartsItAnew) {
    PlayState play = created_and_joined();
    (void)play.on_message(server(moved("g1", 3, 1, "e2e4", "black")), kStart + seconds(1));
    (void)play.on_message(
        server(event("takeback", "g1", 4,
                     {{"ply", 0},
                      {"position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"},
                      {"turn", "white"},
                      {"legal", json::array()},
                      {"check", false},
                      {"clock", {{"white_ms", 60000}, {"black_ms", 60000}, {"running", true}}}})),
        kStart + seconds(10));
    (void)play.on_line("d2d4");
    const auto sent = requests_of(play.next_move(kStart + seconds(10) + milliseconds(500)));
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].value("think_ms", -1), 500);
}

TEST(CliPlayState, AResentMoveReportsTheSameThinkTimeAndPly) {
    PlayState play = created_and_joined();
    (void)play.on_line("e2e4");
    ASSERT_EQ(play.next_move(kStart + milliseconds(1200)).requests.size(), 1u);
    (void)play.on_closed(1006);
    auto reopened = play.open(false);
    ASSERT_TRUE(reopened);
    ASSERT_EQ(reopened->size(), 2u);
    const json move = json::parse(reopened->at(1));
    EXPECT_EQ(move["ply"], 0);
    EXPECT_EQ(move.value("think_ms", -1), 1200);
}

json seat_lost(const std::string& game, const std::string& seat_name) {
    return {{"type", "seat_lost"},
            {"game", game},
            {"seat", seat_name},
            {"reason", "resumed_elsewhere"},
            {"you", nullptr}};
}

TEST(CliPlayState, ASeatTakenOverElsewhereEndsTheSessionWithItsOwnStatus) {
    PlayState play = created_and_joined();
    (void)play.on_line("e2e4");
    (void)play.on_line("g1f3");  // the first goes, the second waits for the turn
    ASSERT_EQ(requests_of(play.next_move(kStart)).size(), 1u);
    const Reaction reaction = play.on_message(server(seat_lost("g1", "white")), kStart);
    EXPECT_EQ(reaction.exit_code, kExitSeatTakenOver);
    EXPECT_NE(kExitSeatTakenOver, 1);  // apart from the failures
    EXPECT_TRUE(mentions(reaction, "taken over by another connection (resumed elsewhere)"));
    EXPECT_TRUE(mentions(reaction, "arbiter-cli resume g1"));
    EXPECT_TRUE(mentions(reaction, "g1f3"));  // the move typed ahead is dropped, and said so
    // Nothing is sent: resuming by itself would take the seat back from the other connection.
    EXPECT_TRUE(reaction.requests.empty());
}

TEST(CliPlayState, ASeatLostInAnotherGameIsNotThisSessions) {
    PlayState play = created_and_joined();
    EXPECT_FALSE(play.on_message(server(seat_lost("g0", "white")), kStart).exit_code);
    PlayState watching(command_line({"watch", "g1"}), true, kStart);
    ASSERT_TRUE(watching.open(true));
    (void)watching.on_message(server(playing("g1", 2, "spectator", "white", 0)), kStart);
    EXPECT_FALSE(watching.on_message(server(seat_lost("g1", "white")), kStart).exit_code);
}

TEST(CliPlayState, MovesTypedAheadAreDroppedAtTheEndAndNotPlayedInTheRematch) {
    PlayState play = created_and_joined();
    (void)play.on_message(server(moved("g1", 3, 1, "e2e4", "black")), kStart);
    (void)play.on_line("g1f3");  // ahead of the turn
    EXPECT_TRUE(mentions(play.on_message(server(ended("g1", 4, "1-0", "resign")), kStart), "g1f3"));
    (void)play.on_message(server(event("rematch", "g1", 5, {{"next", "g2"}})), kStart);
    (void)play.on_message(server(seat("joined", "g2", "black")), kStart);
    EXPECT_EQ(play.game(), "g2");
    (void)play.on_message(server(playing("g2", 1, "black", "white", 0)), kStart);
    (void)play.on_message(server(moved("g2", 2, 1, "d2d4", "black")), kStart);
    EXPECT_EQ(play.view().turn, "black");
    EXPECT_TRUE(play.next_move(kStart).requests.empty());
}

TEST(CliPlayState, AMoveTypedAfterTheEndIsNotKeptForTheRematch) {
    PlayState play = created_and_joined();
    (void)play.on_message(server(ended("g1", 3, "0-1", "resign")), kStart);
    EXPECT_TRUE(mentions(play.on_line("e2e4"), "the game is over"));
    (void)play.on_message(server(event("rematch", "g1", 4, {{"next", "g2"}})), kStart);
    (void)play.on_message(server(seat("joined", "g2", "white")), kStart);
    (void)play.on_message(server(playing("g2", 1, "white", "white", 0)), kStart);
    EXPECT_TRUE(play.next_move(kStart).requests.empty());
}

TEST(CliPlayState, MovesPipedBeforeTheSeatIsTakenArePlayed) {
    PlayState play(command_line({"create", "chess"}), false, kStart);
    ASSERT_TRUE(play.open(true));
    (void)play.on_line("e2e4");
    (void)play.on_message(server(seat("created", "g1", "white")), kStart);
    (void)play.on_message(server(playing("g1", 2, "white", "white", 0)), kStart);
    const auto sent = requests_of(play.next_move(kStart));
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0]["move"], "e2e4");
}

TEST(CliPlayState, ARefusedResyncLetsTheNextGapAskAgain) {
    PlayState play = created_and_joined();
    const auto first =
        requests_of(play.on_message(server(moved("g1", 5, 1, "e2e4", "black")), kStart));
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0]["type"], "resume");
    EXPECT_EQ(first[0]["since"], 2);
    // Refused for good (not busy): the session goes on with the events it has.
    json refusal = error("forbidden", first[0].value("id", ""));
    EXPECT_FALSE(play.on_message(server(refusal), kStart).exit_code);
    const auto second =
        requests_of(play.on_message(server(moved("g1", 7, 2, "e7e5", "white")), kStart));
    ASSERT_EQ(second.size(), 1u);
    EXPECT_EQ(second[0]["type"], "resume");
}

TEST(CliPlayState, OneResyncAtATime) {
    PlayState play = created_and_joined();
    EXPECT_EQ(play.on_message(server(moved("g1", 5, 1, "e2e4", "black")), kStart).requests.size(),
              1u);
    EXPECT_TRUE(
        play.on_message(server(moved("g1", 6, 2, "e7e5", "white")), kStart).requests.empty());
}

TEST(CliPlayState, AnActionRefusedAsRateLimitedDoesNotReopenTheGame) {
    PlayState play(command_line({"resume", "g1", "--token", "tok"}), true, kStart);
    ASSERT_TRUE(play.open(true));
    (void)play.on_message(server(playing("g1", 2, "white", "white", 0)), kStart);
    for (const std::string line : {"resign", "draw", "claim win"}) {
        const auto sent = requests_of(play.on_line(line));
        ASSERT_EQ(sent.size(), 1u) << line;
        for (const std::string& id : {sent[0].value("id", std::string()), std::string()}) {
            const Reaction reaction = play.on_message(server(error("rate_limited", id)), kStart);
            EXPECT_FALSE(mentions(reaction, "asking again")) << line;
            EXPECT_FALSE(reaction.exit_code) << line;
            EXPECT_FALSE(play.ask_again(kStart + seconds(5))) << line;
        }
    }
}

TEST(CliPlayState, ABusyRefusalOfTheOpeningAsksAgain) {
    for (const bool echoed : {true, false}) {
        PlayState play(command_line({"watch", "g1"}), false, kStart);
        auto opened = play.open(true);
        ASSERT_TRUE(opened);
        ASSERT_EQ(opened->size(), 1u);
        const json watch = json::parse(opened->front());
        const Reaction reaction = play.on_message(
            server(error("unavailable", echoed ? watch.value("id", "") : std::string())), kStart);
        EXPECT_TRUE(mentions(reaction, "asking again"));
        EXPECT_FALSE(reaction.exit_code);
        EXPECT_FALSE(play.ask_again(kStart + milliseconds(500)));
        EXPECT_EQ(play.ask_again(kStart + seconds(1)), opened->front());
        EXPECT_FALSE(play.ask_again(kStart + seconds(2)));
    }
}

TEST(CliPlayState, ARefusedOpeningEndsASessionWithoutAGame) {
    PlayState play(command_line({"join", "g1"}), true, kStart);
    auto opened = play.open(true);
    ASSERT_TRUE(opened);
    const json join = json::parse(opened->front());
    EXPECT_EQ(play.on_message(server(error("seat_taken", join.value("id", ""))), kStart).exit_code,
              1);
}

// Found in exploratory QA: Ctrl-D at the prompt left the client running with its input gone, so
// everything typed afterwards was silently never read. At a terminal it now leaves like quit; a
// script that piped its moves in still has them played.
TEST(CliPlayState, EndOfInputAtATerminalLeavesLikeQuit) {
    PlayState play = created_and_joined();  // interactive
    EXPECT_EQ(play.on_end_of_input().exit_code, std::optional<int>(0));
    EXPECT_EQ(play.on_line("quit").exit_code, std::optional<int>(0));
}

TEST(CliPlayState, EndOfPipedInputStillPlaysTheMovesPipedIn) {
    PlayState play(command_line({"create", "chess"}), false, kStart);
    ASSERT_TRUE(play.open(true));
    (void)play.on_line("e2e4");
    EXPECT_FALSE(play.on_end_of_input().exit_code);
    (void)play.on_message(server(seat("created", "g1", "white")), kStart);
    (void)play.on_message(server(playing("g1", 2, "white", "white", 0)), kStart);
    const auto sent = requests_of(play.next_move(kStart));
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0]["move"], "e2e4");
}

// Found in exploratory QA: a move typed ahead went out between the opponent's mating `moved`
// (which leaves no legal move) and its `ended`, and came back as "error (game_over)" instead of
// being dropped with the other moves typed ahead.
TEST(CliPlayState, AMoveTypedAheadIsNotSentIntoAPositionWithoutLegalMoves) {
    PlayState play = created_and_joined();  // Ana: white
    (void)play.on_message(server(moved("g1", 3, 1, "f2f3", "black")), kStart);
    (void)play.on_line("g2g4");  // typed ahead, during black's turn
    json mate = moved("g1", 4, 2, "e7e5", "white");
    mate["legal"] = json::array();  // no legal move for white: the game is over
    (void)play.on_message(server(mate), kStart);
    EXPECT_TRUE(play.next_move(kStart).requests.empty());
    EXPECT_TRUE(
        mentions(play.on_message(server(ended("g1", 5, "0-1", "checkmate")), kStart), "g2g4"));
}

TEST(CliPlayState, AMoveTypedAheadIsSentWhenTheTurnComes) {
    PlayState play = created_and_joined();
    (void)play.on_message(server(moved("g1", 3, 1, "f2f3", "black")), kStart);
    (void)play.on_line("g2g4");
    json reply = moved("g1", 4, 2, "e7e5", "white");
    reply["legal"] = json::array({"g2g4", "d2d4"});
    (void)play.on_message(server(reply), kStart);
    const auto sent = requests_of(play.next_move(kStart));
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0]["move"], "g2g4");
    EXPECT_EQ(sent[0]["ply"], 2);
}

// Issue 41: a refused move's reason is the server's ("e2e5: a pawn cannot move there"), shown
// as it came; the client adds no reason of its own.
TEST(CliPlayState, ARefusedMoveShowsTheServersReasonAsItCame) {
    PlayState play = created_and_joined();
    (void)play.on_line("e2e5");
    (void)play.next_move(kStart);
    json refusal = {{"type", "error"},
                    {"code", "illegal_move"},
                    {"message", "e2e5: a pawn cannot move there"},
                    {"id", "m0"}};
    const Reaction reaction = play.on_message(server(refusal), kStart);
    ASSERT_FALSE(reaction.notes.empty());
    EXPECT_EQ(reaction.notes.front(), "e2e5: a pawn cannot move there");
}

// Issue 41: moves typed ahead are shown as queued; when one is refused, those after it are
// dropped, and the player is told.
TEST(CliPlayState, MovesTypedAheadAreQueuedAndDroppedWhenOneIsRefused) {
    PlayState play = created_and_joined();  // Ana: white, to move
    (void)play.on_message(server(moved("g1", 3, 1, "e2e4", "black")), kStart);
    EXPECT_TRUE(mentions(play.on_line("g1f3"), "queued: g1f3"));
    EXPECT_TRUE(mentions(play.on_line("f1c4"), "queued: g1f3 f1c4"));
    EXPECT_EQ(play.queued(), (std::vector<std::string>{"g1f3", "f1c4"}));
    json reply = moved("g1", 4, 2, "e7e5", "white");
    reply["legal"] = json::array({"g1f3"});
    (void)play.on_message(server(reply), kStart);
    ASSERT_EQ(requests_of(play.next_move(kStart)).size(), 1u);  // g1f3, in turn
    const Reaction refused = play.on_message(server(error("illegal_move", "m2")), kStart);
    EXPECT_TRUE(mentions(refused, "queued moves dropped: f1c4"));
    EXPECT_TRUE(play.queued().empty());
    EXPECT_TRUE(play.next_move(kStart).requests.empty());
}

TEST(CliPlayState, AMoveThatGoesAtOnceIsNotCalledQueued) {
    PlayState play = created_and_joined();  // white to move
    EXPECT_TRUE(play.on_line("e2e4").notes.empty());
}

// Issue 41: leaving a game that goes on says how to come back, with the seat.
TEST(CliPlayState, QuitAndEndOfInputSayHowToComeBack) {
    PlayState play = created_and_joined();
    const Reaction quit = play.on_line("quit");
    EXPECT_EQ(quit.exit_code, std::optional<int>(0));
    EXPECT_TRUE(mentions(quit, "arbiter-cli resume g1 --seat white")) << quit.notes.front();
    EXPECT_TRUE(mentions(play.on_end_of_input(), "arbiter-cli resume g1 --seat white"));
    EXPECT_EQ(play.leaving_note(),
              "Your seat stays yours. To come back: arbiter-cli resume g1 --seat white");

    PlayState elsewhere(command_line({"--server", "ws://127.0.0.1:9/ws", "create", "chess"}), true,
                        kStart);
    ASSERT_TRUE(elsewhere.open(true));
    (void)elsewhere.on_message(server(seat("created", "g1", "white")), kStart);
    EXPECT_NE(elsewhere.leaving_note().find("arbiter-cli --server ws://127.0.0.1:9/ws resume g1"),
              std::string::npos);

    PlayState over = created_and_joined();
    (void)over.on_message(server(ended("g1", 3, "1-0", "resign")), kStart);
    EXPECT_EQ(over.leaving_note(), "");
}

TEST(CliPlayState, AResumeSaysWhichSeatIsPlayed) {
    PlayState play(command_line({"resume", "g1", "--token", "t"}), true, kStart);
    ASSERT_TRUE(play.open(true));
    EXPECT_TRUE(mentions(play.on_message(server(playing("g1", 4, "black", "white", 0)), kStart),
                         "Game g1: you play black"));
    // Said once: a state after a reconnect does not repeat it.
    EXPECT_FALSE(mentions(play.on_message(server(playing("g1", 4, "black", "white", 0)), kStart),
                          "you play"));
}

// Issue 41: no rematch offered where there is none to play: to a spectator, or after an abort.
TEST(CliPlayState, TheHintAtTheEndFitsWhoIsAskedAndHowTheGameEnded) {
    PlayState player = created_and_joined();
    EXPECT_TRUE(mentions(player.on_message(server(ended("g1", 3, "1-0", "resign")), kStart),
                         "type rematch"));

    PlayState aborted = created_and_joined();
    json abort = event("ended", "g1", 3,
                       {{"result", nullptr}, {"reason", "aborted"}, {"status", "aborted"}});
    const Reaction after_abort = aborted.on_message(server(abort), kStart);
    EXPECT_FALSE(mentions(after_abort, "rematch"));
    EXPECT_TRUE(mentions(after_abort, "quit"));
    EXPECT_FALSE(mentions(aborted.on_line("e2e4"), "rematch"));

    PlayState spectator(command_line({"watch", "g1"}), true, kStart);
    ASSERT_TRUE(spectator.open(true));
    (void)spectator.on_message(server(playing("g1", 2, "spectator", "white", 0)), kStart);
    const Reaction watched_end =
        spectator.on_message(server(ended("g1", 3, "1-0", "resign")), kStart);
    EXPECT_FALSE(mentions(watched_end, "rematch"));
    EXPECT_TRUE(mentions(watched_end, "quit"));
    EXPECT_FALSE(mentions(spectator.on_line("help"), "rematch"));
}

json chat(const std::string& game, std::uint64_t seq, const std::string& room,
          const std::string& from, const json& text) {
    return event("chat", game, seq, {{"room", room}, {"from", from}, {"text", text}, {"at_ms", 0}});
}

json chat_line(std::uint64_t seq, const std::string& room, const std::string& from,
               const std::string& text) {
    return {{"seq", seq}, {"room", room}, {"from", from}, {"text", text}, {"at_ms", 0}};
}

// Issue 41 and the chat contract: a seat writes to the players' room, a watcher to the
// spectators'; messages are shown as they come and take their place in the seq. Every message
// is the codec's: the requests are encoded by it, the events decoded by it.
TEST(CliPlayState, ChatGoesToTheRoomOfWhoWritesAndComesBackAsANumberedEvent) {
    PlayState play = created_and_joined();
    auto sent = requests_of(play.on_line("chat  good luck "));
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0], (json{{"type", "chat"},
                             {"game", "g1"},
                             {"room", "players"},
                             {"text", "good luck"},
                             {"id", "chat"}}));
    EXPECT_TRUE(play.on_line("chat   ").requests.empty());
    EXPECT_TRUE(mentions(play.on_line("chat bell \x07"), "control characters"));
    EXPECT_TRUE(play.on_line("chat " + std::string(141, 'a')).requests.empty());

    const Reaction shown =
        play.on_message(server(chat("g1", 3, "players", "Bo", "thanks")), kStart);
    EXPECT_TRUE(mentions(shown, "[players] Bo: thanks"));
    EXPECT_TRUE(shown.requests.empty());
    EXPECT_EQ(play.view().seq, 3u);
    // The same event again (a resend after a reconnect) is not shown twice.
    EXPECT_TRUE(
        play.on_message(server(chat("g1", 3, "players", "Bo", "thanks")), kStart).notes.empty());
    // A message this reader may not read still counts: the next move is no gap.
    const Reaction hidden =
        play.on_message(server(chat("g1", 4, "spectators", "Cy", nullptr)), kStart);
    EXPECT_TRUE(hidden.notes.empty());
    EXPECT_EQ(play.view().seq, 4u);
    EXPECT_TRUE(
        play.on_message(server(moved("g1", 5, 1, "e2e4", "black")), kStart).requests.empty());
    // Another game's chat is not this one's.
    EXPECT_TRUE(
        play.on_message(server(chat("g2", 6, "players", "Zed", "hi")), kStart).notes.empty());
    EXPECT_EQ(play.view().seq, 5u);
    // A skipped seq asks for what was missed.
    const Reaction gap = play.on_message(server(chat("g1", 9, "players", "Bo", "?")), kStart);
    ASSERT_EQ(requests_of(gap).size(), 1u);
    EXPECT_EQ(requests_of(gap)[0]["type"], "resume");

    PlayState spectator(command_line({"watch", "g1"}), true, kStart);
    ASSERT_TRUE(spectator.open(true));
    (void)spectator.on_message(server(playing("g1", 2, "spectator", "white", 0)), kStart);
    sent = requests_of(spectator.on_line("chat nice game"));
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0]["room"], "spectators");
    EXPECT_TRUE(mentions(spectator.on_line("mute"), "spectators cannot mute"));
}

TEST(CliPlayState, MuteAndTheChatHistoryOfAStateAreShownOnce) {
    PlayState play = created_and_joined();
    auto sent = requests_of(play.on_line("mute"));
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0],
              (json{{"type", "chat_mute"}, {"game", "g1"}, {"mute", true}, {"id", "chat"}}));
    sent = requests_of(play.on_line("unmute"));
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0]["mute"], false);
    const json muted = {{"type", "chat_muted"}, {"game", "g1"}, {"mute", true}, {"id", "chat"}};
    EXPECT_TRUE(mentions(play.on_message(server(muted), kStart), "muted"));
    json unmuted = muted;
    unmuted["mute"] = false;
    EXPECT_TRUE(mentions(play.on_message(server(unmuted), kStart), "shown again"));

    json state = playing("g1", 3, "white", "white", 0);
    state["chat"] = {chat_line(1, "players", "Bo", "hi"), chat_line(2, "players", "Ana", "hello")};
    const Reaction first = play.on_message(server(state), kStart);
    EXPECT_TRUE(first.redraw);
    ASSERT_GE(first.notes.size(), 2u);
    EXPECT_EQ(first.notes[first.notes.size() - 2], "[players] Bo: hi");
    EXPECT_EQ(first.notes.back(), "[players] Ana: hello");
    // After a reconnect the same history is not shown again; only what is new.
    state["chat"].push_back(chat_line(3, "players", "Bo", "again"));
    const Reaction again = play.on_message(server(state), kStart);
    EXPECT_FALSE(mentions(again, "[players] Bo: hi"));
    EXPECT_TRUE(mentions(again, "[players] Bo: again"));
}

TEST(CliPlayState, AStatesLongChatHistoryShowsItsLastTenMessages) {
    PlayState play = created_and_joined();
    json state = playing("g1", 30, "white", "white", 0);
    state["chat"] = json::array();
    for (std::uint64_t seq = 1; seq <= 25; ++seq) {
        state["chat"].push_back(chat_line(seq, "players", "Bo", "m" + std::to_string(seq)));
    }
    const Reaction shown = play.on_message(server(state), kStart);
    EXPECT_FALSE(mentions(shown, "[players] Bo: m15"));
    EXPECT_TRUE(mentions(shown, "[players] Bo: m16"));
    EXPECT_TRUE(mentions(shown, "[players] Bo: m25"));
}

TEST(CliReconnectWindow, ALossBeforeTheSessionSettledKeepsTheWindow) {
    ReconnectWindow window;
    window.lost(kStart);
    EXPECT_EQ(window.next_pause(kStart), milliseconds(250));
    EXPECT_EQ(window.next_pause(kStart + seconds(1)), milliseconds(500));
    // Reconnected, and lost again before settling: the same window, the pauses go on growing.
    window.lost(kStart + seconds(2));
    EXPECT_EQ(window.next_pause(kStart + seconds(2)), milliseconds(1000));
    EXPECT_TRUE(window.next_pause(kStart + seconds(59)));
    EXPECT_FALSE(window.next_pause(kStart + seconds(60)));
    window.lost(kStart + seconds(61));
    EXPECT_FALSE(window.next_pause(kStart + seconds(61)));
}

TEST(CliReconnectWindow, ASettledSessionGetsAFreshWindow) {
    ReconnectWindow window;
    window.lost(kStart);
    EXPECT_TRUE(window.next_pause(kStart));
    EXPECT_TRUE(window.next_pause(kStart));
    window.settled();
    window.lost(kStart + seconds(100));
    EXPECT_EQ(window.next_pause(kStart + seconds(159)), milliseconds(250));
    EXPECT_FALSE(window.next_pause(kStart + seconds(160)));
}

}  // namespace
}  // namespace arbiter::client
