// SqliteRepository::write_here: a game's write committed on its caller's thread while the writer
// has nothing to do, and handed to the writer whenever that would cost another write anything.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "storage_test_support.hpp"

namespace arbiter::server::storage {
namespace {

using testing::appended;
using testing::created;
using testing::make_move;
using testing::make_playing_game;
using testing::TempDatabase;
using testing::write_and_wait;
using Result = Expected<void, StorageError>;

SqliteOptions normal_options() {
    SqliteOptions options;
    options.synchronous = Synchronous::normal;
    return options;
}

// Writes `intent` through the writer's thread and returns once that thread let the connection go.
Result write_and_settle(SqliteRepository& repository, GameIntent intent) {
    Result result = write_and_wait(repository, std::move(intent));
    repository.flush();
    return result;
}

std::size_t moves_of(SqliteRepository& repository, const std::string& game) {
    auto loaded = repository.load(game);
    if (!loaded || !loaded->has_value()) {
        ADD_FAILURE() << "no game " << game;
        return 0;
    }
    return (*loaded)->moves.size();
}

// A store at `options` holding the playing game "g", its writer's thread idle; nullptr (and a
// failure) if either step fails.
std::unique_ptr<SqliteRepository> store_with_game(const TempDatabase& database,
                                                  const SqliteOptions& options) {
    auto repository = testing::open_or_die(database.path(), options);
    if (repository && !write_and_settle(*repository, created(make_playing_game("g", 1)))) {
        ADD_FAILURE() << "creating g";
        return nullptr;
    }
    return repository;
}

// Holds the writer's thread inside a callback (the connection is then in use) until released.
class HeldWriter {
  public:
    explicit HeldWriter(SqliteRepository& repository) {
        repository.write(created(make_playing_game("holder", 99)), [this](const Result&) {
            entered_.set_value();
            release_.get_future().wait();
        });
        entered_.get_future().wait();
    }
    void release() { release_.set_value(); }

  private:
    std::promise<void> entered_;
    std::promise<void> release_;
};

TEST(CommitHere, AnIdleStoreCommitsTheWriteAtOnceOnTheCallersThread) {
    TempDatabase database;
    auto repository = store_with_game(database, normal_options());
    ASSERT_NE(repository, nullptr);

    GameIntent move = appended("g", make_move(1, "e2e4"));
    const auto here = repository->write_here(move);
    ASSERT_TRUE(here.has_value()) << "nothing was queued and nothing overlapped";
    EXPECT_TRUE(*here);
    EXPECT_EQ(moves_of(*repository, "g"), 1U) << "stored before write_here returned";
    const WriterStats stats = repository->stats();
    EXPECT_EQ(stats.committed_here, 1U);
    EXPECT_EQ(stats.committed, 2U);
    EXPECT_EQ(stats.batches, 1U) << "only the creation went through the writer's thread";
}

TEST(CommitHere, AWriteThatDoesNotFollowFailsAndChangesNothing) {
    TempDatabase database;
    auto repository = store_with_game(database, normal_options());
    ASSERT_NE(repository, nullptr);

    GameIntent gap = appended("g", make_move(2, "e7e5"));
    const auto here = repository->write_here(gap);
    ASSERT_TRUE(here.has_value());
    EXPECT_FALSE(*here) << "ply 2 before ply 1";
    EXPECT_EQ(moves_of(*repository, "g"), 0U);
    EXPECT_EQ(repository->stats().failed, 1U);
    // The store goes on: the right move commits next.
    GameIntent move = appended("g", make_move(1, "e2e4"));
    const auto next = repository->write_here(move);
    ASSERT_TRUE(next.has_value());
    EXPECT_TRUE(*next);
    EXPECT_EQ(moves_of(*repository, "g"), 1U);
}

TEST(CommitHere, WhileTheWriterIsBusyTheWriteIsLeftWholeForTheQueue) {
    TempDatabase database;
    auto repository = store_with_game(database, normal_options());
    ASSERT_NE(repository, nullptr);

    HeldWriter held(*repository);
    GameIntent move = appended("g", make_move(1, "e2e4"));
    EXPECT_FALSE(repository->write_here(move).has_value()) << "the connection is in use";
    ASSERT_TRUE(std::holds_alternative<AppendMove>(move));
    EXPECT_EQ(std::get<AppendMove>(move).move.move, "e2e4") << "the intent is left as it was";
    EXPECT_EQ(std::get<AppendMove>(move).game, "g");

    std::promise<Result> stored;
    repository->write(std::move(move), [&](const Result& result) { stored.set_value(result); });
    GameIntent second = appended("g", make_move(2, "e7e5"));
    EXPECT_FALSE(repository->write_here(second).has_value())
        << "a write queued before it would be overtaken";
    held.release();
    EXPECT_TRUE(stored.get_future().get());
    EXPECT_TRUE(write_and_wait(*repository, std::move(second)));
    EXPECT_EQ(moves_of(*repository, "g"), 2U);
    EXPECT_EQ(repository->stats().committed_here, 0U);
}

// Another connection holding the write lock (the health probe, an sqlite3 shell) would make the
// caller wait up to busy_timeout: the write goes to the writer's thread instead, whole.
TEST(CommitHere, ALockHeldByAnotherConnectionSendsTheWriteToTheQueueWithoutWaiting) {
    TempDatabase database;
    SqliteOptions options = normal_options();
    options.busy_timeout = std::chrono::milliseconds(60000);  // a wait here would hang the test
    auto repository = store_with_game(database, options);
    ASSERT_NE(repository, nullptr);

    auto other = sqlite::Connection::open(database.path(), false);
    ASSERT_TRUE(other);
    ASSERT_TRUE(other->exec("BEGIN IMMEDIATE"));
    GameIntent move = appended("g", make_move(1, "e2e4"));
    EXPECT_FALSE(repository->write_here(move).has_value()) << "the lock is another's";
    ASSERT_TRUE(std::holds_alternative<AppendMove>(move));
    EXPECT_EQ(std::get<AppendMove>(move).move.move, "e2e4") << "the intent is left as it was";
    EXPECT_EQ(repository->stats().failed, 0U) << "nothing failed: the writer takes it";

    std::promise<Result> stored;
    repository->write(std::move(move), [&](const Result& result) { stored.set_value(result); });
    ASSERT_TRUE(other->exec("ROLLBACK"));  // the writer's thread gets the lock it waits for
    EXPECT_TRUE(stored.get_future().get());
    EXPECT_EQ(moves_of(*repository, "g"), 1U);
    EXPECT_TRUE(repository->writable());
}

TEST(CommitHere, ClosedWhileWritesOverlapAndOpenAgainOnceTheyStopOverlapping) {
    TempDatabase database;
    auto repository = store_with_game(database, normal_options());
    ASSERT_NE(repository, nullptr);

    // Ten writes that each find the writer busy: a load that batching serves.
    {
        HeldWriter held(*repository);
        for (int i = 0; i < 10; ++i) {
            repository->write(created(make_playing_game("busy" + std::to_string(i), i)), {});
        }
        held.release();
        repository->flush();
    }
    std::uint32_t ply = 1;
    GameIntent first = appended("g", make_move(ply, "m1"));
    EXPECT_FALSE(repository->write_here(first).has_value())
        << "the writer is idle, but writes overlapped lately: they go on sharing its batches";

    // Writes one at a time, each after the last one's commit: the average falls, and the path
    // opens again after a few: 9 from the overlap above (its weight 1/8, its gate 1/4).
    ASSERT_TRUE(write_and_settle(*repository, std::move(first)));
    int queued = 1;
    std::optional<Result> here;
    while (!here && queued < 50) {
        ++ply;
        GameIntent move = appended("g", make_move(ply, "m" + std::to_string(ply)));
        here = repository->write_here(move);
        if (!here) {
            ASSERT_TRUE(write_and_settle(*repository, std::move(move)));
            ++queued;
        }
    }
    ASSERT_TRUE(here.has_value()) << "still closed after " << queued << " writes without overlap";
    EXPECT_TRUE(*here);
    EXPECT_GE(queued, 7) << "the average falls by 1/8 a write";
    EXPECT_LE(queued, 12);
    EXPECT_EQ(moves_of(*repository, "g"), ply);
}

TEST(CommitHere, NeverAtFullSyncNorWhenSwitchedOff) {
    TempDatabase full_database;
    auto full = store_with_game(full_database, SqliteOptions{});  // FULL, the default
    ASSERT_NE(full, nullptr);
    GameIntent move = appended("g", make_move(1, "e2e4"));
    EXPECT_FALSE(full->write_here(move).has_value()) << "a commit at FULL waits for an fsync";

    TempDatabase off_database;
    SqliteOptions options = normal_options();
    options.commit_on_caller = false;
    auto off = store_with_game(off_database, options);
    ASSERT_NE(off, nullptr);
    EXPECT_FALSE(off->write_here(move).has_value());
    EXPECT_TRUE(write_and_wait(*off, std::move(move)));
}

TEST(CommitHere, TheWritersThreadFilesTheJournalThatCommitsHereFilled) {
    TempDatabase database;
    SqliteOptions options = normal_options();
    options.journal_rows = 4;
    {
        auto repository = store_with_game(database, options);
        ASSERT_NE(repository, nullptr);
        std::uint64_t here_count = 0;
        for (std::uint32_t ply = 1; ply <= 12; ++ply) {
            GameIntent move = appended("g", make_move(ply, "m" + std::to_string(ply)));
            if (auto here = repository->write_here(move)) {
                ASSERT_TRUE(*here);
                ++here_count;
            } else {  // the writer is filing
                ASSERT_TRUE(write_and_settle(*repository, std::move(move)));
            }
        }
        EXPECT_GE(here_count, 4U) << "at least the four that filled the journal first";
        // Filing runs on the writer's thread after the commit that filled the journal: wait for
        // it (no clock in the assertion, only a bound on a hang).
        for (int i = 0; i < 1000 && repository->stats().filings == 0; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        EXPECT_GE(repository->stats().filings, 1U);
        EXPECT_EQ(moves_of(*repository, "g"), 12U);
    }
    auto reopened = testing::open_or_die(database.path(), options);
    ASSERT_NE(reopened, nullptr);
    EXPECT_EQ(moves_of(*reopened, "g"), 12U);
}

// Rooms on several threads, each waiting for its write before the next as a room does, some
// writes committed on their thread and some queued: every move stored once, in order.
TEST(CommitHere, ManyThreadsCommittingHereAndQueuingStoreEveryMoveOnceInOrder) {
    TempDatabase database;
    SqliteOptions options = normal_options();
    options.journal_rows = 32;  // filings interleave with the commits here
    auto repository = testing::open_or_die(database.path(), options);
    ASSERT_NE(repository, nullptr);
    constexpr int thread_count = 4;
    constexpr std::uint32_t moves = 200;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    threads.reserve(thread_count);
    for (int t = 0; t < thread_count; ++t) {
        threads.emplace_back([&, t] {
            const std::string game = "room" + std::to_string(t);
            failures += write_and_wait(*repository, created(make_playing_game(game, t))) ? 0 : 1;
            for (std::uint32_t ply = 1; ply <= moves; ++ply) {
                GameIntent move = appended(game, make_move(ply, "m" + std::to_string(ply)));
                auto here = repository->write_here(move);
                const bool ok = here ? here->has_value()
                                     : write_and_wait(*repository, std::move(move)).has_value();
                failures += ok ? 0 : 1;
            }
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    repository->flush();
    EXPECT_EQ(failures.load(), 0);
    for (int t = 0; t < thread_count; ++t) {
        auto loaded = repository->load("room" + std::to_string(t));
        ASSERT_TRUE(loaded && loaded->has_value());
        ASSERT_EQ((*loaded)->moves.size(), moves);
        for (std::uint32_t ply = 1; ply <= moves; ++ply) {
            EXPECT_EQ((*loaded)->moves[ply - 1].ply, ply);
            EXPECT_EQ((*loaded)->moves[ply - 1].move, "m" + std::to_string(ply));
        }
    }
    const WriterStats stats = repository->stats();
    EXPECT_EQ(stats.committed, thread_count * (moves + 1));
    EXPECT_EQ(stats.failed, 0U);
}

}  // namespace
}  // namespace arbiter::server::storage
