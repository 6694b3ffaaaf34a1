// Game status through the shared face: checkmate and stalemate lose, the repetition ruling
// (perpetual check, perpetual chase, plain repetition), 120 plies without capture, and
// insufficient material.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>

#include "common/rules/game.hpp"
#include "common/rules/xiangqi/repetition.hpp"
#include "helpers.hpp"

namespace arbiter::rules::xiangqi {
namespace {

using test::fen_of;

std::unique_ptr<Game> game_from(const std::string& fen) {
    auto game = make_game(Variant::xiangqi, fen);
    EXPECT_TRUE(game) << fen << ": " << (game ? "" : game.error().message);
    return game ? std::move(*game) : nullptr;
}

// Plays `moves`; every position before the last move must still be ongoing.
void play_all(Game& game, const std::vector<std::string>& moves) {
    for (const std::string& move : moves) {
        ASSERT_FALSE(game.status().over()) << "over before " << move;
        ASSERT_TRUE(game.play(move)) << move;
    }
}

std::vector<std::string> cycle(const std::vector<std::string>& moves, int times) {
    std::vector<std::string> out;
    for (int i = 0; i < times; ++i) {
        out.insert(out.end(), moves.begin(), moves.end());
    }
    return out;
}

TEST(XiangqiStatus, CheckmateLosesForTheSideToMove) {
    auto game = game_from(fen_of({"K d1", "R a9", "R b8", "k e10"}));
    ASSERT_TRUE(game);
    EXPECT_FALSE(game->status().over());
    ASSERT_TRUE(game->play("b8b10"));
    EXPECT_TRUE(game->in_check());
    EXPECT_EQ(game->status(), (Status{Outcome::first_wins, Reason::checkmate}));
    EXPECT_TRUE(game->legal_moves().empty());
    EXPECT_FALSE(game->play("e10e9"));
}

TEST(XiangqiStatus, CheckThatCanBeAnsweredIsNotMate) {
    auto game = game_from(fen_of({"K d1", "R b8", "k e10"}));
    ASSERT_TRUE(game);
    ASSERT_TRUE(game->play("b8b10"));
    EXPECT_TRUE(game->in_check());
    EXPECT_FALSE(game->status().over());
    EXPECT_EQ(game->legal_moves(), (std::vector<std::string>{"e10e9"}));
}

// The legal moves depend on the position alone: after captures (which reorder the generator's
// piece list), the game lists them as a game made from its position does, in the same order.
TEST(XiangqiStatus, LegalMovesAreListedInTheOrderOfThePositionAlone) {
    auto game = game_from(std::string(kStartFen));
    ASSERT_TRUE(game);
    play_all(*game, {"h3h10", "i10h10", "b3b10", "a10b10", "h1g3", "c7c6"});
    auto fresh = game_from(game->position());
    ASSERT_TRUE(fresh);
    EXPECT_EQ(game->legal_moves(), fresh->legal_moves());
}

TEST(XiangqiStatus, StalemateLosesForTheSideToMove) {
    auto game = game_from(fen_of({"K d1", "R d2", "R f2", "N g8", "k e10"}, 'b'));
    ASSERT_TRUE(game);
    EXPECT_FALSE(game->in_check());
    EXPECT_EQ(game->status(), (Status{Outcome::first_wins, Reason::stalemate}));
    EXPECT_TRUE(game->legal_moves().empty());
    auto with_a_move = game_from(fen_of({"K d1", "R d2", "R f2", "N g8", "k e10", "p a5"}, 'b'));
    ASSERT_TRUE(with_a_move);
    EXPECT_FALSE(with_a_move->status().over());
}

TEST(XiangqiStatus, PerpetualCheckLoses) {
    auto game = game_from(fen_of({"K d1", "R a1", "k e10"}));
    ASSERT_TRUE(game);
    std::vector<std::string> moves = {"a1a10"};
    const auto rest = cycle({"e10e9", "a10a9", "e9e10", "a9a10"}, 2);
    moves.insert(moves.end(), rest.begin(), rest.end());
    play_all(*game, moves);
    EXPECT_EQ(game->status(), (Status{Outcome::second_wins, Reason::perpetual_check}));
    EXPECT_TRUE(game->legal_moves().empty());
}

TEST(XiangqiStatus, MutualPerpetualCheckDraws) {
    // Red's cannon i9 aims along rank 9 at the general on d9, black's cannon f10 down the f-file
    // at the general on f3; both lines cross on f9. The red horse (h8 <-> f9) and the black
    // advisor (f8 <-> e9) each block the check they face and uncover or make their own.
    auto game = game_from(fen_of({"K f3", "C i9", "N h8", "k d9", "c f10", "a f8"}));
    ASSERT_TRUE(game);
    EXPECT_TRUE(game->in_check());
    for (const std::string& move : cycle({"h8f9", "f8e9", "f9h8", "e9f8"}, 2)) {
        ASSERT_FALSE(game->status().over()) << move;
        ASSERT_TRUE(game->play(move)) << move;
        EXPECT_TRUE(game->in_check()) << move << " gives check";
    }
    EXPECT_EQ(game->status(), (Status{Outcome::draw, Reason::repetition}));
}

TEST(XiangqiStatus, PerpetualChaseOfAnUnprotectedHorseLoses) {
    auto game = game_from(fen_of({"K d1", "R h2", "n i10", "k e10"}));
    ASSERT_TRUE(game);
    play_all(*game, cycle({"h2i2", "i10h8", "i2h2", "h8i10"}, 2));
    EXPECT_EQ(game->status(), (Status{Outcome::second_wins, Reason::perpetual_chase}));
}

TEST(XiangqiStatus, PerpetualChaseOfAChariotByAHorseLoses) {
    // The horse hunts the chariot between i10 and i9; the chariot's counter-attack on the horse
    // at g9 is no chase, as the red chariot on g1 protects it.
    auto game = game_from(fen_of({"K e1", "R g1", "N h7", "k d10", "r i10"}));
    ASSERT_TRUE(game);
    play_all(*game, cycle({"h7g9", "i10i9", "g9h7", "i9i10"}, 2));
    EXPECT_EQ(game->status(), (Status{Outcome::second_wins, Reason::perpetual_chase}));
}

TEST(XiangqiStatus, AttackingAProtectedPieceIsNoChase) {
    // The black chariot on h10 protects the horse on i10 and on h8; when the horse steps aside
    // the two chariots face each other, which offers an exchange rather than chasing.
    auto game = game_from(fen_of({"K d1", "R h2", "n i10", "r h10", "k e10"}));
    ASSERT_TRUE(game);
    play_all(*game, cycle({"h2i2", "i10h8", "i2h2", "h8i10"}, 2));
    EXPECT_EQ(game->status(), (Status{Outcome::draw, Reason::repetition}));
}

TEST(XiangqiStatus, PlainThreefoldRepetitionDraws) {
    auto game = game_from(fen_of({"K d1", "R a2", "n i10", "k e10"}));
    ASSERT_TRUE(game);
    const auto moves = cycle({"a2a3", "i10h8", "a3a2", "h8i10"}, 2);
    play_all(*game, std::vector<std::string>(moves.begin(), moves.end() - 1));
    EXPECT_FALSE(game->status().over()) << "only the second occurrence so far";
    ASSERT_TRUE(game->play(moves.back()));
    EXPECT_EQ(game->status(), (Status{Outcome::draw, Reason::repetition}));
}

TEST(XiangqiRepetition, MutualPerpetualCheckDraws) {
    // Positions A B A B A: both sides checked with every move of the cycle.
    const std::vector<std::uint64_t> hashes = {1, 2, 1, 2, 1};
    std::vector<PlyRecord> plies(4, PlyRecord{true, 0});
    EXPECT_EQ(judge_repetition(hashes, plies, Color::red),
              (Status{Outcome::draw, Reason::repetition}));
    plies[1].gave_check = false;  // black missed one check: red alone checked throughout
    EXPECT_EQ(judge_repetition(hashes, plies, Color::red),
              (Status{Outcome::second_wins, Reason::perpetual_check}));
    EXPECT_EQ(judge_repetition({1, 2, 1, 2}, {{}, {}, {}}, Color::red), std::nullopt);
}

TEST(XiangqiRepetition, ChaseMustTargetTheSamePieceEveryMove) {
    const std::vector<std::uint64_t> hashes = {1, 2, 1, 2, 1};
    std::vector<PlyRecord> same = {{false, 1U << 20}, {}, {false, 1U << 20}, {}};
    EXPECT_EQ(judge_repetition(hashes, same, Color::red),
              (Status{Outcome::second_wins, Reason::perpetual_chase}));
    std::vector<PlyRecord> different = {{false, 1U << 20}, {}, {false, 1U << 21}, {}};
    EXPECT_EQ(judge_repetition(hashes, different, Color::red),
              (Status{Outcome::draw, Reason::repetition}));
    std::vector<PlyRecord> both = {
        {false, 1U << 20}, {false, 1U << 3}, {false, 1U << 20}, {false, 1U << 3}};
    EXPECT_EQ(judge_repetition(hashes, both, Color::red),
              (Status{Outcome::draw, Reason::repetition}));
    std::vector<PlyRecord> check_beats_chase = {
        {true, 0}, {false, 1U << 3}, {true, 0}, {false, 1U << 3}};
    EXPECT_EQ(judge_repetition(hashes, check_beats_chase, Color::red),
              (Status{Outcome::second_wins, Reason::perpetual_check}));
}

TEST(XiangqiRepetition, OneCheckOneChaseDrawsUnlessTheCheckAlsoChases) {
    // AXF rules, rule 12 (diagram 13): "one check one chase" is a draw; a move that only checks
    // chases nothing, so the chase is not made with every move.
    const std::vector<std::uint64_t> hashes = {1, 2, 1, 2, 1};
    const std::vector<PlyRecord> check_then_chase = {{true, 0}, {}, {false, 1U << 20}, {}};
    EXPECT_EQ(judge_repetition(hashes, check_then_chase, Color::red),
              (Status{Outcome::draw, Reason::repetition}));
    // A check that also attacks the chased piece is a chase as well (Fairy-Stockfish's AXF test
    // set, below): chasing the same piece with every move loses.
    const std::vector<PlyRecord> check_and_chase = {{true, 1U << 20}, {}, {false, 1U << 20}, {}};
    EXPECT_EQ(judge_repetition(hashes, check_and_chase, Color::red),
              (Status{Outcome::second_wins, Reason::perpetual_chase}));
}

TEST(XiangqiStatus, CheckThatAlsoAttacksTheChasedPieceIsPartOfTheChase) {
    // Black's chariot hunts the red cannon; its step to b4 also uncovers the cannon a2's check
    // through the advisor e2, and the red cannon blocks it. Black chased the cannon with every
    // move and loses.
    auto rook = game_from("3k5/9/9/9/9/9/9/9/cr1CAK3/9 w - - 0 1");
    ASSERT_TRUE(rook);
    play_all(*rook, cycle({"d2d4", "b2b4", "d4d2", "b4b2"}, 2));
    EXPECT_EQ(rook->status(), (Status{Outcome::first_wins, Reason::perpetual_chase}));
    // Red's cannon f7 attacks the crossed soldier f2 through the black cannon when the red
    // cannon f5 steps aside, and through the red cannon when it steps back, which also checks
    // through f7. Red chased f2 with every move.
    auto cannons = game_from("5k3/9/9/5C3/5c3/5C3/9/9/5p3/4K4 w - - 0 1");
    ASSERT_TRUE(cannons);
    play_all(*cannons, cycle({"f5d5", "f6d6", "d5f5", "d6f6"}, 2));
    EXPECT_EQ(cannons->status(), (Status{Outcome::second_wins, Reason::perpetual_chase}));
}

TEST(XiangqiRepetition, HorseAttackOnAChariotChasesEvenWhenProtected) {
    auto chariot = Position::from_fen(fen_of({"K e1", "N c3", "r d6", "r d9", "k f10"}));
    ASSERT_TRUE(chariot);
    const Move move = *parse_wire("c3e4");
    EXPECT_EQ(chased_pieces(*chariot, move), 1U << chariot->id_at(make_square(3, 5)));
    auto protected_cannon = Position::from_fen(fen_of({"K e1", "N c3", "c d6", "r d9", "k f10"}));
    ASSERT_TRUE(protected_cannon);
    EXPECT_EQ(chased_pieces(*protected_cannon, move), 0U);
    auto lone_cannon = Position::from_fen(fen_of({"K e1", "N c3", "c d6", "k f10"}));
    ASSERT_TRUE(lone_cannon);
    EXPECT_NE(chased_pieces(*lone_cannon, move), 0U);
}

TEST(XiangqiRepetition, ChaseCountsOnlyThreatsMadeByPiecesThatMayNotChaseFreely) {
    auto position = Position::from_fen(fen_of({"K e1", "R a5", "P c6", "n a8", "n c8", "k d10"}));
    ASSERT_TRUE(position);
    EXPECT_EQ(chased_pieces(*position, *parse_wire("e1f1")), 0U)
        << "the chariot's threat on a8 only persists";
    EXPECT_EQ(chased_pieces(*position, *parse_wire("a5a6")), 0U)
        << "the chariot moves, but its threat on a8 was already there (AXF appendix)";
    EXPECT_EQ(chased_pieces(*position, *parse_wire("a5a7")), 0U);
    auto aside = Position::from_fen(fen_of({"K e1", "R b5", "P c6", "n a8", "n c8", "k d10"}));
    ASSERT_TRUE(aside);
    EXPECT_EQ(chased_pieces(*aside, *parse_wire("b5a5")), 1U << aside->id_at(make_square(0, 7)))
        << "the chariot moves onto the horse's file: a new threat";
    EXPECT_EQ(chased_pieces(*position, *parse_wire("a5b5")), 0U);
    EXPECT_NE(chased_pieces(*position, *parse_wire("c6c7")), 0U)
        << "a soldier across the river chases like any other piece";
    auto home = Position::from_fen(fen_of({"K e1", "P c4", "n c6", "k d10"}));
    ASSERT_TRUE(home);
    EXPECT_EQ(chased_pieces(*home, *parse_wire("c4c5")), 0U)
        << "a soldier that has not crossed the river chases freely";
    auto soldier = Position::from_fen(fen_of({"K e1", "R b5", "p a7", "k d10"}));
    ASSERT_TRUE(soldier);
    EXPECT_EQ(chased_pieces(*soldier, *parse_wire("b5a5")), 0U)
        << "a soldier on its own side of the river may be attacked freely";
    auto crossed = Position::from_fen(fen_of({"K e1", "R b2", "p a3", "k d10"}));
    ASSERT_TRUE(crossed);
    EXPECT_NE(chased_pieces(*crossed, *parse_wire("b2b3")), 0U) << "a crossed soldier may not";
}

TEST(XiangqiStatus, AttackThatOnlyPersistsAlongTheLineIsNoChase) {
    // AXF rules, appendix "Example of non-perpetual chase" (R2+1 c8+1 R2-1 c8-1): the chariot
    // and the unprotected cannon step back and forth on one file; every chariot move threatens
    // the cannon, but the threat was already there before it, so no move chases. Draw.
    auto game = game_from(fen_of({"K e1", "R h1", "c h5", "k d10"}));
    ASSERT_TRUE(game);
    play_all(*game, cycle({"h1h2", "h5h4", "h2h1", "h4h5"}, 2));
    EXPECT_EQ(game->status(), (Status{Outcome::draw, Reason::repetition}));
    // The same with more material (Fairy-Stockfish's test of this AXF example, its "D106").
    auto d106 = game_from("3k2b2/4P4/4b4/9/8p/6Bc1/6P1P/3AB4/4pp3/1p1K3R1 w - - 0 1");
    ASSERT_TRUE(d106);
    play_all(*d106, cycle({"h1h2", "h5h4", "h2h1", "h4h5"}, 2));
    EXPECT_EQ(d106->status(), (Status{Outcome::draw, Reason::repetition}));
}

TEST(XiangqiStatus, CheckEvasionChasesNothingTheEvaderAlreadyThreatened) {
    // Red's chariot hunts the unprotected horse (h2 <-> i2 against h8 <-> i10), but between its
    // moves black's chariot checks (d5 <-> e5) and red's general must step aside (e1 <-> d1).
    // The evasion leaves the chariot's threat as it was: the capture was only barred by the
    // check, so the evasion creates no threat (the threat existed before it; see H. G. Muller
    // on the Asian rules). Red chases on half of its moves, black checks on half: a draw.
    auto game = game_from(fen_of({"K e1", "R i2", "r d5", "n h8", "k f10"}));
    ASSERT_TRUE(game);
    play_all(*game, cycle({"i2h2", "d5e5", "e1d1", "h8i10", "h2i2", "e5d5", "d1e1", "i10h8"}, 2));
    EXPECT_EQ(game->status(), (Status{Outcome::draw, Reason::repetition}));
}

TEST(XiangqiStatus, PerpetualChaseOfAPinnedChariotLoses) {
    // AXF rules, diagrams 63-66: a chariot pinned to its file may not be chased perpetually by
    // the opponent's chariot; as it cannot take back, the attack is no offer to exchange. Red's
    // chariot on e2 pins the black chariot to the e-file in front of its general; the red chariot
    // on the a-file follows it up and down.
    auto game = game_from(fen_of({"K d1", "R a7", "R e2", "r e8", "k e10"}));
    ASSERT_TRUE(game);
    play_all(*game, cycle({"a7a8", "e8e7", "a8a7", "e7e8"}, 2));
    EXPECT_EQ(game->status(), (Status{Outcome::second_wins, Reason::perpetual_chase}));
}

TEST(XiangqiRepetition, ChariotFacingAChariotThatCanTakeBackOnlyOffersAnExchange) {
    const Move move = *parse_wire("a7a8");
    auto free = Position::from_fen(fen_of({"K d1", "R a7", "r e8", "k e10"}));
    ASSERT_TRUE(free);
    EXPECT_EQ(chased_pieces(*free, move), 0U) << "the black chariot may take on a8";
    auto pinned = Position::from_fen(fen_of({"K d1", "R a7", "R e2", "r e8", "k e10"}));
    ASSERT_TRUE(pinned);
    EXPECT_EQ(chased_pieces(*pinned, move), 1U << pinned->id_at(make_square(4, 7)))
        << "pinned by the chariot on e2, the black chariot cannot take back";
}

// The game judges a repetition from records computed only once a position occurs for the third
// time. Its verdict must equal judging records taken at every ply, whatever the moves: random
// games in small endgames (where repetitions, checks and chases are frequent) are played
// through the game face beside a position that records every ply.
TEST(XiangqiRepetition, VerdictEqualsRecordingEveryPly) {
    const std::vector<std::string> starts = {
        fen_of({"K d1", "R h2", "n i10", "k e10"}),
        fen_of({"K e1", "R g1", "N h7", "k d10", "r i10"}),
        fen_of({"K f3", "C i9", "N h8", "k d9", "c f10", "a f8"}),
        fen_of({"K e1", "R a5", "P c6", "n a8", "c c8", "k d10"}, 'b'),
        fen_of({"K d1", "R a1", "k e10"}),
        fen_of({"K d1", "R a7", "R e2", "r e8", "k e10"}),
    };
    std::mt19937 random(20261130);
    int repetitions = 0;
    int chases_or_checks = 0;
    for (int round = 0; round < 400; ++round) {
        const std::string& fen = starts[round % starts.size()];
        auto game = game_from(fen);
        ASSERT_TRUE(game);
        auto position = Position::from_fen(fen);
        ASSERT_TRUE(position);
        const Color first_mover = position->side_to_move();
        std::vector<std::uint64_t> hashes = {position->hash()};
        std::vector<PlyRecord> records;
        std::vector<Move> played;
        while (!game->status().over()) {
            const auto legal = game->legal_moves();
            ASSERT_FALSE(legal.empty());
            // Mostly undo one's own move of two plies ago (a cycle, keeping whatever checks or
            // chases the moves before made), sometimes another move: mostly one that checks or
            // chases if there is one.
            std::string wire = legal[random() % legal.size()];
            if (random() % 4 != 0) {
                std::vector<std::string> forcing;
                for (const std::string& candidate : legal) {
                    const PlyRecord record = record_ply(*position, *parse_wire(candidate));
                    if (record.gave_check || record.chased != 0) {
                        forcing.push_back(candidate);
                    }
                }
                if (!forcing.empty()) {
                    wire = forcing[random() % forcing.size()];
                }
            }
            if (records.size() >= 2 && random() % 5 != 0) {
                const Move back = played[played.size() - 2];
                const std::string undo = wire_notation(Move(back.to(), back.from()));
                if (std::find(legal.begin(), legal.end(), undo) != legal.end()) {
                    wire = undo;
                }
            }
            const Move move = *parse_wire(wire);
            played.push_back(move);
            records.push_back(record_ply(*position, move));
            *position = position->after(move);
            hashes.push_back(position->hash());
            ASSERT_TRUE(game->play(wire));
        }
        const Status status = game->status();
        const auto expected = judge_repetition(hashes, records, first_mover);
        const bool by_repetition = status.reason == Reason::repetition ||
                                   status.reason == Reason::perpetual_check ||
                                   status.reason == Reason::perpetual_chase;
        ASSERT_EQ(by_repetition, expected.has_value()) << fen << " round " << round;
        if (expected) {
            ASSERT_EQ(status, *expected) << fen << " round " << round;
            ++repetitions;
            chases_or_checks += status.reason != Reason::repetition;
        }
    }
    // The comparison covered every verdict, not only plain draws.
    EXPECT_GT(repetitions, 300);
    EXPECT_GT(chases_or_checks, 20);
}

// Repetition cases from Fairy-Stockfish's test of its AXF chasing rules (test.py,
// test_is_optional_game_end), with its verdicts. Left out: its soldier chase (a soldier across
// the river chases here; AXF rule 29 lets soldiers chase) and its two diagram-39 cases
// (AXF rule 19: a chariot held by a horse may not be chased at all; here a chase must be made
// with every move, see README), and its flying-general case, which it leaves without a verdict.
TEST(XiangqiRepetition, AgreesWithFairyStockfishAxfCases) {
    struct Case {
        std::string fen;
        std::vector<std::string> moves;
        Status expected;
    };
    const Status red_loses{Outcome::second_wins, Reason::perpetual_chase};
    const Status black_loses{Outcome::first_wins, Reason::perpetual_chase};
    const Status draw{Outcome::draw, Reason::repetition};
    auto with_lead = [](std::vector<std::string> lead, const std::vector<std::string>& wheel) {
        const auto rest = cycle(wheel, 2);
        lead.insert(lead.end(), rest.begin(), rest.end());
        return lead;
    };
    const std::vector<Case> cases = {
        // direct and discovered chases by a cannon
        {"2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1",
         with_lead({"c3a3"}, {"a8b8", "a3b3", "b8a8", "b3a3"}), red_loses},
        {"2bakabr1/9/9/r1p1p1p2/p7R/P8/9/9/9/CC1AKA3 w - - 0 1",
         with_lead({"a5a6"}, {"a7b7", "a6b6", "b7a7", "b6a6"}), red_loses},
        // mutual chase
        {"4k4/7n1/9/4pR3/9/9/4P4/9/9/4K4 w - - 0 1",
         with_lead({"f7h7"}, {"h9f8", "h7h8", "f8g6", "h8g8", "g6i7", "g8g7", "i7h9", "g7h7"}),
         draw},
        // perpetual check against intermittent checks, and by a soldier
        {"9/3kc4/3a5/3P5/9/4p4/9/4K4/9/3C5 w - - 0 1", cycle({"d7e7", "e5d5", "e7d7", "d5e5"}, 2),
         Status{Outcome::first_wins, Reason::perpetual_check}},
        {"3k5/9/9/9/9/5p3/9/5p3/5K3/5C3 w - - 0 1", cycle({"f2e2", "f3e3", "e2f2", "e3f3"}, 2),
         Status{Outcome::first_wins, Reason::perpetual_check}},
        {"3k5/4P4/4b4/3C5/4c4/9/9/9/9/5K3 w - - 0 1", cycle({"d7e7", "e8g6", "e7d7", "g6e8"}, 2),
         black_loses},
        {"4k4/9/4b4/2c2nR2/9/9/9/9/9/3K5 w - - 0 1", cycle({"g7g6", "f7g9", "g6g7", "g9f7"}, 2),
         black_loses},
        {"3P5/3k5/3nn4/9/9/9/9/9/9/5K3 w - - 0 1", cycle({"d10e10", "d9e9", "e10d10", "e9d9"}, 2),
         black_loses},
        {"4ck3/9/9/9/9/2r1R4/9/9/4A4/3AK4 w - - 0 1", cycle({"e5e4", "c5c4", "e4e5", "c4c5"}, 2),
         black_loses},
        {"4k4/9/9/c1c6/9/r8/9/9/C8/3K5 w - - 0 1", cycle({"a2c2", "a5c5", "c2a2", "c5a5"}, 2),
         black_loses},
        // mutual perpetual checks
        {"9/4c4/3k5/3r5/9/9/4C4/9/4K4/3R5 w - - 0 1", cycle({"e4d4", "d7e7", "d4e4", "e7d7"}, 2),
         draw},
        {"3k5/6c2/9/7P1/6c2/6P2/9/9/9/5K3 w - - 0 1", cycle({"h7g7", "g6h6", "g7h7", "h6g6"}, 2),
         draw},
        {"4ck3/9/9/9/9/2r1R1N2/6N2/9/4A4/3AK4 w - - 0 1",
         cycle({"e5e4", "c5c4", "e4e5", "c4c5"}, 2), draw},
        {"5k3/9/9/c8/9/P1P6/9/2C6/9/3K5 w - - 0 1", cycle({"c3a3", "a7c7", "a3c3", "c7a7"}, 2),
         draw},
        {"4k4/9/r1r6/9/PPPP5/9/9/9/1C7/5K3 w - - 0 1",
         with_lead({"b2a2"}, {"a8b8", "a2c2", "c8d8", "c2b2", "b8a8", "b2d2", "d8c8", "d2a2"}),
         draw},
        // protection undermined by pins, discovered attacks, the flying general, a cannon
        {"4k4/4c4/9/4p4/9/9/3rn4/3NR4/4K4/9 b - - 0 1", cycle({"e4g5", "e2f2", "g5e4", "f2e2"}, 2),
         black_loses},
        {"5k3/9/9/9/9/1N2P1C2/9/4BC3/9/cr1RK4 w - - 0 1",
         cycle({"b5c3", "b1c1", "c3b5", "c1b1"}, 2), black_loses},
        {"5k3/9/9/9/9/4c4/3n5/3NBA3/4A4/4K4 w - - 0 1", cycle({"e1d1", "e5d5", "d1e1", "d5e5"}, 2),
         black_loses},
        {"5k3/9/9/9/9/4c4/3r5/3NB4/4A4/4K4 w - - 0 1", cycle({"e1d1", "e5d5", "d1e1", "d5e5"}, 2),
         black_loses},
        {"5k3/9/9/9/9/9/9/9/9/3NK1cr1 w - - 0 1", cycle({"d1c3", "h1h3", "c3d1", "h3h1"}, 2),
         black_loses},
        {"3k5/9/9/3n5/9/9/3r5/9/9/3NK4 w - - 0 1", cycle({"d1c3", "d4c4", "c3d1", "c4d4"}, 2),
         draw},
        {"3k5/9/9/9/9/9/3r5/9/9/3NK4 w - - 0 1", cycle({"d1c3", "d4c4", "c3d1", "c4d4"}, 2),
         black_loses},
        {"5k3/9/9/9/9/1C7/1r7/9/1C7/4K4 w - - 0 1", cycle({"b5c5", "b4c4", "c5b5", "c4b4"}, 2),
         black_loses},
        {"4ka3/c2R1R2c/4b4/9/9/9/9/9/9/4K4 w - - 0 1", cycle({"f9f7", "f10e9", "f7f9", "e9f10"}, 2),
         draw},
    };
    for (const Case& c : cases) {
        auto game = game_from(c.fen);
        ASSERT_TRUE(game);
        play_all(*game, c.moves);
        EXPECT_EQ(game->status(), c.expected) << c.fen;
    }
}

TEST(XiangqiStatus, MoveLimitAfter120PliesWithoutCapture) {
    auto game = game_from(fen_of({"K d1", "R a1", "p a5", "k e10"}, 'w', 118));
    ASSERT_TRUE(game);
    ASSERT_TRUE(game->play("a1b1"));
    EXPECT_FALSE(game->status().over()) << "119 plies";
    ASSERT_TRUE(game->play("a5a4"));
    EXPECT_EQ(game->status(), (Status{Outcome::draw, Reason::move_limit}))
        << "a soldier move does not reset the count";
}

TEST(XiangqiStatus, MateOnThe120thPlyWinsRatherThanDraws) {
    // As in chess (FIDE 9.6: a mate on the move that reaches the limit stands), no legal move
    // is judged before the move limit.
    auto game = game_from(fen_of({"K d1", "R a9", "R b8", "k e10"}, 'w', 119));
    ASSERT_TRUE(game);
    EXPECT_FALSE(game->status().over());
    ASSERT_TRUE(game->play("b8b10"));
    EXPECT_EQ(game->status(), (Status{Outcome::first_wins, Reason::checkmate}));
    auto quiet = game_from(fen_of({"K d1", "R a9", "R b8", "k e10"}, 'w', 119));
    ASSERT_TRUE(quiet);
    ASSERT_TRUE(quiet->play("b8c8"));
    EXPECT_EQ(quiet->status(), (Status{Outcome::draw, Reason::move_limit}));
}

TEST(XiangqiStatus, CaptureResetsTheMoveLimit) {
    auto game = game_from(fen_of({"K d1", "R a1", "p a5", "k e10"}, 'w', 119));
    ASSERT_TRUE(game);
    ASSERT_TRUE(game->play("a1a5"));
    EXPECT_FALSE(game->status().over());
    EXPECT_NE(game->position().find(" b - - 0 1"), std::string::npos);
}

TEST(XiangqiStatus, SoldierMoveDoesNotResetTheMoveLimit) {
    auto game = game_from(fen_of({"K d1", "P e6", "R a1", "k f10"}, 'w', 119));
    ASSERT_TRUE(game);
    ASSERT_TRUE(game->play("e6e7"));
    EXPECT_EQ(game->status(), (Status{Outcome::draw, Reason::move_limit}));
}

TEST(XiangqiStatus, InsufficientMaterialWhenNothingCanCrossTheRiver) {
    auto bare = game_from(fen_of({"K e1", "A f1", "B c1", "a e9", "b g10", "k d10"}));
    ASSERT_TRUE(bare);
    EXPECT_EQ(bare->status(), (Status{Outcome::draw, Reason::insufficient_material}));
    EXPECT_FALSE(bare->can_win(Side::first));
    EXPECT_FALSE(bare->can_win(Side::second));
    auto soldier = game_from(fen_of({"K e1", "A f1", "B c1", "a e9", "p a5", "k d10"}));
    ASSERT_TRUE(soldier);
    EXPECT_FALSE(soldier->status().over());
    // Red cannot attack the black general, but the position is not dead: a side with general,
    // advisors and elephants still wins if the opponent runs out of legal moves or checks or
    // chases perpetually (BareGeneralCanWinByTheOpponentsPerpetualCheck).
    EXPECT_TRUE(soldier->can_win(Side::first));
    EXPECT_TRUE(soldier->can_win(Side::second));
    // Taking the last piece able to cross the river ends the game at once.
    auto capture = game_from(fen_of({"K e1", "P c6", "b a8", "k d10"}, 'b'));
    ASSERT_TRUE(capture);
    ASSERT_TRUE(capture->play("a8c6"));
    EXPECT_EQ(capture->status(), (Status{Outcome::draw, Reason::insufficient_material}));
}

TEST(XiangqiStatus, BareGeneralCanWinByTheOpponentsPerpetualCheck) {
    // A flag fall against a side that can still win is a loss: the bare red general wins here
    // because black's chariot checks with every move of the repeated cycle.
    auto game = game_from("3k5/9/9/9/9/9/9/9/r8/4K4 b - - 0 1");
    ASSERT_TRUE(game);
    for (const char* move : {"a2a1", "e1e2", "a1a2", "e2e1", "a2a1", "e1e2", "a1a2", "e2e1"}) {
        EXPECT_TRUE(game->can_win(Side::first)) << "before " << move;
        EXPECT_TRUE(game->can_win(Side::second)) << "before " << move;
        ASSERT_FALSE(game->status().over()) << "over before " << move;
        ASSERT_TRUE(game->play(move)) << move;
    }
    EXPECT_EQ(game->status(), (Status{Outcome::first_wins, Reason::perpetual_check}));
}

TEST(XiangqiStatus, StartCanWinForBothAndClonesAreIndependent) {
    auto game = game_from("startpos");
    ASSERT_TRUE(game);
    EXPECT_TRUE(game->can_win(Side::first));
    EXPECT_TRUE(game->can_win(Side::second));
    auto copy = game->clone();
    ASSERT_TRUE(copy->play("h3e3"));
    EXPECT_EQ(game->ply(), 0U);
    EXPECT_EQ(copy->ply(), 1U);
    EXPECT_EQ(copy->variant(), Variant::xiangqi);
}

}  // namespace
}  // namespace arbiter::rules::xiangqi
