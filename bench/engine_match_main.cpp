// arbiter-engine-match: the built-in engine's speed and strength from the command line.
//   arbiter-engine-match speed VARIANT [LEVEL]        nodes/s from the start and a middlegame
//   arbiter-engine-match match VARIANT A B [GAMES]    level A against level B, colours alternating

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/engine/builtin.hpp"
#include "common/engine/match.hpp"

namespace {

using arbiter::engine::SearchResult;
namespace rules = arbiter::rules;

/// Start positions for matches and speed runs: the start and a few positions after openings.
std::vector<std::string> positions_of(rules::Variant variant) {
    switch (variant) {
        case rules::Variant::chess:
            return {"", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
                    "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8"};
        case rules::Variant::xiangqi:
            return {"", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1",
                    "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN1C1N2/9/R1BAKAB1R w - - 4 3"};
        case rules::Variant::draughts:
            return {"", "B:W21,22,23,24,25,26,27,28,29,30,31,17:B1,2,3,4,5,6,7,8,9,10,11,12",
                    "W:W18,21,22,23,25,26,27,28,29,30,31:B1,2,3,5,6,7,8,9,10,12,13"};
    }
    return {""};
}

int speed(rules::Variant variant, int level) {
    for (const std::string& fen : positions_of(variant)) {
        auto game = rules::make_game(variant, fen);
        if (!game.has_value()) {
            std::fprintf(stderr, "bad position %s: %s\n", fen.c_str(),
                         game.error().message.c_str());
            return 1;
        }
        const auto start = std::chrono::steady_clock::now();
        const SearchResult result = arbiter::engine::choose_move(
            *game.value(), level, arbiter::engine::limits_for_level(level), 1);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf(
            "%-8s level %d %-70s move %-7s depth %2d score %6d nodes %9llu  %.2f s  %.0f nodes/s\n",
            std::string(rules::to_string(variant)).c_str(), level,
            fen.empty() ? "startpos" : fen.c_str(), result.move.c_str(), result.depth, result.score,
            static_cast<unsigned long long>(result.nodes), seconds,
            static_cast<double>(result.nodes) / seconds);
    }
    return 0;
}

int match(rules::Variant variant, int level_a, int level_b, int games) {
    arbiter::engine::MatchConfig config;
    config.variant = variant;
    config.openings = positions_of(variant);
    config.games = games;
    config.a = {level_a, arbiter::engine::limits_for_level(level_a)};
    config.b = {level_b, arbiter::engine::limits_for_level(level_b)};
    const auto start = std::chrono::steady_clock::now();
    const arbiter::engine::MatchResult result = arbiter::engine::play_match(config);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf(
        "%s: level %d vs level %d, %d games: %.1f - %.1f (+%d -%d =%d, %d capped at %d plies) in "
        "%.0f s\n",
        std::string(rules::to_string(variant)).c_str(), level_a, level_b, games, result.a_score(),
        result.b_score(), result.a_wins, result.b_wins, result.draws, result.capped,
        config.max_plies, seconds);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const auto variant = args.size() >= 2 ? rules::parse_variant(args[1]) : std::nullopt;
    if (!variant) {
        std::fprintf(stderr,
                     "usage: arbiter-engine-match speed VARIANT [LEVEL]\n"
                     "       arbiter-engine-match match VARIANT LEVEL_A LEVEL_B [GAMES]\n");
        return 2;
    }
    if (args[0] == "speed") {
        return speed(*variant, args.size() > 2 ? std::atoi(args[2].c_str()) : 8);
    }
    if (args[0] == "match" && args.size() >= 4) {
        return match(*variant, std::atoi(args[2].c_str()), std::atoi(args[3].c_str()),
                     args.size() > 4 ? std::atoi(args[4].c_str()) : 10);
    }
    std::fprintf(stderr, "unknown command %s\n", args[0].c_str());
    return 2;
}
