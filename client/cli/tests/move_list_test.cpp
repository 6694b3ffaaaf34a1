// The move list, the pieces taken and the king in check (issue 41, the terminal client).

#include "client/cli/move_list.hpp"

#include <gtest/gtest.h>

namespace arbiter::client {
namespace {

const std::string kChessStart = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

TEST(CliMoveList, MovesAreShownInNumberedPairs) {
    EXPECT_EQ(move_pairs({"e4", "e5", "Nf3"}, false),
              (std::vector<std::string>{"1. e4 e5", "2. Nf3"}));
    EXPECT_EQ(move_pairs({"e5", "Nf3", "Nc6"}, true),
              (std::vector<std::string>{"1... e5", "2. Nf3 Nc6"}));
    EXPECT_TRUE(move_pairs({}, false).empty());
}

TEST(CliMoveList, PairsWrapAtTheWidthAndOnlyTheLastLinesAreKept) {
    const std::vector<std::string> pairs = {"1. e4 e5", "2. Nf3 Nc6", "3. Bb5 a6"};
    EXPECT_EQ(move_list_text(pairs, 80, 0), "1. e4 e5  2. Nf3 Nc6  3. Bb5 a6\n");
    EXPECT_EQ(move_list_text(pairs, 20, 0), "1. e4 e5  2. Nf3 Nc6\n3. Bb5 a6\n");
    EXPECT_EQ(move_list_text(pairs, 10, 2), "2. Nf3 Nc6\n3. Bb5 a6\n");
}

TEST(CliCaptured, PiecesTakenAreCountedFromTheStart) {
    // 1. e4 d5 2. exd5 Qxd5: White took a pawn, Black a pawn.
    const auto taken =
        captured_pieces("chess", kChessStart, "rnb1kbnr/ppp1pppp/8/3q4/8/8/PPPP1PPP/RNBQKBNR w");
    EXPECT_EQ(taken.by_first, "p");
    EXPECT_EQ(taken.by_second, "P");
    EXPECT_EQ(captured_line(taken, "chess"), "Captured: by White p, by Black P\n");
    EXPECT_EQ(captured_line(captured_pieces("chess", kChessStart, kChessStart), "chess"), "");
}

TEST(CliCaptured, APromotedPawnIsNotTaken) {
    // White's a-pawn became a second queen; Black lost a rook to it.
    const auto taken = captured_pieces("chess", kChessStart,
                                       "Qnbqkbnr/1ppppppp/8/8/8/8/1PPPPPPP/RNBQKBNR b KQk - 0 9");
    EXPECT_EQ(taken.by_first, "rp");  // the rook, and the a7 pawn the a-pawn took on its way
    EXPECT_EQ(taken.by_second, "");
}

TEST(CliCaptured, XiangqiAndDraughtsCountTheirOwnPieces) {
    const auto xiangqi = captured_pieces("xiangqi",
                                         "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/"
                                         "RNBAKABNR w - - 0 1",
                                         "rnbakabnr/9/7c1/p1p1p1p1p/9/9/P1P1P1P1P/7C1/9/"
                                         "RNBAKABNR w - - 0 3");
    EXPECT_EQ(xiangqi.by_first, "c");
    EXPECT_EQ(xiangqi.by_second, "C");
    const auto draughts = captured_pieces("draughts", "W:W21-32:B1-12", "B:W21-30,K11:B1-10");
    EXPECT_EQ(captured_line(draughts, "draughts"), "Captured: by White 2, by Black 1\n");
}

TEST(CliBoard, TheKingInCheckIsMarked) {
    const std::string fen = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
    BoardRequest request{"chess", fen, false, "d8h4", {false, false, false}, true};
    const auto marked = render_board(request);
    ASSERT_TRUE(marked);
    EXPECT_NE(marked->find("(K)"), std::string::npos) << *marked;
    EXPECT_EQ(marked->find("(k)"), std::string::npos);
    request.check = false;
    EXPECT_EQ(render_board(request)->find("(K)"), std::string::npos);
    request.check = true;
    request.style.color = true;
    EXPECT_NE(render_board(request)->find(std::string(ansi::kCheckSquare)), std::string::npos);
    // Xiangqi: the general of the side to move.
    BoardRequest xiangqi{
        "xiangqi", "3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1", false, "", {false, false, false}, true};
    EXPECT_NE(render_board(xiangqi)->find("k!"), std::string::npos);
}

}  // namespace
}  // namespace arbiter::client
