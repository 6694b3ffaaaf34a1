// Perft over every position of the reference table, plus FEN and SAN round trips over the same
// positions. Depths are chosen from the table so that each position costs at most ~1M nodes in
// the sanitizer build; deeper runs go through arbiter-perft in Release.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/rules/chess/movegen.hpp"
#include "common/rules/chess/notation.hpp"
#include "common/rules/variants.hpp"
#include "test_paths.hpp"

namespace arbiter::rules::chess {
namespace {

constexpr std::uint64_t node_budget = 2'000'000;

struct PerftCase {
    std::string fen;
    std::vector<std::uint64_t> counts;  ///< counts[d - 1] = perft(d)
};

std::vector<PerftCase> load_cases() {
    std::ifstream in(std::string(ARBITER_TEST_DATA_DIR) + "/reference/chess-perft.epd");
    std::vector<PerftCase> cases;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        PerftCase entry;
        const std::size_t semicolon = line.find(';');
        entry.fen = line.substr(0, line.find_last_not_of(' ', semicolon - 1) + 1);
        std::istringstream fields(line.substr(semicolon));
        std::string depth;
        std::uint64_t count = 0;
        while (fields >> depth >> count) {
            EXPECT_EQ(depth, ";D" + std::to_string(entry.counts.size() + 1)) << line;
            entry.counts.push_back(count);
        }
        cases.push_back(std::move(entry));
    }
    return cases;
}

TEST(ChessPerft, ReferenceTableIsComplete) {
    const auto cases = load_cases();
    EXPECT_EQ(cases.size(), 31U);
    for (const auto& entry : cases) {
        EXPECT_FALSE(entry.counts.empty()) << entry.fen;
    }
}

TEST(ChessPerft, EveryReferencePositionMatchesWithinBudget) {
    for (const auto& entry : load_cases()) {
        const auto position = Position::from_fen(entry.fen);
        ASSERT_TRUE(position.has_value()) << entry.fen << ": " << position.error().message;
        for (std::size_t depth = 1; depth <= entry.counts.size(); ++depth) {
            if (depth > 1 && entry.counts[depth - 1] > node_budget) {
                break;
            }
            EXPECT_EQ(perft(*position, static_cast<int>(depth)), entry.counts[depth - 1])
                << entry.fen << " depth " << depth;
        }
    }
}

TEST(ChessPerft, GameFacePerftAndDivideAgree) {
    auto game = make_game("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    ASSERT_TRUE(game.has_value());
    EXPECT_EQ((*game)->perft(3), 97862U);
    std::uint64_t total = 0;
    const auto divided = (*game)->divide(3);
    EXPECT_EQ(divided.size(), 48U);
    for (const auto& [move, count] : divided) {
        total += count;
    }
    EXPECT_EQ(total, 97862U);
    EXPECT_EQ((*game)->perft(0), 1U);
    EXPECT_TRUE((*game)->divide(0).empty());

    auto start = make_game("startpos");
    ASSERT_TRUE(start.has_value());
    for (const auto& [move, count] : (*start)->divide(2)) {
        EXPECT_EQ(count, 20U) << move;
        EXPECT_EQ(move.size(), 4U);
    }
}

TEST(ChessFen, RoundTripsEveryReferencePositionAndItsChildren) {
    for (const auto& entry : load_cases()) {
        const auto position = Position::from_fen(entry.fen);
        ASSERT_TRUE(position.has_value()) << entry.fen;
        EXPECT_EQ(position->fen(), entry.fen);
        MoveList moves;
        legal_moves(*position, moves);
        for (const Move move : moves) {
            const std::string child = position->after(move).fen();
            const auto reparsed = Position::from_fen(child);
            ASSERT_TRUE(reparsed.has_value()) << child << ": " << reparsed.error().message;
            EXPECT_EQ(reparsed->fen(), child);
        }
    }
}

/// Every legal move's SAN read back gives the same move, directly and through Game::to_wire.
void expect_san_round_trip(const Position& position) {
    auto game = make_game(position.fen());
    ASSERT_TRUE(game.has_value()) << position.fen();
    MoveList moves;
    legal_moves(position, moves);
    for (const Move move : moves) {
        const std::string san = to_san(position, move);
        const auto parsed = parse_san(position, san);
        ASSERT_TRUE(parsed.has_value()) << position.fen() << " " << san;
        EXPECT_EQ(*parsed, move) << position.fen() << " " << san;
        if (!(*game)->status().over()) {
            const auto wire = (*game)->to_wire(san);
            ASSERT_TRUE(wire.has_value()) << san;
            EXPECT_EQ(*wire, to_uci(move)) << position.fen() << " " << san;
        }
        const auto uci = parse_uci(position, to_uci(move), moves);
        ASSERT_TRUE(uci.has_value()) << to_uci(move);
        EXPECT_EQ(*uci, move);
    }
}

TEST(ChessSan, RoundTripsEveryLegalMoveOfEveryReferencePosition) {
    for (const auto& entry : load_cases()) {
        const auto position = Position::from_fen(entry.fen);
        ASSERT_TRUE(position.has_value()) << entry.fen;
        expect_san_round_trip(*position);
        // One ply deeper as well: more promotions, checks and disambiguations.
        MoveList moves;
        legal_moves(*position, moves);
        for (const Move move : moves) {
            const Position child = position->after(move);
            if (has_legal_move(child)) {
                expect_san_round_trip(child);
            }
        }
    }
}

}  // namespace
}  // namespace arbiter::rules::chess
