// The draw rules: threefold repetition (CBD art. 98), 20 moves each of kings only (art. 97 b),
// the small endings (art. 99) and three pieces against a lone king on the long diagonal
// (art. 100). Each rule draws exactly at its limit and not one ply earlier; counters restart on
// a capture, a man's move or a change of material.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>

#include "common/rules/draughts/draw_rules.hpp"
#include "common/rules/draughts/position.hpp"
#include "support.hpp"

namespace arbiter::rules::draughts {
namespace {

using MovePredicate = std::function<bool(const Position& before, int from, int to)>;

int from_square(const std::string& move) {
    return std::stoi(move) - 1;
}
int to_square(const std::string& move) {
    return std::stoi(move.substr(move.find_last_of("-x") + 1)) - 1;
}

bool any_move(const Position&, int, int) {
    return true;
}
bool king_move(const Position& before, int from, int) {
    return (before.kings() & bit(from)) != 0;
}
bool man_move(const Position& before, int from, int) {
    return (before.kings() & bit(from)) == 0;
}

/// Plays one quiet move accepted by `allowed` after which the opponent has no capture and the
/// position is new, picking the first such move in canonical order. False when there is none.
bool try_play_quiet(Game& game, std::set<std::string>& seen, const MovePredicate& allowed) {
    const auto before = Position::from_fen(game.position());
    EXPECT_TRUE(before.has_value());
    for (const auto& move : testing::sorted_moves(game)) {
        EXPECT_EQ(move.find('x'), std::string::npos) << "a capture arose: " << move;
        if (!allowed(*before, from_square(move), to_square(move))) {
            continue;
        }
        auto trial = game.clone();
        EXPECT_TRUE(trial->play(move).has_value());
        const auto replies = trial->legal_moves();
        const bool capture_follows = std::any_of(replies.begin(), replies.end(), [](const auto& m) {
            return m.find('x') != std::string::npos;
        });
        if (capture_follows || seen.count(trial->position()) != 0) {
            continue;
        }
        seen.insert(trial->position());
        EXPECT_TRUE(game.play(move).has_value());
        return true;
    }
    return false;
}

/// try_play_quiet, failing the test when no move qualifies.
void play_quiet(Game& game, std::set<std::string>& seen, const MovePredicate& allowed) {
    ASSERT_TRUE(try_play_quiet(game, seen, allowed)) << "no quiet move in " << game.position();
}

/// Plays `plies` quiet moves (see play_quiet), expecting the game to stay undecided.
void play_quiet_plies(Game& game, std::set<std::string>& seen, int plies,
                      const MovePredicate& allowed = any_move) {
    for (int i = 0; i < plies; ++i) {
        ASSERT_EQ(game.status(), Status{}) << "ply " << game.ply() << " " << game.position();
        play_quiet(game, seen, allowed);
    }
}

const Status kMoveLimit{Outcome::draw, Reason::move_limit};

TEST(DraughtsDraw, ThreefoldRepetitionDrawsOnTheThirdOccurrence) {
    const auto game = testing::game_from("W:WK32,21:BK1,12");
    testing::play_all(*game, {"32-28", "1-5", "28-32", "5-1", "32-28", "1-5", "28-32"});
    EXPECT_EQ(game->status(), Status{});  // the start position has occurred twice
    ASSERT_TRUE(game->play("5-1").has_value());
    EXPECT_EQ(game->status(), (Status{Outcome::draw, Reason::repetition}));
    EXPECT_TRUE(game->legal_moves().empty());
    EXPECT_FALSE(game->play("32-28").has_value());
}

TEST(DraughtsDraw, SamePlacementWithTheOtherSideToMoveIsNotARepetition) {
    // White's king goes round a three-move cycle while Black's shuttles: the start placement
    // comes back with Black to move at ply 5 and with White to move at ply 12. Counting
    // placements alone would call that a third occurrence.
    const auto game = testing::game_from("W:WK32,21:BK1,12");
    testing::play_all(*game, {"32-27", "1-6", "27-23", "6-1", "23-32", "1-6", "32-27", "6-1",
                              "27-23", "1-6", "23-32", "6-1"});
    EXPECT_EQ(game->position(), "W:W21,K32:BK1,12");
    EXPECT_EQ(game->status(), Status{});
}

TEST(DraughtsDraw, KingMovesOnlyDrawAtFortyPlies) {
    const auto game = testing::game_from("W:WK29,K30,K31:BK2,K3,K4");
    std::set<std::string> seen{game->position()};
    play_quiet_plies(*game, seen, 39);
    EXPECT_EQ(game->status(), Status{});
    play_quiet(*game, seen, any_move);
    EXPECT_EQ(game->status(), kMoveLimit);
}

TEST(DraughtsDraw, ManMoveRestartsTheKingMoveCount) {
    const auto game = testing::game_from("W:WK30,K31,25,29:BK2,K3,K4");
    std::set<std::string> seen{game->position()};
    // Kings only for at least 30 plies, until a man can step without allowing a capture.
    play_quiet_plies(*game, seen, 30, king_move);
    while (!try_play_quiet(*game, seen, man_move)) {
        ASSERT_LT(game->ply(), 39U) << "no safe man move in " << game->position();
        play_quiet(*game, seen, king_move);
    }
    play_quiet_plies(*game, seen, 39, king_move);
    EXPECT_EQ(game->status(), Status{});
    play_quiet(*game, seen, king_move);
    EXPECT_EQ(game->status(), kMoveLimit);
}

TEST(DraughtsDraw, SmallEndingDrawsAfterFiveMovesEach) {
    const auto game = testing::game_from("W:WK30:BK3");
    std::set<std::string> seen{game->position()};
    play_quiet_plies(*game, seen, 9);
    EXPECT_EQ(game->status(), Status{});
    play_quiet(*game, seen, any_move);
    EXPECT_EQ(game->status(), kMoveLimit);
}

TEST(DraughtsDraw, SmallEndingCountsFromWhenTheMaterialArose) {
    // Two kings against two (art. 99) becomes two against one with the capture: a new count.
    const auto game = testing::game_from("W:WK29,K32:BK22,K3");
    std::set<std::string> seen{game->position()};
    ASSERT_TRUE(game->play("29x18").has_value());
    seen.insert(game->position());
    play_quiet_plies(*game, seen, 9);
    EXPECT_EQ(game->status(), Status{});  // ten plies played, nine since the capture
    play_quiet(*game, seen, any_move);
    EXPECT_EQ(game->status(), kMoveLimit);
}

TEST(DraughtsDraw, LargerEndingIsNotCountedAsSmall) {
    // Two kings and a man against two kings: not an art. 99 ending.
    const auto game = testing::game_from("W:WK29,K30,21:BK2,K3");
    std::set<std::string> seen{game->position()};
    play_quiet_plies(*game, seen, 12, king_move);
    EXPECT_EQ(game->status(), Status{});
}

TEST(DraughtsDraw, CrowningInASmallEndingRestartsTheCount) {
    // A king against a king and a man (art. 99); the man crowns at ply 5, making a king against
    // two kings: new material, so the five moves each count from there, not from ply 0.
    const auto game = testing::game_from("B:WK4:BK1,26");
    std::set<std::string> seen{game->position()};
    play_quiet_plies(*game, seen, 4, king_move);
    play_quiet(*game, seen, man_move);
    const std::string crowned = game->position();
    ASSERT_EQ(std::count(crowned.begin(), crowned.end(), 'K'), 3) << crowned;
    play_quiet_plies(*game, seen, 9);
    EXPECT_EQ(game->status(), Status{});  // ply 14, nine plies since the crowning
    play_quiet(*game, seen, any_move);
    EXPECT_EQ(game->status(), kMoveLimit);
    EXPECT_EQ(game->ply(), 15U);
}

TEST(DraughtsDraw, WinOnThePlyThatReachesTheLimitIsAWin) {
    // A king against a king and a man (art. 99), counted from the start. On the tenth ply White
    // shuts in Black's king on 29 behind its own man on 25 (the man cannot step onto 30 nor
    // take the king there): a side without a legal move loses, and that decides the game
    // before the move limit can draw it.
    const std::vector<std::string> nine_plies = {"5-9",   "16-12", "9-13",  "12-16", "13-17",
                                                 "16-20", "17-21", "20-16", "21-25"};
    const auto blocked = testing::game_from("B:WK16:BK29,5");
    testing::play_all(*blocked, nine_plies);
    ASSERT_EQ(blocked->status(), Status{});
    ASSERT_TRUE(blocked->play("16-30").has_value());
    EXPECT_EQ(blocked->status(), (Status{Outcome::first_wins, Reason::no_moves}));
    // Any other tenth ply leaves Black a move, and the limit draws.
    const auto free = testing::game_from("B:WK16:BK29,5");
    testing::play_all(*free, nine_plies);
    ASSERT_TRUE(free->play("16-19").has_value());
    EXPECT_EQ(free->status(), kMoveLimit);
}

bool on_long_diagonal(int square) {
    return (kLongDiagonal & bit(square)) != 0;
}

TEST(DraughtsDraw, ThreeKingsAgainstLoneKingOnLongDiagonalDrawAfterFiveMovesEach) {
    const auto game = testing::game_from("W:WK1,K2,K3:BK29");
    std::set<std::string> seen{game->position()};
    const MovePredicate stay_on = [](const Position& before, int, int to) {
        return before.side_to_move() == Side::first || on_long_diagonal(to);
    };
    play_quiet_plies(*game, seen, 9, stay_on);
    EXPECT_EQ(game->status(), Status{});
    play_quiet(*game, seen, stay_on);
    EXPECT_EQ(game->status(), kMoveLimit);
}

TEST(DraughtsDraw, LoneKingOffTheLongDiagonalIsNotCounted) {
    const auto game = testing::game_from("W:WK1,K2,K3:BK5");
    std::set<std::string> seen{game->position()};
    const MovePredicate stay_off = [](const Position& before, int, int to) {
        return before.side_to_move() == Side::first || !on_long_diagonal(to);
    };
    play_quiet_plies(*game, seen, 12, stay_off);
    EXPECT_EQ(game->status(), Status{});
}

TEST(DraughtsDraw, LoneKingLeavingTheLongDiagonalRestartsTheCount) {
    const auto game = testing::game_from("W:WK1,K2,K3:BK29");
    std::set<std::string> seen{game->position()};
    const auto black_on = [](const Position& before, int, int to) {
        return before.side_to_move() == Side::first || on_long_diagonal(to);
    };
    const auto black_off = [](const Position& before, int, int to) {
        return before.side_to_move() == Side::first || !on_long_diagonal(to);
    };
    // Four plies on the diagonal, then Black steps off and comes back as soon as it safely can.
    play_quiet_plies(*game, seen, 4, black_on);
    play_quiet_plies(*game, seen, 2, black_off);
    while (true) {
        ASSERT_EQ(game->status(), Status{});
        const bool black = game->turn() == Side::second;
        if (try_play_quiet(*game, seen, black_on)) {
            if (black) {
                break;
            }
            continue;
        }
        ASSERT_LT(game->ply(), 20U) << "the lone king found no way back";
        play_quiet(*game, seen, black_off);
    }
    const std::size_t returned_at = game->ply();
    ASSERT_GE(returned_at, 8U);
    play_quiet_plies(*game, seen, 9, black_on);
    EXPECT_EQ(game->status(), Status{});  // 9 plies since the ending arose again
    play_quiet(*game, seen, black_on);
    EXPECT_EQ(game->status(), kMoveLimit);
    EXPECT_EQ(game->ply(), returned_at + 10);
}

TEST(DraughtsDrawClock, CountsKingMovesAndRestartsOnManMovesAndCaptures) {
    const auto before = Position::from_fen("W:WK29,21:BK4,12");
    ASSERT_TRUE(before.has_value());
    DrawClock clock = DrawClock::start(*before);
    EXPECT_EQ(clock.king_move_plies, 0);
    Move king_step;
    king_step.from = 28;  // square 29
    king_step.to = 24;    // square 25
    const Position after_king = before->after(king_step);
    clock = clock.next(*before, king_step, after_king);
    EXPECT_EQ(clock.king_move_plies, 1);
    Move man_step;
    man_step.from = 20;  // square 21
    man_step.to = 16;    // square 17
    const Position after_man = after_king.after(man_step);
    EXPECT_EQ(clock.next(after_king, man_step, after_man).king_move_plies, 0);
    Move capture = king_step;
    capture.captured = bit(11);
    EXPECT_EQ(clock.next(*before, capture, before->after(capture)).king_move_plies, 0);
}

TEST(DraughtsDrawClock, ClassifiesTheCountedEndings) {
    const auto classify = [](std::string_view fen) {
        return classify_ending(Position::from_fen(fen).value());
    };
    EXPECT_EQ(classify("W:WK1,K2:BK3,K4"), Ending::small);
    EXPECT_EQ(classify("W:WK1,K2:BK3,12"), Ending::small);
    EXPECT_EQ(classify("W:WK1:BK3,12"), Ending::small);
    EXPECT_EQ(classify("B:WK1:BK3"), Ending::small);
    EXPECT_EQ(classify("W:W21:BK3"), Ending::none);        // a man against a king
    EXPECT_EQ(classify("W:WK1,K2,K5:BK3"), Ending::none);  // lone king off the diagonal
    EXPECT_EQ(classify("W:WK1,K2,K5:BK29"), Ending::long_diagonal);
    EXPECT_EQ(classify("W:WK1,21,22:BK15"), Ending::long_diagonal);
    EXPECT_EQ(classify("W:WK1,K2,21:BK6"), Ending::none);  // lone king off the diagonal
    EXPECT_EQ(classify("W:WK18:BK1,K2,K3"), Ending::long_diagonal);
    EXPECT_EQ(classify("W:WK1,K2,K3,K5:BK29"), Ending::none);  // four against one
}

TEST(DraughtsDrawClock, SmallEndingsDoNotDependOnWhichColourIsStronger) {
    const auto classify = [](std::string_view fen) {
        return classify_ending(Position::from_fen(fen).value());
    };
    EXPECT_EQ(classify("W:WK3,21:BK1"), Ending::small);       // 1K+1M v 1K
    EXPECT_EQ(classify("B:WK3,21:BK1,K2"), Ending::small);    // 1K+1M v 2K
    EXPECT_EQ(classify("W:WK3:BK1,K2"), Ending::small);       // 1K v 2K
    EXPECT_EQ(classify("W:WK3,21,22:BK1"), Ending::none);     // 1K+2M v 1K off the diagonal
    EXPECT_EQ(classify("W:WK3,21:BK1,K2,K5"), Ending::none);  // 1K+1M v 3K
}

}  // namespace
}  // namespace arbiter::rules::draughts
