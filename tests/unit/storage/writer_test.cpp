#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <future>
#include <limits>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "storage_test_support.hpp"

namespace arbiter::server::storage {
namespace {

using testing::appended;
using testing::created;
using testing::make_game;
using testing::make_move;
using testing::make_playing_game;
using testing::TempDatabase;
using testing::write_and_wait;
using Result = Expected<void, StorageError>;

SqliteOptions fast_options() {
    SqliteOptions options;
    options.synchronous = Synchronous::normal;
    return options;
}

TEST(StorageWriter, FaultyWriteFailsAloneWhileTheRestOfItsBatchCommits) {
    TempDatabase database;
    auto repository = testing::open_or_die(database.path(), fast_options());
    ASSERT_NE(repository, nullptr);
    ASSERT_TRUE(write_and_wait(*repository, created(make_playing_game("g", 1))));

    // Writes queued from inside a callback wait while the writer finishes running callbacks,
    // so all six land in the same batch. Two of them conflict with earlier ones.
    std::promise<Result> results[5];
    repository->write(created(make_game("trigger", 2)), [&](const Result&) {
        repository->write(appended("g", make_move(1, "e2e4")),
                          [&](const Result& r) { results[0].set_value(r); });
        repository->write(appended("g", make_move(1, "d2d4")),
                          [&](const Result& r) { results[1].set_value(r); });
        repository->write(appended("g", make_move(2, "e7e5")),
                          [&](const Result& r) { results[2].set_value(r); });
        repository->write(created(make_playing_game("other", 3)), {});
        repository->write(appended("other", make_move(1, "c2c4")),
                          [&](const Result& r) { results[3].set_value(r); });
        repository->write(appended("g", make_move(2, "c7c5")),
                          [&](const Result& r) { results[4].set_value(r); });
    });
    EXPECT_TRUE(results[0].get_future().get());
    EXPECT_FALSE(results[1].get_future().get());
    EXPECT_TRUE(results[2].get_future().get());
    EXPECT_TRUE(results[3].get_future().get());
    EXPECT_FALSE(results[4].get_future().get());
    repository->flush();
    const WriterStats after = repository->stats();
    EXPECT_EQ(after.batches, 3U);  // the game, the trigger, then the six together
    EXPECT_EQ(after.failed, 2U);
    EXPECT_EQ(after.replayed, 2U);  // rolled back once per faulty write, then committed
    EXPECT_EQ(after.retried_alone, 0U);

    auto loaded = repository->load("g");
    ASSERT_TRUE(loaded && loaded->has_value());
    ASSERT_EQ((*loaded)->moves.size(), 2U);
    EXPECT_EQ((*loaded)->moves[0].move, "e2e4");
    EXPECT_EQ((*loaded)->moves[1].move, "e7e5");
    EXPECT_TRUE(repository->load("other")->has_value());
}

// A queue longer than max_batch goes in batches of max_batch, in order; a shorter one is taken
// whole.
TEST(StorageWriter, AQueueLongerThanABatchGoesInBatchesOfAtMostMaxBatchInOrder) {
    TempDatabase database;
    SqliteOptions options = fast_options();
    options.max_batch = 4;
    auto repository = testing::open_or_die(database.path(), options);
    ASSERT_NE(repository, nullptr);
    ASSERT_TRUE(write_and_wait(*repository, created(make_playing_game("g", 1))));

    // Queued from inside a callback, all ten wait for the writer to take its next batch.
    std::mutex mutex;
    std::vector<int> done;
    repository->write(created(make_game("trigger", 2)), [&](const Result&) {
        for (int ply = 1; ply <= 10; ++ply) {
            repository->write(appended("g", make_move(static_cast<std::uint32_t>(ply),
                                                      ply % 2 ? "e2e4" : "e7e5")),
                              [&, ply](const Result& result) {
                                  EXPECT_TRUE(result) << ply;
                                  std::lock_guard lock(mutex);
                                  done.push_back(ply);
                              });
        }
    });
    repository->flush();  // the trigger, whose callback queues the ten
    repository->flush();  // the ten
    EXPECT_EQ(done, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
    EXPECT_EQ(repository->stats().batches, 5U);  // the game, the trigger, then 4 + 4 + 2
    auto loaded = repository->load("g");
    ASSERT_TRUE(loaded && loaded->has_value());
    EXPECT_EQ((*loaded)->moves.size(), 10U);
}

// The writer remembers each game's last ply so that a move goes to the journal without reading
// its row. A rolled-back pass must make it forget: the replayed pass writes from the start again,
// and a write it holds (a seat taken, a move) must land whole.
TEST(StorageWriter, WritesInABatchThatIsReplayedAreStoredWhole) {
    TempDatabase database;
    auto repository = testing::open_or_die(database.path(), fast_options());
    ASSERT_NE(repository, nullptr);
    ASSERT_TRUE(write_and_wait(*repository, created(make_game("g", 1))));
    ASSERT_TRUE(write_and_wait(*repository, created(make_playing_game("other", 2))));
    ASSERT_TRUE(write_and_wait(*repository, appended("other", make_move(1, "c2c4"))));

    std::promise<Result> results[3];
    repository->write(created(make_game("trigger", 3)), [&](const Result&) {
        repository->write(SeatPlayer{"g", rules::Side::second, SeatRow{"bob", "bb", "", 0}, 2, 5},
                          [&](const Result& r) { results[0].set_value(r); });
        repository->write(appended("g", make_move(1, "e2e4")),
                          [&](const Result& r) { results[1].set_value(r); });
        // Faulty (ply 1 of the other game is taken): the pass that wrote "bob" is rolled back.
        repository->write(appended("other", make_move(1, "d2d4")),
                          [&](const Result& r) { results[2].set_value(r); });
    });
    EXPECT_TRUE(results[0].get_future().get());
    EXPECT_TRUE(results[1].get_future().get());
    EXPECT_FALSE(results[2].get_future().get());
    repository->flush();
    EXPECT_EQ(repository->stats().replayed, 1U);
    auto loaded = repository->load("g");
    ASSERT_TRUE(loaded && loaded->has_value());
    EXPECT_EQ((*loaded)->header.seats[1].name, "bob");
    EXPECT_EQ((*loaded)->header.status, protocol::GameStatus::playing);
    EXPECT_EQ((*loaded)->header.ply, 1U);
    EXPECT_EQ((*loaded)->moves.size(), 1U);
}

TEST(StorageWriter, WriteThatFillsTheDiskFailsAloneAfterTheBatchIsRetried) {
    TempDatabase database;
    SqliteOptions options = fast_options();
    options.max_size_bytes = std::uint64_t{256} * 1024;
    auto repository = testing::open_or_die(database.path(), options);
    ASSERT_NE(repository, nullptr);
    ASSERT_TRUE(write_and_wait(*repository, created(make_game("g0", 1))));

    GameRow huge = make_game("huge", 2);
    huge.initial_position = std::string(std::size_t{1024} * 1024, 'x');
    std::promise<Result> results[3];
    repository->write(created(make_game("trigger", 0)), [&](const Result&) {
        repository->write(created(make_game("small1", 3)),
                          [&](const Result& r) { results[0].set_value(r); });
        repository->write(created(huge), [&](const Result& r) { results[1].set_value(r); });
        repository->write(created(make_game("small2", 4)),
                          [&](const Result& r) { results[2].set_value(r); });
    });
    EXPECT_TRUE(results[0].get_future().get());
    const Result full = results[1].get_future().get();
    ASSERT_FALSE(full);
    EXPECT_NE(full.error().message.find("full"), std::string::npos) << full.error().message;
    EXPECT_TRUE(results[2].get_future().get());
    repository->flush();
    EXPECT_TRUE(repository->load("small1")->has_value());
    EXPECT_TRUE(repository->load("small2")->has_value());
    EXPECT_FALSE(repository->load("huge")->has_value());
    // SQLite answers SQLITE_FULL by rolling back the whole transaction, so this exercises the
    // one-write-per-transaction retry of the batch.
    EXPECT_EQ(repository->stats().retried_alone, 1U);
    EXPECT_EQ(repository->stats().failed, 1U);
    EXPECT_TRUE(repository->writable());  // the batch committed; the store is healthy
}

TEST(StorageWriter, ManyThreadsCommitEverythingWithCallbacksOnceInOrder) {
    TempDatabase database;
    auto repository = testing::open_or_die(database.path());  // synchronous = FULL
    ASSERT_NE(repository, nullptr);
    constexpr int thread_count = 4;
    constexpr std::uint32_t writes_per_thread = 150;
    std::mutex seen_mutex;
    std::vector<std::vector<std::uint32_t>> seen(thread_count);
    std::atomic<int> failures{0};

    std::vector<std::thread> threads;
    threads.reserve(thread_count);
    for (int t = 0; t < thread_count; ++t) {
        threads.emplace_back([&, t] {
            const std::string game = "thread" + std::to_string(t);
            repository->write(created(make_playing_game(game, t)), {});
            for (std::uint32_t ply = 1; ply <= writes_per_thread; ++ply) {
                repository->write(appended(game, make_move(ply, "m" + std::to_string(ply))),
                                  [&, t, ply](const Result& result) {
                                      failures += result ? 0 : 1;
                                      std::lock_guard lock(seen_mutex);
                                      seen[t].push_back(ply);
                                  });
            }
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    repository->flush();

    EXPECT_EQ(failures.load(), 0);
    std::vector<std::uint32_t> expected(writes_per_thread);
    for (std::uint32_t i = 0; i < writes_per_thread; ++i) {
        expected[i] = i + 1;
    }
    for (int t = 0; t < thread_count; ++t) {
        std::lock_guard lock(seen_mutex);
        EXPECT_EQ(seen[t], expected) << "thread " << t;
        auto loaded = repository->load("thread" + std::to_string(t));
        ASSERT_TRUE(loaded && loaded->has_value());
        EXPECT_EQ((*loaded)->moves.size(), writes_per_thread);
        EXPECT_EQ((*loaded)->header.ply, writes_per_thread);
    }
    const WriterStats stats = repository->stats();
    EXPECT_EQ(stats.committed, thread_count * (writes_per_thread + 1));
    EXPECT_LE(stats.batches, stats.committed);
    EXPECT_EQ(stats.queued, 0U);
}

TEST(StorageWriter, FlushWaitsForEveryEarlierCallback) {
    TempDatabase database;
    auto repository = testing::open_or_die(database.path(), fast_options());
    ASSERT_NE(repository, nullptr);
    std::atomic<int> done{0};
    for (int i = 0; i < 300; ++i) {
        repository->write(created(make_game("g" + std::to_string(i), i)),
                          [&](const Result& result) { done += result ? 1 : 0; });
    }
    repository->flush();
    EXPECT_EQ(done.load(), 300);
    GameQuery query;
    query.limit = 200;
    EXPECT_EQ(repository->list(query)->size(), 200U);
}

TEST(StorageWriter, DestructorCommitsTheQueueAndRunsItsCallbacks) {
    TempDatabase database;
    std::atomic<int> done{0};
    {
        auto repository = testing::open_or_die(database.path(), fast_options());
        ASSERT_NE(repository, nullptr);
        for (int i = 0; i < 100; ++i) {
            repository->write(created(make_game("g" + std::to_string(i), i)),
                              [&](const Result& result) { done += result ? 1 : 0; });
        }
    }
    EXPECT_EQ(done.load(), 100);
    auto reopened = testing::open_or_die(database.path());
    ASSERT_NE(reopened, nullptr);
    EXPECT_TRUE(reopened->load("g99")->has_value());
}

std::uintmax_t wal_bytes(const std::string& path) {
    std::error_code error;
    const auto size = std::filesystem::file_size(path + "-wal", error);
    return error ? 0 : size;
}

// Frames in the WAL since it last restarted from its start: PRAGMA wal_checkpoint's second
// column. (The PASSIVE checkpoint it runs copies what it can; no write sees a difference.) While
// the repository's checkpoint thread is copying, the pragma answers busy and no count, so it is
// asked again; no answer at all counts as a WAL that never restarted.
std::int64_t wal_frames(const std::string& path) {
    auto connection = sqlite::Connection::open(path, false);
    EXPECT_TRUE(connection);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (connection && std::chrono::steady_clock::now() < give_up) {
        if (auto statement = connection->prepare("PRAGMA wal_checkpoint(PASSIVE)")) {
            const auto row = statement->step();
            if (row && *row && statement->column_int64(0) == 0 && statement->column_int64(1) >= 0) {
                return statement->column_int64(1);
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "PRAGMA wal_checkpoint gave no frame count";
    return std::numeric_limits<std::int64_t>::max();
}

// Checkpoints run on their own thread (not inside a batch's COMMIT), and the WAL keeps
// restarting from its start both when they can finish and after a reader's open snapshot kept
// them from finishing. Each write below is its own commit of at least two pages (the games row
// and an index page), so 6,000 writes append 12,000+ frames, three times the size past which the
// writer finishes a checkpoint itself. The restarts are counted where they happen (a commit that
// leaves fewer frames than the one before). How many frames the WAL holds at the end is not the
// test: a thread's pass that an fsync starves lets the writer append thousands of frames before
// the WAL may restart (a full `ctest -j2` once left 11,701). The file's size is the WAL's peak,
// so it is checked only where no restart is possible.
TEST(StorageWriter, CheckpointsKeepTheWalBoundedOffTheWritersPath) {
    TempDatabase database;
    auto repository = testing::open_or_die(database.path(), fast_options());
    ASSERT_NE(repository, nullptr);
    // ~4 KiB per header, two pages each (the games row and an index page).
    GameRow big = make_game("g", 1);
    big.initial_position = std::string(4000, 'p');
    auto write_many = [&](int count, int offset) {
        for (int i = 0; i < count; ++i) {
            big.id = "g" + std::to_string(offset + i);
            ASSERT_TRUE(write_and_wait(*repository, created(big)));
        }
    };
    write_many(6000, 0);
    repository->flush();
    EXPECT_GE(repository->stats().checkpoints, 1U);
    EXPECT_GE(repository->stats().wal_restarts, 1U) << "the WAL did not restart";
    const std::uintmax_t frame = 4096 + 24;

    // A reader in the middle of a read transaction pins the WAL: no checkpoint can copy past its
    // snapshot and the WAL grows; the writer is not blocked, and once the reader is done the
    // WAL restarts again.
    auto reader = sqlite::Connection::open(database.path(), false);
    ASSERT_TRUE(reader);
    ASSERT_TRUE(reader->exec("BEGIN"));
    ASSERT_TRUE(reader->query_int64("SELECT count(*) FROM games"));
    write_many(6000, 6000);
    const std::uintmax_t pinned = wal_bytes(database.path());
    EXPECT_GT(pinned, 8000 * frame);
    ASSERT_TRUE(reader->exec("COMMIT"));
    const std::uint64_t restarts_before = repository->stats().wal_restarts;
    write_many(6000, 12000);
    repository->flush();
    EXPECT_GE(repository->stats().wal_restarts, restarts_before + 1)
        << "the WAL did not restart after the reader";
    auto last = repository->load("g17999");
    ASSERT_TRUE(last && last->has_value());
    EXPECT_EQ((*last)->header.initial_position, big.initial_position);
}

// Under steady writes the checkpoint thread may never finish between two commits, and then only
// the writer's own pass restarts the WAL. Without the thread that pass is all there is, so this
// fails whenever it is missing (the WAL would hold the 12,000+ frames written).
TEST(StorageWriter, WritersOwnCheckpointRestartsTheWalWhenTheThreadCannot) {
    TempDatabase database;
    SqliteOptions options = fast_options();
    options.checkpoint_thread = false;
    auto repository = testing::open_or_die(database.path(), options);
    ASSERT_NE(repository, nullptr);
    GameRow big = make_game("g", 1);
    big.initial_position = std::string(4000, 'p');
    for (int i = 0; i < 6000; ++i) {
        big.id = "g" + std::to_string(i);
        ASSERT_TRUE(write_and_wait(*repository, created(big)));
    }
    repository->flush();
    EXPECT_EQ(repository->stats().checkpoints, 0U);
    EXPECT_GE(repository->stats().inline_checkpoints, 2U);
    EXPECT_GE(repository->stats().wal_restarts, 2U);
    EXPECT_LT(wal_frames(database.path()), 10000) << "the WAL did not restart";
    auto last = repository->load("g5999");
    ASSERT_TRUE(last && last->has_value());
    EXPECT_EQ((*last)->header.initial_position, big.initial_position);
}

TEST(StorageWriter, NotWritableWhileAnotherProcessHoldsTheWriteLock) {
    TempDatabase database;
    SqliteOptions options = fast_options();
    options.busy_timeout = std::chrono::milliseconds(50);
    auto repository = testing::open_or_die(database.path(), options);
    ASSERT_NE(repository, nullptr);
    EXPECT_TRUE(repository->writable());

    auto other = sqlite::Connection::open(database.path(), false);
    ASSERT_TRUE(other);
    ASSERT_TRUE(other->exec("BEGIN IMMEDIATE"));
    EXPECT_FALSE(repository->writable());
    // A batch that cannot take the lock fails as a whole, and says why.
    auto written = write_and_wait(*repository, created(make_game("blocked", 1)));
    ASSERT_FALSE(written);
    EXPECT_NE(written.error().message.find("locked"), std::string::npos) << written.error().message;
    ASSERT_TRUE(other->exec("ROLLBACK"));

    EXPECT_FALSE(repository->writable());  // until a batch commits again (or write_probe_after)
    EXPECT_TRUE(write_and_wait(*repository, created(make_game("free", 2))));
    EXPECT_TRUE(repository->writable());
}

std::multiset<std::string> thread_names() {
    std::multiset<std::string> names;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
        std::ifstream comm(task.path() / "comm");
        std::string name;
        if (std::getline(comm, name)) {
            names.insert(name);
        }
    }
    return names;
}

TEST(StorageWriter, ItsThreadsCarryNamesForTopAndPerf) {
    TempDatabase database;
    auto repository = testing::open_or_die(database.path(), fast_options());
    ASSERT_NE(repository, nullptr);
    // Each thread names itself as it starts: the writer has once it committed a write; the
    // checkpoint thread may not have been scheduled yet.
    ASSERT_TRUE(write_and_wait(*repository, created(make_game("g", 1))));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    auto names = thread_names();
    while (names.count("arbiter-ckpt") == 0 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        names = thread_names();
    }
    EXPECT_EQ(names.count("arbiter-writer"), 1U);
    EXPECT_EQ(names.count("arbiter-ckpt"), 1U);
    repository.reset();
    EXPECT_EQ(thread_names().count("arbiter-writer"), 0U);
}

}  // namespace
}  // namespace arbiter::server::storage
