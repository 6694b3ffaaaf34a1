// What a power cut leaves of the database, through the model of power_cut_vfs.hpp. SIGKILL
// (durability_test.cpp, scripts/crash_safety.py) keeps the page cache, so it cannot tell a
// write that reached the disk from one that did not; these tests can. Every stored game must be
// exactly one of the states its writes left (moves, takebacks, its end); at synchronous = FULL
// never one before its last acknowledged write, with the journal filed, the WAL checkpointed
// and restarted at any moment. At NORMAL the last acknowledged writes may be lost.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
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

// One game as the players saw it: every write sent to the store, as the moves it leaves, and how
// many of them the store acknowledged while the power was on. A game's next write is sent only
// once its previous one is acknowledged, so at most one is ever in flight.
struct TrackedGame {
    std::string id;
    std::uint32_t length = 0;  // the ply whose move ends the game
    /// states[k]: the moves (wire text by ply) after write k; write 0 creates the game.
    std::vector<std::vector<std::string>> states;
    std::size_t acknowledged = 0;  // writes acknowledged before the cut
    std::uint32_t takebacks = 0;

    bool ends_with(std::size_t write) const { return states[write].size() == length; }
};

// Plays `slots` games at once against the store as a server does: moves, now and then a
// takeback of the last move (which truncates it and, once filed, its journal row), and a last
// move that ends the game; a new game then takes the slot. A write is submitted from the
// callback of the game's previous one. Acknowledgements count only while the power is on.
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
        game.states.emplace_back();
        games_.push_back(game);
        const std::size_t index = games_.size() - 1;
        GameRow header = make_game(games_[index].id, 1000);
        header.status = protocol::GameStatus::playing;
        header.seq = 1;
        repository_.write(CreateGame{std::move(header)},
                          [this, index](const Result& result) { on_written(index, 0, result); });
    }

    // After write `done` of the game was acknowledged: its next one.
    void submit_next(std::size_t index, std::size_t done) {
        const std::lock_guard lock(games_mutex_);
        TrackedGame& game = games_[index];
        std::vector<std::string> moves = game.states[done];
        const std::size_t write = done + 1;
        GameIntent change;
        const bool take_back =
            moves.size() >= 2 && std::bernoulli_distribution(0.12)(random_) && game.takebacks < 8;
        if (take_back) {
            ++game.takebacks;
            moves.pop_back();
            change = TakeBack{game.id, static_cast<std::uint32_t>(moves.size()), {}, write + 1, 0};
        } else {
            const auto ply = static_cast<std::uint32_t>(moves.size() + 1);
            // Each write's move text is its own: a lost takeback cannot pass for the move
            // played again after it.
            moves.push_back(game.id + ":" + std::to_string(ply) + ":" + std::to_string(write));
            MoveRow move = make_move(ply, moves.back());
            move.seq = write + 1;
            AppendMove append{game.id, std::move(move), {}, write + 1, std::nullopt};
            if (moves.size() == game.length) {
                append.ending = GameEnding{protocol::GameStatus::ended, rules::Outcome::first_wins,
                                           protocol::EndReason::checkmate};
            }
            change = std::move(append);
        }
        game.states.push_back(std::move(moves));
        repository_.write(std::move(change), [this, index, write](const Result& result) {
            on_written(index, write, result);
        });
    }

    void on_written(std::size_t index, std::size_t write, const Result& result) {
        if (!result) {
            ++failures_;
            return;
        }
        vfs_.if_powered([&] {
            const std::lock_guard lock(games_mutex_);
            games_[index].acknowledged = write + 1;
            ++acknowledged_;
        });
        bool ended = false;
        {
            const std::lock_guard lock(games_mutex_);
            ended = write > 0 && games_[index].ends_with(write);
        }
        if (stopping_.load()) {
            return;
        }
        if (ended) {
            start_game();
        } else {
            submit_next(index, write);
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
    std::uint64_t failures = 0;  // writes refused
    WriterStats stats;
    bool sync_failed = false;  // the planned failing sync happened
    /// What the store said of itself after the planned fault (a failed sync, a full disk).
    bool writable_after_fault = true;
    bool written_after_full = false;  // a write once space was free again
};

// When the power goes off, and what the disk keeps of what was not synced.
struct CutPlan {
    std::uint64_t acknowledgements = 0;  // plays until that many writes were acknowledged
    double keep_unsynced = 0;
    std::uint32_t seed = 0;
    /// Then the next WAL sync with at least this many writes pending fails, and the writes
    /// go on for a while before the cut.
    std::optional<std::size_t> failing_sync;
    /// Or the disk fills up until writes fail, and then has space again.
    bool disk_fills = false;
};

// Round `seed` of a test: from `least` to `least + spread` acknowledgements, and none, half or
// all of the unsynced writes kept, by turns.
CutPlan varied_plan(std::uint32_t seed, std::uint64_t least, std::uint64_t spread) {
    return CutPlan{least + (seed * 977) % spread, (seed % 3) / 2.0, seed, {}};
}

// Waits until `done` or `limit`, whichever comes first.
template <typename Condition>
void wait_until(Condition done, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

// Plays as planned and cuts the power: a moment after the planned acknowledgements (so that the
// cut falls anywhere: in a batch, a filing or a checkpoint), or after the failing sync.
CutRound run_until_cut(const TempDatabase& database, const SqliteOptions& options,
                       const CutPlan& plan) {
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
    Players players(*repository, vfs, 6, plan.seed);
    wait_until(
        [&] { return players.acknowledged() >= plan.acknowledgements || players.failures() > 0; },
        std::chrono::seconds(120));
    if (plan.failing_sync) {
        vfs.fail_next_wal_sync(*plan.failing_sync);
        wait_until([&] { return vfs.wal_sync_failed(); }, std::chrono::seconds(60));
        // What the store does after the failure is what counts: give it time to acknowledge
        // more, if it would.
        const std::uint64_t at_failure = players.acknowledged();
        wait_until([&] { return players.acknowledged() >= at_failure + 300; },
                   std::chrono::milliseconds(300));
        round.sync_failed = vfs.wal_sync_failed();
        round.writable_after_fault = repository->writable();
    } else if (plan.disk_fills) {
        vfs.set_disk_full(true);
        wait_until([&] { return players.failures() > 0; }, std::chrono::seconds(60));
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        round.writable_after_fault = repository->writable();
        vfs.set_disk_full(false);
        round.written_after_full =
            testing::write_and_wait(*repository, CreateGame{make_game("after-full", 2000)})
                .has_value() &&
            repository->writable();
    } else {
        std::this_thread::sleep_for(std::chrono::microseconds(plan.seed % 3000));
    }
    EXPECT_TRUE(vfs.cut(round.folder, plan.keep_unsynced, plan.seed));
    EXPECT_GT(vfs.syncs(), 0U);
    players.stop();
    round.stats = repository->stats();
    repository.reset();
    round.acknowledged = players.acknowledged();
    round.failures = players.failures();
    round.games = players.games();
    return round;
}

// Which of the game's states the store holds: the latest k whose moves and status are the ones
// stored, or nullopt if none is.
std::optional<std::size_t> stored_state(const TrackedGame& game, const StoredGame& stored) {
    std::vector<std::string> moves;
    for (std::size_t i = 0; i < stored.moves.size(); ++i) {
        EXPECT_EQ(stored.moves[i].ply, i + 1) << game.id;
        moves.push_back(stored.moves[i].move);
    }
    EXPECT_EQ(stored.header.ply, moves.size()) << game.id;
    for (std::size_t k = game.states.size(); k-- > 0;) {
        const bool ended = k > 0 && game.ends_with(k);
        if (game.states[k] == moves &&
            (stored.header.status == protocol::GameStatus::ended) == ended) {
            return k;
        }
    }
    return std::nullopt;
}

// Each stored game is one of the states its writes left, moves and header alike. Returns the
// games found in a state before their last acknowledged write (lost writes).
std::uint64_t check_games(const CutRound& round) {
    EXPECT_EQ(integrity_of(round.database), "ok");
    auto repository = testing::open_or_die(round.database);
    if (repository == nullptr) {
        return 0;
    }
    EXPECT_TRUE(repository->load_unfinished());
    std::uint64_t behind = 0;
    for (const TrackedGame& game : round.games) {
        auto loaded = repository->load(game.id);
        EXPECT_TRUE(loaded) << loaded.error().message;
        if (!loaded || !loaded->has_value()) {
            behind += game.acknowledged > 0 ? 1 : 0;
            continue;
        }
        const auto state = stored_state(game, **loaded);
        EXPECT_TRUE(state.has_value()) << game.id << " holds moves no write left";
        // The write after the last acknowledged one may have reached the disk; no later one
        // was sent.
        if (state && *state + 1 < game.acknowledged) {
            ++behind;
        }
    }
    return behind;
}

// Every acknowledged write of a FULL store is on the disk at any instant, whatever the disk also
// kept of the writes not synced yet: none (0), some (0.5), or all (1, what SIGKILL leaves).
TEST(StoragePowerCut, FullSyncKeepsEveryAcknowledgedWrite) {
    SqliteOptions options;      // synchronous = FULL, as the server runs by default
    options.journal_rows = 24;  // filings happen often within a round
    std::uint64_t checkpoints = 0;
    std::uint64_t filings = 0;
    std::uint64_t takebacks = 0;
    for (std::uint32_t seed = 1; seed <= 9; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        TempDatabase database;
        const CutPlan plan = varied_plan(seed, 300, 4000);
        const CutRound round = run_until_cut(database, options, plan);
        ASSERT_GE(round.acknowledged, plan.acknowledgements);
        EXPECT_EQ(round.failures, 0U);
        EXPECT_EQ(check_games(round), 0U) << "acknowledged writes lost at FULL";
        checkpoints += round.stats.checkpoints + round.stats.inline_checkpoints;
        filings += round.stats.filings;
        for (const TrackedGame& game : round.games) {
            takebacks += game.takebacks;
        }
    }
    // The cuts fell beside the writer's two other kinds of disk work, not only its commits.
    EXPECT_GT(checkpoints, 0U);
    EXPECT_GT(filings, 0U);
    EXPECT_GT(takebacks, 0U);
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
        const CutRound round = run_until_cut(database, options, varied_plan(seed, 300, 4000));
        EXPECT_EQ(round.failures, 0U);
        check_games(round);
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
    const CutRound round = run_until_cut(database, options, {200, 0.0, 7, {}});
    ASSERT_GE(round.acknowledged, 200U);
    EXPECT_EQ(round.stats.checkpoints + round.stats.inline_checkpoints, 0U);
    const auto acknowledged_games =
        std::count_if(round.games.begin(), round.games.end(),
                      [](const TrackedGame& game) { return game.acknowledged > 0; });
    EXPECT_GT(acknowledged_games, 0);
    EXPECT_EQ(check_games(round), static_cast<std::uint64_t>(acknowledged_games));
}

// A failed fsync (a failing disk, or thin storage out of space) may drop what it covered while
// the kernel keeps it cached as written, so later syncs that succeed do not bring it back. Here
// the failing sync is one with many writes pending, such as a filing's frames (committed at
// NORMAL, left for the next sync): a store that went on acknowledging would have writes after
// a hole in the WAL, which a crash cuts off. It must refuse every write from then on, say it is
// not writable, and lose nothing it acknowledged.
TEST(StoragePowerCut, AFailedSyncStopsTheStoreBeforeItLosesAnything) {
    SqliteOptions options;
    options.journal_rows = 24;
    for (std::uint32_t seed = 21; seed <= 26; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        TempDatabase database;
        CutPlan plan = varied_plan(seed, 200, 2000);
        plan.failing_sync = 16;
        const CutRound round = run_until_cut(database, options, plan);
        ASSERT_TRUE(round.sync_failed);
        EXPECT_GT(round.failures, 0U);
        EXPECT_FALSE(round.writable_after_fault);
        EXPECT_EQ(check_games(round), 0U) << "acknowledged writes lost after a failed sync";
    }
}

// A full disk (ENOSPC) passes, unlike a failed fsync: a write that needs space fails and changes
// nothing, nothing acknowledged is lost, and once there is space again the store takes writes as
// before (the failed fsync's refusal must not catch it).
TEST(StoragePowerCut, AFullDiskRefusesWritesOnlyWhileItIsFull) {
    SqliteOptions options;
    options.journal_rows = 24;
    for (std::uint32_t seed = 31; seed <= 33; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        TempDatabase database;
        CutPlan plan = varied_plan(seed, 200, 1);
        plan.disk_fills = true;
        const CutRound round = run_until_cut(database, options, plan);
        EXPECT_GT(round.failures, 0U);
        EXPECT_FALSE(round.writable_after_fault);
        EXPECT_TRUE(round.written_after_full);
        EXPECT_EQ(check_games(round), 0U) << "acknowledged writes lost to a full disk";
        auto repository = testing::open_or_die(round.database);
        ASSERT_NE(repository, nullptr);
        auto after = repository->load("after-full");
        EXPECT_TRUE(after && after->has_value())
            << "the write acknowledged after the disk had room";
    }
}

// After a full disk the store finds that it is writable again with no move written: /healthz
// answers from writable(), and a balancer that sends no players to an unhealthy server would
// never send the move that clears it. Right after a failed write it answers from that write;
// once none has been tried for write_probe_after, from a write of its own.
TEST(StoragePowerCut, AfterAFullDiskTheStoreIsWritableOnceThereIsRoom) {
    PowerCutVfs vfs;  // destroyed last: the repository's connections close first
    TempDatabase database;
    SqliteOptions options;
    options.write_probe_after = std::chrono::milliseconds(100);
    auto repository = testing::open_or_die(database.path(), options);
    ASSERT_NE(repository, nullptr);
    ASSERT_TRUE(repository->writable());
    vfs.set_disk_full(true);
    std::size_t written = 0;
    while (written < 1000 &&
           testing::write_and_wait(*repository,
                                   CreateGame{make_game("full-" + std::to_string(written), 1000)})
               .has_value()) {
        ++written;
    }
    ASSERT_LT(written, 1000U) << "no write needed space";
    EXPECT_FALSE(repository->writable()) << "a write failed just now";
    std::this_thread::sleep_for(options.write_probe_after);
    EXPECT_FALSE(repository->writable()) << "the probe's own write needs space too";
    vfs.set_disk_full(false);
    EXPECT_TRUE(repository->writable()) << "the disk has room, and no move was written since";
    EXPECT_TRUE(
        testing::write_and_wait(*repository, CreateGame{make_game("room", 1000)}).has_value());
    EXPECT_TRUE(repository->writable());
    const auto stored = repository->load("room");
    EXPECT_TRUE(stored && stored->has_value());
    EXPECT_EQ(integrity_of(database.path()), "ok");
}

}  // namespace
}  // namespace arbiter::server::storage
