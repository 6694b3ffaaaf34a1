#include "server/app/aborted_pruner.hpp"

#include <gtest/gtest.h>

#include "tests/unit/app/fakes.hpp"

namespace arbiter::server::app {
namespace {

using namespace std::chrono_literals;

/// A game created at `created_ms`, aborted (or ended) at `ended_ms`, with `moves` moves.
storage::StoredGame game(const std::string& id, protocol::GameStatus status,
                         std::int64_t created_ms, std::int64_t ended_ms, std::uint32_t moves) {
    storage::StoredGame stored;
    stored.header.id = id;
    stored.header.status = status;
    stored.header.created_ms = created_ms;
    stored.header.updated_ms = ended_ms;
    stored.header.ply = moves;
    for (std::uint32_t ply = 1; ply <= moves; ++ply) {
        storage::MoveRow move;
        move.ply = ply;
        stored.moves.push_back(move);
    }
    return stored;
}

struct AbortedPrunerTest : ::testing::Test {
    fakes::ManualTime time;
    fakes::FakeRepository repository;
    std::shared_ptr<fakes::ManualExecutor> executor = std::make_shared<fakes::ManualExecutor>(time);
    std::int64_t start_ms = time.unix_ms();
};

// With --prune-aborted-after 60: a game aborted unplayed goes once a minute has passed since its
// abort (at the next pass, at most a minute later); one with a move, or not aborted, stays.
TEST_F(AbortedPrunerTest, DeletesUnplayedAbortedGamesOnceTheirTimeHasPassed) {
    using protocol::GameStatus;
    repository.store(game("unplayed", GameStatus::aborted, start_ms - 1'000, start_ms, 0));
    repository.store(game("played", GameStatus::aborted, start_ms - 1'000, start_ms, 1));
    repository.store(game("resigned", GameStatus::ended, start_ms - 1'000, start_ms, 0));
    repository.store(game("waiting", GameStatus::waiting, start_ms - 1'000, start_ms, 0));
    AbortedPruner pruner(repository, time, 60s);
    EXPECT_EQ(pruner.interval(), 60s);
    pruner.start(executor);
    executor->run();
    EXPECT_TRUE(repository.stored("unplayed")) << "aborted just now";
    time.advance(60s);
    executor->run();
    EXPECT_TRUE(repository.stored("unplayed")) << "aborted exactly a minute ago";
    time.advance(60s);
    executor->run();
    EXPECT_FALSE(repository.stored("unplayed"));
    for (const char* kept : {"played", "resigned", "waiting"}) {
        EXPECT_TRUE(repository.stored(kept)) << kept;
    }
    pruner.stop();
    const int writes = repository.writes;
    time.advance(1h);
    executor->run();
    EXPECT_EQ(repository.writes, writes) << "stopped";
}

TEST_F(AbortedPrunerTest, ZeroNeverPrunes) {
    repository.store(game("unplayed", protocol::GameStatus::aborted, 0, 0, 0));
    AbortedPruner pruner(repository, time, 0s);
    pruner.start(executor);
    time.advance(24h);
    executor->run();
    EXPECT_EQ(repository.writes, 0);
    EXPECT_TRUE(repository.stored("unplayed"));
}

TEST_F(AbortedPrunerTest, ItRunsAtLeastOnceASecondAndAtMostOnceAnHour) {
    EXPECT_EQ(AbortedPruner(repository, time, 0s).interval(), 1s);
    EXPECT_EQ(AbortedPruner(repository, time, 86'400s).interval(), 1h);
}

}  // namespace
}  // namespace arbiter::server::app
