// Every position of tests/data/reference/draughts-brazilian-perft.txt, at the deepest depth whose
// published count stays within a node budget that keeps the sanitizer build fast. Deeper depths
// are checked in Release with arbiter-perft.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/rules/draughts/movegen.hpp"
#include "common/rules/draughts/position.hpp"
#include "support.hpp"
#include "test_paths.hpp"

namespace arbiter::rules::draughts {
namespace {

constexpr std::uint64_t kNodeBudget = 1'000'000;

struct Reference {
    std::string fen;
    std::vector<std::uint64_t> counts;  ///< counts[d - 1] = perft(d)
};

std::vector<Reference> load_references() {
    std::ifstream in(std::string(ARBITER_TEST_DATA_DIR) +
                     "/reference/draughts-brazilian-perft.txt");
    std::vector<Reference> references;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        Reference reference;
        std::stringstream fields(line);
        std::string field;
        std::getline(fields, field, ';');
        reference.fen = field.substr(0, field.find_last_not_of(' ') + 1);
        while (std::getline(fields, field, ';')) {
            std::stringstream words(field);
            std::string depth;
            std::uint64_t count = 0;
            words >> depth >> count;
            reference.counts.push_back(count);
        }
        references.push_back(reference);
    }
    return references;
}

TEST(DraughtsPerft, ReferenceTableHasEveryPosition) {
    EXPECT_EQ(load_references().size(), 7U);
}

TEST(DraughtsPerft, EveryReferencePositionMatchesWithinBudget) {
    for (const auto& reference : load_references()) {
        const auto position = Position::from_fen(reference.fen);
        ASSERT_TRUE(position.has_value()) << reference.fen << ": " << position.error().message;
        int checked = 0;
        for (std::size_t depth = 1; depth <= reference.counts.size(); ++depth) {
            if (reference.counts[depth - 1] > kNodeBudget) {
                break;
            }
            EXPECT_EQ(perft(*position, static_cast<int>(depth)), reference.counts[depth - 1])
                << reference.fen << " depth " << depth;
            ++checked;
        }
        EXPECT_GE(checked, 5) << reference.fen;
    }
}

TEST(DraughtsPerft, GameFacePerftAndDivideAgree) {
    // B02, published divide: 22x15 11, 23x14 107.
    const auto game =
        testing::game_from("W:B1,2,3,4,5,6,7,8,10,12,13,18:W17,21,22,23,24,25,26,27,28,30,31,32");
    ASSERT_NE(game, nullptr);
    EXPECT_EQ(game->perft(4), 118U);
    const auto divide = game->divide(4);
    ASSERT_EQ(divide.size(), 2U);
    EXPECT_EQ(divide[0], (std::pair<std::string, std::uint64_t>{"22x15", 11}));
    EXPECT_EQ(divide[1], (std::pair<std::string, std::uint64_t>{"23x14", 107}));
}

TEST(DraughtsPerft, StartPositionThroughTheFace) {
    const auto game = testing::game_from("startpos");
    ASSERT_NE(game, nullptr);
    EXPECT_EQ(game->perft(0), 1U);
    EXPECT_EQ(game->perft(1), 7U);
    EXPECT_EQ(game->perft(6), 37628U);
}

}  // namespace
}  // namespace arbiter::rules::draughts
