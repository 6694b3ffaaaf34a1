// record_of: the `record` of a stored game, and where each move's check flag comes from.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/protocol/codec.hpp"
#include "server/app/stored_views.hpp"

namespace arbiter::server::app {
namespace {

constexpr const char* kChessStart = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

// The fool's mate, which checks only with its last move (ply 4).
const std::vector<std::string> kFoolsMate = {"f2f3", "e7e5", "g2g4", "d8h4"};

storage::StoredGame stored_chess(const std::vector<std::optional<bool>>& flags) {
    storage::StoredGame game;
    game.header.id = "rec";
    game.header.variant = rules::Variant::chess;
    game.header.initial_position = kChessStart;
    game.header.status = protocol::GameStatus::ended;
    for (std::size_t i = 0; i < kFoolsMate.size(); ++i) {
        storage::MoveRow move;
        move.ply = static_cast<std::uint32_t>(i + 1);
        move.move = kFoolsMate[i];
        move.notation = kFoolsMate[i];
        move.check = flags[i];
        game.moves.push_back(move);
    }
    return game;
}

std::vector<bool> checks_of(const protocol::Record& record) {
    std::vector<bool> checks;
    for (const auto& move : record.moves) {
        checks.push_back(move.check);
    }
    return checks;
}

// Rows from before schema version 5 keep no flag: the game is played through for them.
TEST(RecordOf, RowsWithoutCheckFlagsAreReplayedForThem) {
    const auto none = std::nullopt;
    const auto record = record_of(stored_chess({none, none, none, none}));
    EXPECT_EQ(checks_of(record), (std::vector<bool>{false, false, false, true}));
    EXPECT_FALSE(record.initial_check);
}

// Rows that keep their flags are taken as stored, with no replay: these flags are not the
// game's (a replay would mark ply 4 alone), so only a record that read them shows them.
TEST(RecordOf, StoredCheckFlagsAreTakenAsStored) {
    const auto record = record_of(stored_chess({true, false, true, false}));
    EXPECT_EQ(checks_of(record), (std::vector<bool>{true, false, true, false}));
}

// A game begun before the migration and played on after it has rows of both kinds: replayed.
TEST(RecordOf, AGameWithSomeRowsWithoutFlagsIsReplayedWhole) {
    const auto record = record_of(stored_chess({std::nullopt, true, true, false}));
    EXPECT_EQ(checks_of(record), (std::vector<bool>{false, false, false, true}));
}

// protocol.md, record and Lag compensation: each timed move's credit is shown as stored, in the
// record that `replay` and /api/games/{id} send; a move without one (untimed, or stored before
// lag compensation) has no lag_ms at all.
TEST(RecordOf, EachMovesLagCreditIsShownAsStored) {
    storage::StoredGame game = stored_chess({false, false, false, true});
    game.moves[2].clock_ms = 59'800;
    game.moves[2].think_ms = 400;
    game.moves[2].lag_ms = 200;
    game.moves[3].clock_ms = 60'000;
    game.moves[3].think_ms = 0;
    game.moves[3].lag_ms = 0;
    const auto record = record_of(game);
    EXPECT_EQ(record.moves[0].lag_ms, std::nullopt);
    EXPECT_EQ(record.moves[2].lag_ms, 200);
    EXPECT_EQ(record.moves[3].lag_ms, 0);
    const auto json =
        nlohmann::json::parse(protocol::encode(protocol::ServerMessage{record, std::nullopt}));
    EXPECT_FALSE(json["moves"][0].contains("lag_ms"));
    EXPECT_EQ(json["moves"][2]["lag_ms"], 200);
    EXPECT_EQ(json["moves"][2]["clock_ms"], 59'800) << "the clock after the credit";
    EXPECT_EQ(json["moves"][3]["lag_ms"], 0);
}

// The start position's check comes from the position, whatever the rows keep.
TEST(RecordOf, AGameSetUpInCheckHasInitialCheck) {
    storage::StoredGame game;
    game.header.id = "rec";
    game.header.variant = rules::Variant::chess;
    game.header.initial_position = "4k3/8/8/8/8/8/4q3/4K3 w - - 0 1";
    game.header.status = protocol::GameStatus::playing;
    const auto record = record_of(game);
    EXPECT_TRUE(record.initial_check);
    EXPECT_TRUE(record.moves.empty());
}

}  // namespace
}  // namespace arbiter::server::app
