// Move generator exactness: every position of the xiangqi perft reference table (Fairy-Stockfish
// confirmed), at the deepest depth whose node count stays within the sanitizer-build budget.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/rules/game.hpp"
#include "common/rules/xiangqi/position.hpp"
#include "test_paths.hpp"

namespace arbiter::rules::xiangqi {
namespace {

constexpr std::uint64_t kNodeBudget = 1'200'000;

struct Reference {
    std::string fen;
    std::vector<std::uint64_t> counts;  // counts[d - 1] = perft(d)
};

std::vector<Reference> load_references() {
    std::ifstream in(std::string(ARBITER_TEST_DATA_DIR) + "/reference/xiangqi-perft.epd");
    std::vector<Reference> references;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        Reference reference;
        std::size_t semicolon = line.find(" ;");
        reference.fen = line.substr(0, semicolon);
        std::istringstream fields(line.substr(semicolon));
        std::string marker;
        std::uint64_t count = 0;
        while (fields >> marker >> count) {
            reference.counts.push_back(count);
        }
        references.push_back(reference);
    }
    return references;
}

TEST(XiangqiPerft, ReferenceTableHasEveryPosition) {
    EXPECT_EQ(load_references().size(), 13U);
}

TEST(XiangqiPerft, EveryReferencePositionMatches) {
    for (const Reference& reference : load_references()) {
        auto position = Position::from_fen(reference.fen);
        ASSERT_TRUE(position) << reference.fen << ": " << position.error().message;
        for (std::size_t depth = 1; depth <= reference.counts.size(); ++depth) {
            if (reference.counts[depth - 1] > kNodeBudget) {
                break;
            }
            EXPECT_EQ(perft(*position, static_cast<int>(depth)), reference.counts[depth - 1])
                << reference.fen << " depth " << depth;
        }
        EXPECT_EQ(position->fen(), reference.fen) << "perft must leave the position unchanged";
    }
}

TEST(XiangqiPerft, DivideThroughTheFaceSumsToPerft) {
    auto game = make_game(Variant::xiangqi, "startpos");
    ASSERT_TRUE(game);
    std::uint64_t total = 0;
    const auto divided = (*game)->divide(3);
    for (const auto& [move, count] : divided) {
        total += count;
    }
    EXPECT_EQ(divided.size(), 44U);
    EXPECT_EQ(total, 79666U);
    EXPECT_EQ((*game)->perft(3), 79666U);
    EXPECT_EQ((*game)->perft(0), 1U);
}

}  // namespace
}  // namespace arbiter::rules::xiangqi
