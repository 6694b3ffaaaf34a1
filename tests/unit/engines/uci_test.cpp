// The UCI text helpers, the level mapping and the --engine flag of server/engine.

#include <gtest/gtest.h>

#include "common/rules/game.hpp"
#include "server/engine/builtin_agent.hpp"
#include "server/engine/engine_registry.hpp"
#include "server/engine/think_budget.hpp"
#include "server/engine/uci.hpp"

namespace arbiter::server::engines {
namespace {

using Kind = UciLine::Kind;

TEST(UciLineParse, HandshakeWordsAreRecognised) {
    EXPECT_EQ(parse_uci_line("uciok").kind, Kind::uciok);
    EXPECT_EQ(parse_uci_line("readyok").kind, Kind::readyok);
    EXPECT_EQ(parse_uci_line("  readyok  ").kind, Kind::readyok);
    EXPECT_EQ(parse_uci_line("id name Stockfish 15.1").kind, Kind::other);
    EXPECT_EQ(parse_uci_line("info depth 3 score cp 20 pv e2e4").kind, Kind::other);
    EXPECT_EQ(parse_uci_line("").kind, Kind::other);
    EXPECT_EQ(parse_uci_line("uciokay").kind, Kind::other);
}

TEST(UciLineParse, BestmoveGivesTheMoveAndIgnoresPonder) {
    const UciLine line = parse_uci_line("bestmove e7e8q ponder d1d8");
    EXPECT_EQ(line.kind, Kind::bestmove);
    EXPECT_EQ(line.word, "e7e8q");
    EXPECT_EQ(parse_uci_line("bestmove h10h9").word, "h10h9");
    EXPECT_EQ(parse_uci_line("bestmove (none)").word, "(none)");
}

TEST(UciLineParse, BestmoveWithoutMoveHasAnEmptyWord) {
    const UciLine line = parse_uci_line("bestmove");
    EXPECT_EQ(line.kind, Kind::bestmove);
    EXPECT_EQ(line.word, "");
}

TEST(UciLineParse, OptionNamesMayHaveSpacesAndSpinBounds) {
    const UciLine skill =
        parse_uci_line("option name Skill Level type spin default 20 min 0 max 20");
    EXPECT_EQ(skill.kind, Kind::option);
    EXPECT_EQ(skill.word, "Skill Level");
    EXPECT_EQ(skill.min, 0);
    EXPECT_EQ(skill.max, 20);
    const UciLine elo =
        parse_uci_line("option name UCI_Elo type spin default 1350 min 1350 max 2850");
    EXPECT_EQ(elo.word, "UCI_Elo");
    EXPECT_EQ(elo.min, 1350);
    EXPECT_EQ(elo.max, 2850);
    const UciLine check = parse_uci_line("option name Ponder type check default false");
    EXPECT_EQ(check.word, "Ponder");
    EXPECT_FALSE(check.min.has_value());
}

TEST(UciLineParse, MalformedOptionIsOther) {
    EXPECT_EQ(parse_uci_line("option").kind, Kind::other);
    EXPECT_EQ(parse_uci_line("option name").kind, Kind::other);
    EXPECT_EQ(parse_uci_line("option type spin").kind, Kind::other);
}

TEST(UciOptionsSeen, OnlyTheOptionsTheServerSetsAreKept) {
    // An engine may announce options without end: none of those is kept.
    UciOptions options;
    for (int i = 0; i < 10000; ++i) {
        options.note(
            parse_uci_line("option name Opt" + std::to_string(i) + " type check default false"));
    }
    options.note(parse_uci_line("option name Hash type spin default 16 min 1 max 33554432"));
    options.note(parse_uci_line("info depth 1 score cp 0"));
    EXPECT_EQ(options, UciOptions{});

    options.note(parse_uci_line("option name Threads type spin default 1 min 1 max 1024"));
    options.note(parse_uci_line("option name Skill Level type spin default 20 min 0 max 20"));
    options.note(parse_uci_line("option name UCI_LimitStrength type check default false"));
    options.note(parse_uci_line("option name UCI_Elo type spin default 1320 min 1320 max 3190"));
    EXPECT_TRUE(options.threads);
    EXPECT_TRUE(options.skill_level);
    EXPECT_TRUE(options.limit_strength);
    EXPECT_TRUE(options.elo);
    EXPECT_EQ(options.elo_min, 1320);
    EXPECT_EQ(options.elo_max, 3190);
    EXPECT_FALSE(options.uci_variant);
    options.note(parse_uci_line("option name UCI_Variant type combo default chess var xiangqi"));
    EXPECT_TRUE(options.uci_variant);
}

TEST(UciCommands, PositionCarriesTheFenAndTheMoves) {
    EXPECT_EQ(position_command("8/8/8/8/8/8/8/K6k w - - 0 1", {}),
              "position fen 8/8/8/8/8/8/8/K6k w - - 0 1");
    EXPECT_EQ(position_command("F", {"e2e4", "e7e5"}), "position fen F moves e2e4 e7e5");
}

TEST(UciCommands, TimedGoUsesTheGameClock) {
    EXPECT_EQ(
        go_command(std::array<std::int64_t, 2>{60000, 45000}, 2000, std::chrono::milliseconds(300)),
        "go wtime 60000 btime 45000 winc 2000 binc 2000 movetime 300");
    // A clock at zero or below still gives the engine a legal, positive time.
    EXPECT_EQ(go_command(std::array<std::int64_t, 2>{0, -5}, 0, std::chrono::milliseconds(300)),
              "go wtime 1 btime 1 winc 0 binc 0 movetime 300");
}

TEST(UciCommands, UntimedGoUsesTheLevelsMovetime) {
    EXPECT_EQ(go_command(std::nullopt, 0, std::chrono::milliseconds(300)), "go movetime 300");
    EXPECT_EQ(setoption_command("UCI_Variant", "xiangqi"),
              "setoption name UCI_Variant value xiangqi");
}

TEST(UciStrengthMap, LevelsGrowStrongerAndThinkLonger) {
    for (int level = 1; level < 8; ++level) {
        const UciStrength weaker = uci_strength(level);
        const UciStrength stronger = uci_strength(level + 1);
        EXPECT_LE(weaker.skill_level, stronger.skill_level) << level;
        EXPECT_LT(weaker.movetime, stronger.movetime) << level;
        if (weaker.elo && stronger.elo) {
            EXPECT_LT(*weaker.elo, *stronger.elo) << level;
        }
    }
    EXPECT_EQ(uci_strength(1).skill_level, 0);
    EXPECT_FALSE(uci_strength(1).elo.has_value());
    EXPECT_EQ(uci_strength(8).skill_level, 20);
    EXPECT_FALSE(uci_strength(8).elo.has_value());
    EXPECT_TRUE(uci_strength(6).elo.has_value());
}

TEST(UciStrengthMap, OutOfRangeLevelsAreClamped) {
    EXPECT_EQ(uci_strength(0).movetime, uci_strength(1).movetime);
    EXPECT_EQ(uci_strength(99).movetime, uci_strength(8).movetime);
}

TEST(EngineSeatNames, SayWhichEngineAndLevel) {
    EXPECT_EQ(seat_name("stockfish", 3), "Stockfish (level 3)");
    EXPECT_EQ(seat_name("fairy-stockfish", 5), "Fairy-Stockfish (level 5)");
    EXPECT_EQ(seat_name("builtin", 8), "Arbiter builtin (level 8)");
    EXPECT_LE(seat_name(std::string(32, 'x'), 8).size(), 32U);
}

TEST(EngineFlag, NameEqualsPathIsRead) {
    const auto stockfish = parse_engine_flag("stockfish=/usr/games/stockfish");
    ASSERT_TRUE(stockfish.has_value());
    EXPECT_EQ(stockfish->name, "stockfish");
    EXPECT_EQ(stockfish->path, "/usr/games/stockfish");
    EXPECT_EQ(stockfish->variants, std::vector<rules::Variant>{rules::Variant::chess});
    const auto fairy = parse_engine_flag("fairy-stockfish=/usr/games/fairy-stockfish");
    ASSERT_TRUE(fairy.has_value());
    EXPECT_EQ(fairy->variants, std::vector<rules::Variant>{rules::Variant::xiangqi});
}

TEST(EngineFlag, ListedGamesReplaceTheGuessFromTheName) {
    const auto both = parse_engine_flag("fsf:chess,xiangqi=/usr/games/fairy-stockfish");
    ASSERT_TRUE(both.has_value()) << both.error();
    EXPECT_EQ(both->name, "fsf");
    EXPECT_EQ(both->path, "/usr/games/fairy-stockfish");
    EXPECT_EQ(both->variants,
              (std::vector<rules::Variant>{rules::Variant::chess, rules::Variant::xiangqi}));
    const auto fairy_chess = parse_engine_flag("fairy-stockfish:chess=/usr/games/fairy-stockfish");
    ASSERT_TRUE(fairy_chess.has_value()) << fairy_chess.error();
    EXPECT_EQ(fairy_chess->variants, std::vector<rules::Variant>{rules::Variant::chess});
    // Only the name part is read for the list: a path may hold ':' and ','.
    const auto odd_path = parse_engine_flag("sf:xiangqi=/opt/a:b,c/engine");
    ASSERT_TRUE(odd_path.has_value()) << odd_path.error();
    EXPECT_EQ(odd_path->path, "/opt/a:b,c/engine");
    EXPECT_EQ(odd_path->variants, std::vector<rules::Variant>{rules::Variant::xiangqi});

    // The registry offers the engine for exactly the listed games.
    EngineOptions options;
    options.uci.push_back(*both);
    EngineRegistry registry(options);
    EXPECT_TRUE(registry.seat_name("fsf", rules::Variant::chess, 3).has_value());
    EXPECT_TRUE(registry.seat_name("fsf", rules::Variant::xiangqi, 3).has_value());
    const auto draughts = registry.seat_name("fsf", rules::Variant::draughts, 3);
    ASSERT_FALSE(draughts.has_value());
    EXPECT_EQ(draughts.error(), "engine fsf does not play draughts");
}

TEST(EngineFlag, BadGameListsAreRefusedWithTheReason) {
    const auto draughts = parse_engine_flag("sf:chess,draughts=/x");
    ASSERT_FALSE(draughts.has_value());
    EXPECT_NE(draughts.error().find("'draughts' is not a game a UCI engine plays"),
              std::string::npos)
        << draughts.error();
    const auto unknown = parse_engine_flag("sf:shogi=/x");
    ASSERT_FALSE(unknown.has_value());
    EXPECT_NE(unknown.error().find("'shogi'"), std::string::npos) << unknown.error();
    const auto twice = parse_engine_flag("sf:chess,chess=/x");
    ASSERT_FALSE(twice.has_value());
    EXPECT_NE(twice.error().find("chess is listed twice"), std::string::npos) << twice.error();
    EXPECT_FALSE(parse_engine_flag("sf:=/x").has_value()) << "an empty list";
    EXPECT_FALSE(parse_engine_flag("sf:chess,=/x").has_value()) << "an empty entry";
    EXPECT_FALSE(parse_engine_flag(":chess=/x").has_value()) << "no name";
    EXPECT_FALSE(parse_engine_flag("builtin:chess=/x").has_value());
}

TEST(EngineFlag, MalformedFlagsAreRefused) {
    EXPECT_FALSE(parse_engine_flag("stockfish").has_value());
    EXPECT_FALSE(parse_engine_flag("=/usr/games/stockfish").has_value());
    EXPECT_FALSE(parse_engine_flag("stock fish=/x").has_value());
    EXPECT_FALSE(parse_engine_flag("stockfish=").has_value());
    EXPECT_FALSE(parse_engine_flag("builtin=/x").has_value());
}

TEST(EngineRegistryOffer, BuiltinIsAlwaysOfferedForEveryVariant) {
    EngineRegistry registry(EngineOptions{});
    const auto offered = registry.offered();
    ASSERT_EQ(offered.size(), 1U);
    EXPECT_EQ(offered[0].name, "builtin");
    EXPECT_EQ(offered[0].variants.size(), 3U);
    EXPECT_EQ(registry.seat_name("builtin", rules::Variant::draughts, 8).value_or(""),
              "Arbiter builtin (level 8)");
}

TEST(EngineRegistryOffer, UnknownEngineWrongVariantOrLevelIsRefused) {
    EngineOptions options;
    options.uci.push_back({"stockfish", "/bin/true", {rules::Variant::chess}});
    EngineRegistry registry(options);
    EXPECT_TRUE(registry.seat_name("stockfish", rules::Variant::chess, 1).has_value());
    EXPECT_FALSE(registry.seat_name("stockfish", rules::Variant::draughts, 1).has_value());
    EXPECT_FALSE(registry.seat_name("gnuchess", rules::Variant::chess, 1).has_value());
    EXPECT_FALSE(registry.seat_name("builtin", rules::Variant::chess, 0).has_value());
    EXPECT_FALSE(registry.seat_name("builtin", rules::Variant::chess, 9).has_value());
}

TEST(EngineRegistryOffer, AGameIsRefusedWhileEveryProcessRuns) {
    EngineOptions options;
    options.uci.push_back({"stockfish", "/bin/true", {rules::Variant::chess}});
    options.max_processes = 0;
    EngineRegistry registry(options);
    const auto refused = registry.seat_name("stockfish", rules::Variant::chess, 1);
    ASSERT_FALSE(refused.has_value());
    EXPECT_NE(refused.error().find("all 0 engine processes are busy"), std::string::npos)
        << refused.error();
    EXPECT_TRUE(registry.seat_name("builtin", rules::Variant::chess, 1).has_value());
}

TEST(ThinkBudget, UntimedUsesTheLevelsLimit) {
    app::MoveQuestion question;
    EXPECT_EQ(think_budget(std::chrono::milliseconds(700), question),
              std::chrono::milliseconds(700));
}

TEST(ThinkBudget, TimedIsCappedFromTheMoversClock) {
    app::MoveQuestion question;
    question.side = rules::Side::second;
    question.remaining_ms = std::array<std::int64_t, 2>{600000, 3000};
    question.increment_ms = 0;
    // 3000 / 30 = 100 ms: the second seat's clock, not the first's.
    EXPECT_EQ(think_budget(std::chrono::milliseconds(5000), question),
              std::chrono::milliseconds(100));
    question.remaining_ms = std::array<std::int64_t, 2>{600000, 0};
    EXPECT_EQ(think_budget(std::chrono::milliseconds(5000), question),
              std::chrono::milliseconds(20));
    question.remaining_ms = std::array<std::int64_t, 2>{600000, 600000};
    EXPECT_EQ(think_budget(std::chrono::milliseconds(500), question),
              std::chrono::milliseconds(500));
}

TEST(ThinkBudget, NeverPlansOnTheIncrementNotYetReceived) {
    // 2 s left and 10 s of increment: the increment is added after the move, so the search may
    // not take the 5 s that own / 30 + increment / 2 gives (it lost on time at its first timed
    // move).
    app::MoveQuestion question;
    question.side = rules::Side::first;
    question.remaining_ms = std::array<std::int64_t, 2>{2000, 600000};
    question.increment_ms = 10000;
    EXPECT_LE(think_budget(std::chrono::milliseconds(5000), question),
              std::chrono::milliseconds(1000));
    question.remaining_ms = std::array<std::int64_t, 2>{1000, 1000};
    question.increment_ms = 3000;
    EXPECT_LE(think_budget(std::chrono::milliseconds(1000), question),
              std::chrono::milliseconds(500));
    // Where the clock is ample, the increment still counts.
    question.remaining_ms = std::array<std::int64_t, 2>{60000, 60000};
    EXPECT_EQ(think_budget(std::chrono::milliseconds(5000), question),
              std::chrono::milliseconds(2000 + 1500));
}

// A UCI engine in a timed game thinks the level's time at most, whatever the clock: levels 1-3
// answer within 0.2 s at 1+0, 3+2 and 15+10 alike, and no level plans on more than its share of
// the clock.
TEST(ThinkBudget, UciLevelsKeepTheirThinkTimeInTimedGames) {
    struct Control {
        std::int64_t initial_ms;
        std::int64_t increment_ms;
    };
    for (const Control control :
         {Control{60000, 0}, Control{180000, 2000}, Control{900000, 10000}}) {
        app::MoveQuestion question;
        question.side = rules::Side::first;
        question.remaining_ms = std::array<std::int64_t, 2>{control.initial_ms, control.initial_ms};
        question.increment_ms = control.increment_ms;
        for (int level = 1; level <= 8; ++level) {
            const auto think = think_budget(uci_strength(level).movetime, question);
            EXPECT_LE(think, uci_strength(level).movetime) << level;
            EXPECT_LE(think.count(), control.initial_ms / 30 + control.increment_ms / 2) << level;
            if (level <= 3) {
                EXPECT_LE(think, std::chrono::milliseconds(200)) << level;
            }
        }
    }
    // With 3 s left at 1+0 even level 8 thinks 100 ms.
    app::MoveQuestion question;
    question.side = rules::Side::second;
    question.remaining_ms = std::array<std::int64_t, 2>{60000, 3000};
    EXPECT_EQ(think_budget(uci_strength(8).movetime, question), std::chrono::milliseconds(100));
}

TEST(UciInfo, ReadsScoreAndPrincipalVariation) {
    const auto info = parse_uci_info(
        "info depth 12 seldepth 15 multipv 1 score cp -35 nodes 2000 nps 100000 tbhits 0 time 20 "
        "pv e7e5 g1f3 b8c6");
    ASSERT_TRUE(info);
    EXPECT_EQ(info->cp, -35);
    EXPECT_FALSE(info->mate);
    EXPECT_FALSE(info->bound);
    EXPECT_EQ(info->pv, (std::vector<std::string>{"e7e5", "g1f3", "b8c6"}));
}

TEST(UciInfo, ReadsMateAndBounds) {
    const auto mated = parse_uci_info("info depth 3 score mate -2 pv a1a2");
    ASSERT_TRUE(mated);
    EXPECT_EQ(mated->mate, -2);
    EXPECT_FALSE(mated->cp);
    const auto bound = parse_uci_info("info depth 9 score cp 40 lowerbound nodes 10");
    ASSERT_TRUE(bound);
    EXPECT_TRUE(bound->bound);
    EXPECT_TRUE(bound->pv.empty());
}

TEST(UciInfo, IgnoresLinesWithoutAScoreOrOfAnotherLine) {
    EXPECT_FALSE(parse_uci_info("info depth 1 currmove e2e4 currmovenumber 1"));
    EXPECT_FALSE(parse_uci_info("info string NNUE evaluation using nn.nnue score cp 3"));
    EXPECT_FALSE(parse_uci_info("info multipv 2 score cp 10 pv d2d4"));
    EXPECT_FALSE(parse_uci_info("info score cp"));
    EXPECT_FALSE(parse_uci_info("bestmove e2e4"));
}

TEST(UciInfo, AnalysisSearchIsBoundedByNodesOrTime) {
    EXPECT_EQ(analysis_go_command(5000, std::chrono::milliseconds(100)), "go nodes 5000");
    EXPECT_EQ(analysis_go_command(std::nullopt, std::chrono::milliseconds(100)), "go movetime 100");
}

}  // namespace
}  // namespace arbiter::server::engines
