// What a power cut leaves of the database, through the model of power_cut_vfs.hpp. SIGKILL
// (durability_test.cpp, scripts/crash_safety.py) keeps the page cache, so it cannot tell a
// write that reached the disk from one that did not; these tests can: at synchronous = FULL
// every acknowledged write must be in what the disk holds, with the journal filed, the WAL
// checkpointed and restarted at any moment; at NORMAL the last acknowledged writes may be lost,
// but never the database's consistency.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "power_cut_vfs.hpp"
#include "storage_test_support.hpp"

namespace arbiter::server::storage {
namespace {

using testing::integrity_of;
using testing::make_game;
using testing::make_move;
using testing::PowerCutVfs;
using testing::TempDatabase;
using Result = Expected<void, StorageError>;

// One game as the players saw it: what was sent to the store and what it acknowledged while the
// power was on.
struct TrackedGame {
    std::string id;
    std::uint32_t length = 0;  // the last ply, whose write ends the game
    std::uint32_t submitted = 0;
    std::uint32_t acknowledged = 0;
    bool created = false;  // its first write was acknowledged
    bool ended = false;    // its last write was acknowledged
};

std::string move_text(const std::string& game, std::uint32_t ply) {
    return game + ":" + std::to_string(ply);
}

// Plays `slots` games at once against the store as a server does: a game's next write is
// submitted from the callback of its previous one, and a game that ends is followed by a new one
// in its slot. Acknowledgements are recorded only while the power is on.
class Players {
  public:
    Players(SqliteRepository& repository, PowerCutVfs& vfs, std::size_t slots, std::uint32_t seed)
        : repository_(repository), vfs_(vfs), random_(seed) {
        for (std::size_t slot = 0; slot < slots; ++slot) {
            start_game();
        }
    }

    std::uint64_t acknowledged() const { return acknowledged_.load(); }
    std::uint64_t failures() const { return failures_.load(); }
    /// No new writes from now on (callbacks still run).
    void stop() { stopping_.store(true); }
    /// Read after the repository is gone (its writer thread joined).
    const std::vector<TrackedGame>& games() const { return games_; }

  private:
    // Writer thread, or the constructor before any callback can run.
    void start_game() {
        const std::lock_guard lock(games_mutex_);
        TrackedGame game;
        game.id = "cut-" + std::to_string(games_.size());
        game.length = std::uniform_int_distribution<std::uint32_t>(1, 90)(random_);
        games_.push_back(game);
        const std::size_t index = games_.size() - 1;
        repository_.write(
            GameWrite{make_game(game.id, 1000 + static_cast<std::int64_t>(index)), {}, {}},
            [this, index](const Result& result) { on_written(index, 0, result); });
    }

    void submit(std::size_t index, std::uint32_t ply) {
        GameRow header;
        std::uint32_t length = 0;
        {
            const std::lock_guard lock(games_mutex_);
            TrackedGame& game = games_[index];
            header = make_game(game.id, 1000 + static_cast<std::int64_t>(index));
            game.submitted = ply;
            length = game.length;
        }
        MoveRow move = make_move(ply, move_text(header.id, ply));
        header.ply = ply;
        header.seq = move.seq;
        header.status = ply == length ? "ended" : "playing";
        header.result = ply == length ? "1-0" : "";
        repository_.write(
            GameWrite{std::move(header), {}, std::move(move)},
            [this, index, ply](const Result& result) { on_written(index, ply, result); });
    }

    void on_written(std::size_t index, std::uint32_t ply, const Result& result) {
        if (!result) {
            ++failures_;
            return;
        }
        bool ends = false;
        vfs_.if_powered([&] {
            const std::lock_guard lock(games_mutex_);
            TrackedGame& game = games_[index];
            game.created = true;
            game.acknowledged = ply;
            game.ended = ply == game.length;
            ++acknowledged_;
        });
        {
            const std::lock_guard lock(games_mutex_);
            ends = ply == games_[index].length;
        }
        if (stopping_.load()) {
            return;
        }
        if (ends) {
            start_game();
        } else {
            submit(index, ply + 1);
        }
    }

    SqliteRepository& repository_;
    PowerCutVfs& vfs_;
    std::mt19937 random_;
    std::mutex games_mutex_;
    std::vector<TrackedGame> games_;
    std::atomic<std::uint64_t> acknowledged_{0};
    std::atomic<std::uint64_t> failures_{0};
    std::atomic<bool> stopping_{false};
};

// What one round saw before and after its cut.
struct CutRound {
    std::vector<TrackedGame> games;
    std::string folder;  // holds the database as the disk kept it
    std::string database;
    std::uint64_t acknowledged = 0;
    WriterStats stats;
};

// Plays until `acknowledgements` writes were acknowledged, waits a moment more (so the cut falls
// anywhere: in a batch, a filing or a checkpoint), and cuts the power.
CutRound run_until_cut(const TempDatabase& database, const SqliteOptions& options,
                       std::uint64_t acknowledgements, double keep_unsynced, std::uint32_t seed) {
    CutRound round;
    round.folder = database.sibling("-cut");
    std::filesystem::create_directory(round.folder);
    round.database =
        (std::filesystem::path(round.folder) / std::filesystem::path(database.path()).filename())
            .string();
    PowerCutVfs vfs;  // destroyed last: the repository's connections close first
    auto repository = testing::open_or_die(database.path(), options);
    if (repository == nullptr) {
        return round;
    }
    Players players(*repository, vfs, 6, seed);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (players.acknowledged() < acknowledgements &&
           std::chrono::steady_clock::now() < deadline && players.failures() == 0) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(seed % 3000));
    EXPECT_TRUE(vfs.cut(round.folder, keep_unsynced, seed));
    EXPECT_GT(vfs.syncs(), 0U);
    players.stop();
    round.stats = repository->stats();
    repository.reset();
    EXPECT_EQ(players.failures(), 0U);
    round.acknowledged = players.acknowledged();
    round.games = players.games();
    return round;
}

// The stored games are whole: each game's moves are plies 1..n, as submitted, its header says
// n, and only a game whose last write was stored has ended. Returns the acknowledged plies that
// were lost.
std::uint64_t check_consistent(const CutRound& round) {
    EXPECT_EQ(integrity_of(round.database), "ok");
    auto repository = testing::open_or_die(round.database);
    if (repository == nullptr) {
        return 0;
    }
    EXPECT_TRUE(repository->load_unfinished());
    std::uint64_t lost = 0;
    for (const TrackedGame& game : round.games) {
        auto loaded = repository->load(game.id);
        EXPECT_TRUE(loaded) << loaded.error().message;
        if (!loaded || !loaded->has_value()) {
            lost += game.acknowledged + (game.created ? 1 : 0);
            continue;
        }
        const StoredGame& stored = **loaded;
        for (std::size_t i = 0; i < stored.moves.size(); ++i) {
            EXPECT_EQ(stored.moves[i].ply, i + 1) << game.id;
            EXPECT_EQ(stored.moves[i].move, move_text(game.id, static_cast<std::uint32_t>(i + 1)));
        }
        const auto plies = static_cast<std::uint32_t>(stored.moves.size());
        EXPECT_EQ(stored.header.ply, plies) << game.id;
        EXPECT_LE(plies, game.submitted) << game.id;
        EXPECT_EQ(stored.header.status == "ended", plies == game.length && plies > 0) << game.id;
        if (plies < game.acknowledged) {
            lost += game.acknowledged - plies;
        }
    }
    return lost;
}

// Every acknowledged write of a FULL store is on the disk at any instant, whatever the disk also
// kept of the writes not synced yet: none (0), some (0.5), or all (1, what SIGKILL leaves).
TEST(StoragePowerCut, FullSyncKeepsEveryAcknowledgedWrite) {
    SqliteOptions options;      // synchronous = FULL, as the server runs by default
    options.journal_rows = 24;  // filings happen often within a round
    std::uint64_t checkpoints = 0;
    std::uint64_t filings = 0;
    for (std::uint32_t seed = 1; seed <= 9; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        TempDatabase database;
        const double keep = (seed % 3) / 2.0;
        const std::uint64_t target = 300 + (seed * 977) % 4000;
        const CutRound round = run_until_cut(database, options, target, keep, seed);
        ASSERT_GE(round.acknowledged, target);
        EXPECT_EQ(check_consistent(round), 0U) << "acknowledged writes lost at FULL";
        checkpoints += round.stats.checkpoints + round.stats.inline_checkpoints;
        filings += round.stats.filings;
    }
    // The cuts fell beside the writer's two other kinds of disk work, not only its commits.
    EXPECT_GT(checkpoints, 0U);
    EXPECT_GT(filings, 0U);
}

// NORMAL syncs the WAL only at checkpoints: a cut may lose the last acknowledged writes, never the
// database's consistency.
TEST(StoragePowerCut, NormalSyncStaysConsistent) {
    SqliteOptions options;
    options.synchronous = Synchronous::normal;
    options.journal_rows = 24;
    for (std::uint32_t seed = 11; seed <= 16; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        TempDatabase database;
        const CutRound round =
            run_until_cut(database, options, 300 + (seed * 977) % 4000, (seed % 3) / 2.0, seed);
        check_consistent(round);
    }
}

// The model has teeth: with nothing synced after the store opened (NORMAL, no checkpoint yet)
// and none of the unsynced writes kept, acknowledged writes are gone after the cut, so the FULL
// test above would see a store that acknowledged before its sync.
TEST(StoragePowerCut, WritesNeverSyncedAreLost) {
    SqliteOptions options;
    options.synchronous = Synchronous::normal;
    options.checkpoint_thread = false;
    TempDatabase database;
    const CutRound round = run_until_cut(database, options, 200, 0.0, 7);
    ASSERT_GE(round.acknowledged, 200U);
    EXPECT_EQ(round.stats.checkpoints + round.stats.inline_checkpoints, 0U);
    EXPECT_GE(check_consistent(round), 200U);
}

}  // namespace
}  // namespace arbiter::server::storage
