// Random games through the public face: at every ply the current FEN parses back to itself,
// every legal move's SAN reads back as its UCI, and the face agrees with divide(1).
#include <gtest/gtest.h>

#include "tests/unit/chess/chess_test_util.hpp"

namespace arbiter::rules::chess_test {
namespace {

TEST(ChessRandomGames, FaceStaysConsistentAtEveryPly) {
    std::uint64_t state = 0x9E3779B97F4A7C15ULL;
    auto next = [&state] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    for (int round = 0; round < 6; ++round) {
        auto game = game_from("startpos");
        while (!game->status().over() && game->ply() < 100) {
            const auto moves = game->legal_moves();
            ASSERT_FALSE(moves.empty()) << game->position();
            const auto divided = game->divide(1);
            ASSERT_EQ(divided.size(), moves.size()) << game->position();
            for (std::size_t i = 0; i < moves.size(); ++i) {
                EXPECT_EQ(divided[i].first, moves[i]);
            }
            auto reparsed = make_game(Variant::chess, game->position());
            ASSERT_TRUE(reparsed.has_value()) << game->position();
            EXPECT_EQ((*reparsed)->position(), game->position());
            for (const auto& move : moves) {
                auto copy = game->clone();
                const auto played = copy->play(move);
                ASSERT_TRUE(played.has_value()) << move;
                EXPECT_EQ(game->to_wire(played->notation).value_or(""), move)
                    << game->position() << " " << played->notation;
            }
            const auto& choice = moves[next() % moves.size()];
            ASSERT_TRUE(game->play(choice).has_value());
        }
        EXPECT_EQ(game->legal_moves().empty(), game->status().over());
    }
}

}  // namespace
}  // namespace arbiter::rules::chess_test
