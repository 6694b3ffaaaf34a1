#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <set>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

#include "storage_test_support.hpp"

namespace arbiter::server::storage {
namespace {

using testing::appended;
using testing::created;
using testing::integrity_of;
using testing::make_game;
using testing::make_move;
using testing::make_playing_game;
using testing::TempDatabase;
using Result = Expected<void, StorageError>;

// The child opens the store, queues far more moves than it waits for, reports each ply on the
// pipe from its callback (the moment a player would be told "moved"), and SIGKILLs itself while
// later writes are still queued or mid-commit. Never returns.
[[noreturn]] void run_child_and_die(const std::string& path, int report_fd,
                                    std::uint32_t moves_to_queue, std::uint32_t kill_after) {
    auto repository = SqliteRepository::open(path);  // synchronous = FULL
    if (!repository) {
        ::_exit(2);
    }
    if (!testing::write_and_wait(**repository, created(make_playing_game("durable", 1)))) {
        ::_exit(6);
    }
    std::atomic<std::uint32_t> acknowledged{0};
    for (std::uint32_t ply = 1; ply <= moves_to_queue; ++ply) {
        (*repository)
            ->write(appended("durable", make_move(ply, "m" + std::to_string(ply))),
                    [&, ply](const Result& result) {
                        if (!result) {
                            ::_exit(3);
                        }
                        if (::write(report_fd, &ply, sizeof ply) != sizeof ply) {
                            ::_exit(4);
                        }
                        if (++acknowledged == kill_after) {
                            ::kill(::getpid(), SIGKILL);
                        }
                    });
    }
    (*repository)->flush();
    ::_exit(5);  // unreachable unless fewer than kill_after callbacks ran
}

TEST(StorageDurability, EveryAcknowledgedMoveSurvivesSigkill) {
    TempDatabase database;
    int pipe_fds[2];
    ASSERT_EQ(::pipe(pipe_fds), 0);
    constexpr std::uint32_t moves_to_queue = 3000;
    constexpr std::uint32_t kill_after = 400;
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::close(pipe_fds[0]);
        run_child_and_die(database.path(), pipe_fds[1], moves_to_queue, kill_after);
    }
    ::close(pipe_fds[1]);
    std::set<std::uint32_t> acknowledged;
    std::uint32_t ply = 0;
    while (::read(pipe_fds[0], &ply, sizeof ply) == sizeof ply) {
        acknowledged.insert(ply);
    }
    ::close(pipe_fds[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
    EXPECT_EQ(WTERMSIG(status), SIGKILL);
    ASSERT_GE(acknowledged.size(), kill_after);

    EXPECT_EQ(integrity_of(database.path()), "ok");
    auto repository = testing::open_or_die(database.path());
    ASSERT_NE(repository, nullptr);
    auto loaded = repository->load("durable");
    ASSERT_TRUE(loaded && loaded->has_value());
    std::set<std::uint32_t> stored;
    for (const MoveRow& move : (*loaded)->moves) {
        stored.insert(move.ply);
    }
    for (std::uint32_t acked : acknowledged) {
        EXPECT_TRUE(stored.contains(acked)) << "acknowledged ply " << acked << " was lost";
    }
    // Plies are stored without gaps (commits are in order) and the header matches the moves.
    EXPECT_EQ(stored.size(), *stored.rbegin());
    EXPECT_EQ((*loaded)->header.ply, *stored.rbegin());
}

// One server per database: a second one would restore the same unfinished games and take moves
// for them apart from the first. The lock goes with its process, however that ends.
TEST(StorageDurability, ADatabaseInUseIsRefusedUntilItsHolderDies) {
    TempDatabase database;
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::close(ready[0]);
        auto repository = SqliteRepository::open(database.path());
        const char opened = repository ? 'y' : 'n';
        (void)::write(ready[1], &opened, 1);
        for (;;) {
            ::pause();  // holds the database until killed
        }
    }
    ::close(ready[1]);
    char opened = 0;
    ASSERT_EQ(::read(ready[0], &opened, 1), 1);
    ::close(ready[0]);
    ASSERT_EQ(opened, 'y');

    auto refused = SqliteRepository::open(database.path());
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("in use by another server"), std::string::npos)
        << refused.error().message;
    EXPECT_NE(refused.error().message.find("process " + std::to_string(child)), std::string::npos)
        << refused.error().message;

    ::kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    auto reopened = SqliteRepository::open(database.path());
    ASSERT_TRUE(reopened) << reopened.error().message;
    // In one process too: a second repository on the same file is refused while the first lives,
    // also through a symbolic link to it.
    auto second = SqliteRepository::open(database.path());
    EXPECT_FALSE(second);
    const std::string link = database.path() + "-link";
    std::filesystem::create_symlink(database.path(), link);
    auto linked = SqliteRepository::open(link);
    std::filesystem::remove(link);
    ASSERT_FALSE(linked);
    EXPECT_NE(linked.error().message.find("in use by another server"), std::string::npos)
        << linked.error().message;
}

TEST(StorageBackup, CopyOpensWithTheSameGamesWhileWritesContinue) {
    TempDatabase database;
    SqliteOptions options;
    options.synchronous = Synchronous::normal;
    auto repository = testing::open_or_die(database.path(), options);
    ASSERT_NE(repository, nullptr);
    constexpr int games_before = 200;
    for (int i = 0; i < games_before; ++i) {
        GameRow game = make_playing_game("before" + std::to_string(i), i);
        game.initial_position = std::string(2000, 'p');  // enough pages for several steps
        repository->write(created(game), {});
        repository->write(appended(game.id, make_move(1, "e2e4")), {});
    }
    repository->flush();

    std::atomic<bool> stop{false};
    std::atomic<int> issued{0};
    std::atomic<int> written_during{0};
    std::thread writer([&] {
        for (int i = 0; !stop; ++i) {
            repository->write(created(make_game("during" + std::to_string(i), 100000 + i)),
                              [&](const Result& result) { written_during += result ? 1 : 0; });
            ++issued;
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
    });
    // The writes are under way before the copy starts (a loaded machine may not have run the
    // thread yet, and the copy takes only milliseconds).
    while (issued.load() == 0) {
        std::this_thread::yield();
    }
    const std::string copy_path = database.sibling(".backup");
    auto copied = repository->backup(copy_path);
    stop = true;
    writer.join();
    repository->flush();
    ASSERT_TRUE(copied) << copied.error().message;
    EXPECT_GT(written_during.load(), 0);

    EXPECT_EQ(integrity_of(copy_path), "ok");
    auto copy = testing::open_or_die(copy_path, options);
    ASSERT_NE(copy, nullptr);
    for (int i = 0; i < games_before; ++i) {
        auto loaded = copy->load("before" + std::to_string(i));
        ASSERT_TRUE(loaded && loaded->has_value()) << i;
        ASSERT_EQ((*loaded)->moves.size(), 1U);
    }
    // Whatever the copy holds of the concurrent writes, it holds as the original does.
    GameQuery query;
    query.include_private = true;
    query.limit = 200;
    auto listed = copy->list(query);
    ASSERT_TRUE(listed);
    for (const GameRow& row : *listed) {
        auto original = repository->load(row.id);
        ASSERT_TRUE(original && original->has_value()) << row.id;
        EXPECT_EQ((*original)->header.created_ms, row.created_ms);
    }
}

TEST(StorageBackup, NewBackupReplacesAnOlderCopy) {
    TempDatabase database;
    auto repository = testing::open_or_die(database.path());
    ASSERT_NE(repository, nullptr);
    const std::string copy_path = database.sibling(".backup");
    ASSERT_TRUE(testing::write_and_wait(*repository, created(make_game("first", 1))));
    ASSERT_TRUE(repository->backup(copy_path));
    ASSERT_TRUE(testing::write_and_wait(*repository, created(make_game("second", 2))));
    ASSERT_TRUE(repository->backup(copy_path));
    EXPECT_FALSE(std::filesystem::exists(copy_path + ".partial"));
    auto copy = testing::open_or_die(copy_path);
    ASSERT_NE(copy, nullptr);
    EXPECT_TRUE(copy->load("first")->has_value());
    EXPECT_TRUE(copy->load("second")->has_value());
}

TEST(StorageBackup, BackupOntoTheLiveDatabaseIsRefused) {
    TempDatabase database;
    auto repository = testing::open_or_die(database.path());
    ASSERT_NE(repository, nullptr);
    EXPECT_FALSE(repository->backup(database.path()));
    EXPECT_EQ(integrity_of(database.path()), "ok");
}

TEST(StorageBackup, UnwritableTargetIsAnError) {
    TempDatabase database;
    auto repository = testing::open_or_die(database.path());
    ASSERT_NE(repository, nullptr);
    auto copied = repository->backup("/nonexistent-arbiter-folder/copy.db");
    ASSERT_FALSE(copied);
    EXPECT_NE(copied.error().message.find("backup"), std::string::npos);
}

// A database path that cannot be looked at (here through a symbolic link to itself) is an error
// with the reason, as `--backup` reports it; it used to throw out of backup_file.
TEST(StorageBackup, ADatabasePathThatCannotBeLookedAtIsAnErrorNotAnException) {
    TempDatabase database;
    const std::filesystem::path loop = database.sibling("-loop");  // removed with the database
    std::filesystem::create_symlink(loop, loop);
    Expected<void, StorageError> copied;
    EXPECT_NO_THROW(copied = SqliteRepository::backup_file((loop / "x.db").string(),
                                                           database.sibling("-copy.db"), {}));
    ASSERT_FALSE(copied);
    EXPECT_NE(copied.error().message.find("symbolic links"), std::string::npos)
        << copied.error().message;
}

}  // namespace
}  // namespace arbiter::server::storage
