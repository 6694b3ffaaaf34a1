// What the search finds: mates in one, the right capture in draughts, and that it stops when told.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "common/engine/builtin.hpp"
#include "common/engine/search.hpp"

namespace arbiter::engine {
namespace {

std::unique_ptr<rules::Game> game_at(rules::Variant variant, const std::string& fen) {
    auto game = rules::make_game(variant, fen);
    EXPECT_TRUE(game.has_value()) << fen;
    return std::move(game.value());
}

SearchLimits depth_limits(int depth) {
    SearchLimits limits;
    limits.max_depth = depth;
    limits.max_time = std::chrono::minutes{10};
    return limits;
}

/// Plays `move` on a copy of `game` and reports whether the mover won there and then.
bool wins_at_once(const rules::Game& game, const std::string& move) {
    const auto child = game.clone();
    if (!child->play(move).has_value()) {
        return false;
    }
    const rules::Outcome win = game.turn() == rules::Side::first ? rules::Outcome::first_wins
                                                                 : rules::Outcome::second_wins;
    return child->status().outcome == win;
}

TEST(EngineSearch, FindsChessMateInOne) {
    // Back-rank mate Ra8#; the rook has 19 other moves and the king and pawns a few more.
    const auto game = game_at(rules::Variant::chess, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1");
    for (int level = 2; level <= kMaxLevel; ++level) {
        SearchLimits limits = limits_for_level(level);
        limits.max_time = std::chrono::minutes{10};
        const SearchResult result = choose_move(*game, level, limits, 3);
        EXPECT_EQ(result.move, "a1a8") << level;
        EXPECT_EQ(result.score, kMateScore - 1) << level;
    }
}

TEST(EngineSearch, FindsChessMateInOneAsBlack) {
    // Black mates with Qh4# after 1.f3 e5 2.g4 (fool's mate).
    const auto game = game_at(rules::Variant::chess,
                              "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2");
    const SearchResult result = search(*game, depth_limits(3), 5);
    EXPECT_EQ(result.move, "d8h4");
    EXPECT_TRUE(wins_at_once(*game, result.move));
}

TEST(EngineSearch, FindsXiangqiMateInOne) {
    // The lone black general on e10: the chariot from a1 to a10 checks along the back rank while
    // the other chariot holds rank 9 and the red general the d-file (flying general rule).
    const auto game = game_at(rules::Variant::xiangqi, "4k4/8R/9/9/9/9/9/9/9/R2K5 w - - 0 1");
    const SearchResult result = search(*game, depth_limits(3), 9);
    EXPECT_TRUE(wins_at_once(*game, result.move)) << result.move;
    EXPECT_GE(result.score, kMateBound);
}

/// Whether some reply to `move` in `game` ends the game at once with the mover losing.
bool lets_the_opponent_win_at_once(const rules::Game& game, const std::string& move) {
    const auto child = game.clone();
    if (!child->play(move).has_value()) {
        return false;
    }
    const auto replies = child->legal_moves();
    return std::any_of(replies.begin(), replies.end(),
                       [&](const std::string& reply) { return wins_at_once(*child, reply); });
}

TEST(EngineSearch, XiangqiDoesNotLetTheOpponentCompleteALostPerpetualCheck) {
    // Red's chariot checks the black general up and down the back ranks while the black chariots
    // wait to take the horse and the cannon. Red has checked with every move of the cycle; the
    // position before red's first check has occurred twice. Checking again lets black's general
    // step back into it a third time, and the perpetual check loses (the project's repetition
    // ruling): red must give up a piece instead. The engine used to judge the reply on a copy
    // without the game's history and walked into the loss.
    auto game = game_at(rules::Variant::xiangqi, "R8/4k4/9/2r3r2/9/9/2N3C2/9/9/3K5 w - - 0 1");
    for (const char* move : {"a10a9", "e9e10", "a9a10", "e10e9", "a10a9", "e9e10"}) {
        ASSERT_TRUE(game->play(move).has_value()) << move;
    }
    ASSERT_TRUE(lets_the_opponent_win_at_once(*game, "a9a10"));
    for (int level = 3; level <= 5; ++level) {
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            SearchLimits limits = limits_for_level(level);
            limits.max_time = std::chrono::minutes{10};
            const SearchResult result = choose_move(*game, level, limits, seed);
            EXPECT_FALSE(lets_the_opponent_win_at_once(*game, result.move))
                << "level " << level << " seed " << seed << ": " << result.move;
            EXPECT_GT(result.score, -kMateBound) << "level " << level << " seed " << seed;
        }
    }
}

TEST(EngineSearch, DraughtsTakesTheMajorityCaptureThatIsNotRetaken) {
    // White's man on 22 must take two pieces (majority rule): over 17 and 9 landing on 6, or over
    // 18 and 11 landing on 8. A black man on 2 retakes on 6; one on 4 retakes on 8.
    struct Case {
        const char* fen;
        const char* winning;
        const char* losing;
    };
    const Case cases[] = {{"W:W22,29,31:B17,9,18,11,2", "22x8", "22x6"},
                          {"W:W22,29,31:B17,9,18,11,4", "22x6", "22x8"}};
    for (const Case& c : cases) {
        const auto game = game_at(rules::Variant::draughts, c.fen);
        const auto moves = game->legal_moves();
        ASSERT_EQ(moves.size(), 2u) << c.fen;
        for (int level = 2; level <= kMaxLevel; ++level) {
            SearchLimits limits = limits_for_level(level);
            limits.max_depth = std::min(limits.max_depth, 6);
            // The depth decides here, not the clock: a stalled machine must not cut it short.
            limits.max_time = std::chrono::minutes{10};
            const SearchResult result = choose_move(*game, level, limits, 13);
            EXPECT_EQ(result.move, c.winning) << c.fen << " level " << level;
            EXPECT_NE(result.move, c.losing);
        }
    }
}

TEST(EngineSearch, StopFlagFromAnotherThreadEndsALongSearch) {
    const auto game = game_at(rules::Variant::chess, "startpos");
    std::atomic<bool> stop{false};
    SearchLimits limits = depth_limits(64);
    limits.stop = &stop;
    const auto start = std::chrono::steady_clock::now();
    std::thread stopper([&stop] {
        std::this_thread::sleep_for(std::chrono::milliseconds{300});
        stop.store(true);
    });
    const SearchResult result = search(*game, limits, 1);
    stopper.join();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds{10});
    const auto moves = game->legal_moves();
    EXPECT_NE(std::find(moves.begin(), moves.end(), result.move), moves.end());
    EXPECT_LT(result.depth, 64);
}

TEST(EngineSearch, ATimeCapLoweredFromAnotherThreadEndsALongSearch) {
    const auto game = game_at(rules::Variant::chess, "startpos");
    std::atomic<std::int64_t> cap{INT64_MAX};
    SearchLimits limits = depth_limits(64);
    limits.time_cap_ms = &cap;
    const auto start = std::chrono::steady_clock::now();
    std::thread cutter([&cap] {
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
        cap.store(300);  // ms from the search's start
    });
    const SearchResult result = search(*game, limits, 1);
    cutter.join();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds{10});
    const auto moves = game->legal_moves();
    EXPECT_NE(std::find(moves.begin(), moves.end(), result.move), moves.end());
    EXPECT_LT(result.depth, 64);
}

TEST(EngineSearch, TimeBudgetEndsTheSearch) {
    const auto game = game_at(rules::Variant::xiangqi, "startpos");
    SearchLimits limits = depth_limits(64);
    limits.max_time = std::chrono::milliseconds{200};
    const auto start = std::chrono::steady_clock::now();
    const SearchResult result = search(*game, limits, 1);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds{3});
    EXPECT_FALSE(result.move.empty());
}

}  // namespace
}  // namespace arbiter::engine
