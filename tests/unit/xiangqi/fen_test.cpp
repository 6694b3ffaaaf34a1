// Strict xiangqi FEN: round trips, accepted spellings, and every refusal with its message.
#include <gtest/gtest.h>

#include <fstream>

#include "common/rules/game.hpp"
#include "helpers.hpp"
#include "test_paths.hpp"

namespace arbiter::rules::xiangqi {
namespace {

using test::fen_of;

std::string refusal(std::string_view fen) {
    auto position = Position::from_fen(fen);
    return position ? std::string("accepted") : position.error().message;
}

TEST(XiangqiFen, StartPositionAndItsAliases) {
    for (std::string_view text : {std::string_view(""), std::string_view("startpos"), kStartFen}) {
        auto position = Position::from_fen(text);
        ASSERT_TRUE(position) << text;
        EXPECT_EQ(position->fen(), kStartFen);
    }
    auto game = make_game(Variant::xiangqi, "");
    ASSERT_TRUE(game);
    EXPECT_EQ((*game)->initial_position(), kStartFen);
    EXPECT_EQ((*game)->position(), kStartFen);
}

TEST(XiangqiFen, EveryReferencePositionRoundTrips) {
    std::ifstream in(std::string(ARBITER_TEST_DATA_DIR) + "/reference/xiangqi-perft.epd");
    std::string line;
    int checked = 0;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        const std::string fen = line.substr(0, line.find(" ;"));
        auto position = Position::from_fen(fen);
        ASSERT_TRUE(position) << fen << ": " << position.error().message;
        EXPECT_EQ(position->fen(), fen);
        ++checked;
    }
    EXPECT_EQ(checked, 13);
}

TEST(XiangqiFen, PositionAfterMovesRoundTripsWithCounters) {
    auto game = make_game(Variant::xiangqi, "startpos");
    ASSERT_TRUE(game);
    for (const char* move : {"h3e3", "h10g8", "e3e7", "i10h10"}) {
        ASSERT_TRUE((*game)->play(move)) << move;
    }
    const std::string fen = (*game)->position();
    EXPECT_EQ(fen, "rnbakabr1/9/1c4nc1/p1p1C1p1p/9/9/P1P1P1P1P/1C7/9/RNBAKABNR w - - 1 3")
        << "the cannon took e7: the halfmove counter restarted, then i10h10 made it 1";
    auto again = Position::from_fen(fen);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->fen(), fen);
}

TEST(XiangqiFen, AcceptsElephantAndHorseSynonymsAndShortForms) {
    auto position =
        Position::from_fen("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w - - 0 1");
    ASSERT_TRUE(position);
    EXPECT_EQ(position->fen(), kStartFen);
    auto short_form =
        Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b");
    ASSERT_TRUE(short_form);
    EXPECT_EQ(short_form->side_to_move(), Color::black);
}

TEST(XiangqiFen, RefusesMalformedText) {
    EXPECT_NE(refusal("rnbakabnr/9/1c5c1 w").find("needs 10 ranks"), std::string::npos);
    EXPECT_NE(refusal("rnbakabnr/8/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w")
                  .find("rank 9 has 8 points instead of 9"),
              std::string::npos);
    EXPECT_NE(refusal("rnbakabnr/91/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w")
                  .find("two digits in a row"),
              std::string::npos);
    EXPECT_NE(refusal("rnbakabnrr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w")
                  .find("more than 9 points"),
              std::string::npos);
    EXPECT_NE(refusal("rnbakabnx/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w")
                  .find("unknown piece letter 'x'"),
              std::string::npos);
    const std::string board = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";
    EXPECT_NE(refusal(board + " r").find("'w' (red) or 'b'"), std::string::npos);
    EXPECT_NE(refusal(board + " w KQ - 0 1").find("no castling"), std::string::npos);
    EXPECT_NE(refusal(board + " w - - x 1").find("halfmove counter"), std::string::npos);
    EXPECT_NE(refusal(board + " w - - 0 0").find("fullmove number"), std::string::npos);
    EXPECT_NE(refusal(board + " w -").find("expected 2, 4 or 6 fields"), std::string::npos);
    EXPECT_NE(refusal(board + "  w").find("expected 2, 4 or 6 fields"), std::string::npos);
    EXPECT_NE(refusal(board).find("expected 2, 4 or 6 fields"), std::string::npos);
}

TEST(XiangqiFen, RefusesImpossiblePieceCounts) {
    EXPECT_NE(refusal(fen_of({"K e1", "R a1", "R b1", "R c2", "k d10"}))
                  .find("red has more than 2 chariots"),
              std::string::npos);
    EXPECT_NE(refusal(fen_of({"K e1", "P a6", "P b6", "P c6", "P d6", "P e6", "P f6", "k d10"}))
                  .find("red has more than 5 soldiers"),
              std::string::npos);
    EXPECT_NE(refusal(fen_of({"K e1", "K f2", "k d10"})).find("more than 1 general"),
              std::string::npos);
    EXPECT_NE(refusal(fen_of({"K e1", "R a1"})).find("black has no general"), std::string::npos);
    EXPECT_EQ(refusal(fen_of({"K e1", "R a1", "R b1", "k d10"})), "accepted");
}

TEST(XiangqiFen, RefusesPiecesOnPointsTheyCanNeverReach) {
    EXPECT_NE(
        refusal(fen_of({"K e1", "A d2", "k d10"})).find("a red advisor can never stand on d2"),
        std::string::npos);
    EXPECT_NE(
        refusal(fen_of({"K e1", "B b1", "k d10"})).find("a red elephant can never stand on b1"),
        std::string::npos);
    EXPECT_NE(
        refusal(fen_of({"K e1", "b e6", "k d10"})).find("a black elephant can never stand on e6"),
        std::string::npos);
    EXPECT_NE(refusal(fen_of({"K c1", "k d10"})).find("a red general can never stand on c1"),
              std::string::npos);
    EXPECT_NE(refusal(fen_of({"K e1", "k e7"})).find("a black general can never stand on e7"),
              std::string::npos);
    EXPECT_NE(
        refusal(fen_of({"K e1", "P e3", "k d10"})).find("a red soldier can never stand on e3"),
        std::string::npos);
    EXPECT_NE(
        refusal(fen_of({"K e1", "P b4", "k d10"})).find("a red soldier can never stand on b4"),
        std::string::npos);
    EXPECT_NE(
        refusal(fen_of({"K e1", "p b7", "k d10"})).find("a black soldier can never stand on b7"),
        std::string::npos);
    EXPECT_EQ(refusal(fen_of({"K e1", "P b6", "p b5", "p c7", "A d3", "B e3", "k d10"})),
              "accepted");
}

TEST(XiangqiFen, RefusesTwoSoldiersOnOneFileBeforeTheRiver) {
    // A soldier steps sideways only after crossing and never back, so each of the five start
    // files holds at most one soldier of its side on that side of the river.
    EXPECT_NE(refusal(fen_of({"K e1", "P c4", "P c5", "k d10"}))
                  .find("red has two soldiers on the c-file before the river"),
              std::string::npos);
    EXPECT_NE(refusal(fen_of({"K e1", "p g7", "p g6", "k d10"}))
                  .find("black has two soldiers on the g-file before the river"),
              std::string::npos);
    EXPECT_EQ(refusal(fen_of({"K e1", "P c5", "P c6", "P c7", "p c4", "k d10"})), "accepted");
}

TEST(XiangqiFen, RefusesFacingGeneralsAndTheSideNotToMoveInCheck) {
    EXPECT_NE(refusal(fen_of({"K e1", "k e10"})).find("the generals face each other"),
              std::string::npos);
    EXPECT_EQ(refusal(fen_of({"K e1", "P e6", "k e10"})), "accepted");
    EXPECT_NE(
        refusal(fen_of({"K e1", "R d5", "k d10"})).find("the side not to move (black) is in check"),
        std::string::npos);
    EXPECT_EQ(refusal(fen_of({"K e1", "R d5", "k d10"}, 'b')), "accepted");
    auto game = make_game(Variant::xiangqi, fen_of({"K e1", "k e10"}));
    ASSERT_FALSE(game);
    EXPECT_NE(game.error().message.find("invalid FEN"), std::string::npos);
}

}  // namespace
}  // namespace arbiter::rules::xiangqi

// As in chess (found there by the fuzzer): play may count past the largest fullmove number a
// FEN carries; the text stops at it so that every position written reads back.
TEST(XiangqiFen, PositionsPastTheLargestMoveNumberStillReadBack) {
    auto game = arbiter::rules::make_game(arbiter::rules::Variant::xiangqi,
                                          "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 100000");
    ASSERT_TRUE(game);
    for (const char* move : {"a1a2", "d10d9", "a2a3", "d9d10"}) {
        ASSERT_TRUE((*game)->play(move)) << move;
    }
    const std::string fen = (*game)->position();
    EXPECT_TRUE(fen.ends_with(" 100000")) << fen;
    auto again = arbiter::rules::make_game(arbiter::rules::Variant::xiangqi, fen);
    ASSERT_TRUE(again) << fen << ": " << again.error().message;
    EXPECT_EQ((*again)->position(), fen);
}
