// arbiter-storage-bench: how many acknowledged writes per second SqliteRepository sustains.
//
// Closed loop, like live games: each of --games games sends its next move only after the
// previous one was acknowledged (its callback ran), --moves moves each. With grouped commits one
// fsync acknowledges every game's pending move; with --max-batch 1 each move pays its own.
//
//   arbiter-storage-bench [--games N] [--moves N] [--dir PATH]

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "server/storage/sqlite_repository.hpp"

namespace {

using arbiter::server::storage::AppendMove;
using arbiter::server::storage::CreateGame;
using arbiter::server::storage::GameRow;
using arbiter::server::storage::MoveRow;
using arbiter::server::storage::SqliteOptions;
using arbiter::server::storage::SqliteRepository;
using arbiter::server::storage::StorageError;
using arbiter::server::storage::Synchronous;

struct Settings {
    int games = 64;
    std::uint32_t moves = 100;
    std::filesystem::path dir = std::filesystem::temp_directory_path();
    std::optional<Synchronous> only_synchronous;  ///< --sync full|normal: just this one
    std::optional<std::size_t> only_batch;        ///< --batch N: just this max_batch
};

struct Outcome {
    double writes_per_second = 0;
    std::uint64_t batches = 0;
    std::uint64_t failed = 0;
};

std::string game_id(int game) {
    return "bench" + std::to_string(game);
}

// A game in play, stored before the clock starts.
CreateGame new_game(int game) {
    CreateGame create;
    create.header.id = game_id(game);
    create.header.initial_position = "startpos";
    create.header.status = arbiter::protocol::GameStatus::playing;
    create.header.clock_initial_ms = 300000;
    create.header.clock_increment_ms = 0;
    create.header.clock_ms = {300000, 300000};
    return create;
}

AppendMove move_write(int game, std::uint32_t ply) {
    AppendMove change;
    change.game = game_id(game);
    change.seq = ply;
    change.clock_ms = {300000, 300000 - ply};
    MoveRow move;
    move.ply = ply;
    move.move = "e2e4";
    move.notation = "e4";
    move.position = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    move.clock_ms = 300000;
    move.think_ms = 1500;
    move.seq = ply;
    move.check = false;  // as the server writes every row
    change.move = std::move(move);
    return change;
}

// Drives every game's move chain from the writer's callbacks until all moves are acknowledged.
class ClosedLoop {
  public:
    ClosedLoop(SqliteRepository& repository, const Settings& settings)
        : repository_(repository), settings_(settings) {}

    void run() {
        for (int game = 0; game < settings_.games; ++game) {
            submit(game, 1);
        }
        std::unique_lock lock(mutex_);
        finished_.wait(lock, [this] { return games_done_ == settings_.games; });
    }

  private:
    void submit(int game, std::uint32_t ply) {
        repository_.write(move_write(game, ply),
                          [this, game, ply](const arbiter::Expected<void, StorageError>&) {
                              if (ply < settings_.moves) {
                                  submit(game, ply + 1);
                                  return;
                              }
                              std::lock_guard lock(mutex_);
                              ++games_done_;
                              finished_.notify_one();
                          });
    }

    SqliteRepository& repository_;
    const Settings& settings_;
    std::mutex mutex_;
    std::condition_variable finished_;
    int games_done_ = 0;
};

Outcome measure(const Settings& settings, Synchronous synchronous, std::size_t max_batch) {
    const std::string path =
        (settings.dir / ("arbiter-storage-bench-" + std::to_string(::getpid()) + ".db")).string();
    for (const char* suffix : {"", "-wal", "-shm", "-lock"}) {
        std::filesystem::remove(path + suffix);
    }
    SqliteOptions options;
    options.synchronous = synchronous;
    options.max_batch = max_batch;
    Outcome outcome;
    {
        auto opened = SqliteRepository::open(path, options);
        if (!opened) {
            std::fprintf(stderr, "%s\n", opened.error().message.c_str());
            std::exit(1);
        }
        SqliteRepository& repository = **opened;
        for (int game = 0; game < settings.games; ++game) {
            repository.write(new_game(game), {});
        }
        repository.flush();
        const auto before = repository.stats();
        const auto start = std::chrono::steady_clock::now();
        ClosedLoop(repository, settings).run();
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        const auto stats = repository.stats();
        outcome.writes_per_second =
            static_cast<double>(stats.committed - before.committed) / elapsed.count();
        outcome.batches = stats.batches - before.batches;
        outcome.failed = stats.failed - before.failed;
    }
    for (const char* suffix : {"", "-wal", "-shm", "-lock"}) {
        std::filesystem::remove(path + suffix);
    }
    return outcome;
}

Settings parse(int argc, char** argv) {
    Settings settings;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string_view flag = argv[i];
        const char* value = argv[i + 1];
        if (flag == "--games") {
            settings.games = std::max(1, std::atoi(value));
        } else if (flag == "--moves") {
            settings.moves = static_cast<std::uint32_t>(std::max(1, std::atoi(value)));
        } else if (flag == "--dir") {
            settings.dir = value;
        } else if (flag == "--sync" &&
                   (std::string_view(value) == "full" || std::string_view(value) == "normal")) {
            settings.only_synchronous =
                std::string_view(value) == "full" ? Synchronous::full : Synchronous::normal;
        } else if (flag == "--batch" && std::atoi(value) > 0) {
            settings.only_batch = static_cast<std::size_t>(std::atoi(value));
        } else {
            std::fprintf(stderr,
                         "usage: %s [--games N] [--moves N] [--dir PATH] [--sync full|normal] "
                         "[--batch N]\n",
                         argv[0]);
            std::exit(2);
        }
    }
    return settings;
}

}  // namespace

int main(int argc, char** argv) {
    const Settings settings = parse(argc, argv);
    std::printf("%d games x %u moves, closed loop (next move after the ack), in %s\n",
                settings.games, settings.moves, settings.dir.c_str());
    std::printf("%-12s %-26s %12s %10s %8s\n", "synchronous", "commits", "writes/s", "batches",
                "failed");
    std::vector<Synchronous> synchronous_modes{Synchronous::full, Synchronous::normal};
    if (settings.only_synchronous) {
        synchronous_modes = {*settings.only_synchronous};
    }
    std::vector<std::size_t> batch_caps{512, 1};
    if (settings.only_batch) {
        batch_caps = {*settings.only_batch};
    }
    for (const Synchronous synchronous : synchronous_modes) {
        for (const std::size_t max_batch : batch_caps) {
            const Outcome outcome = measure(settings, synchronous, max_batch);
            const std::string commits =
                max_batch == 1 ? "one transaction per write"
                               : "grouped (batch <= " + std::to_string(max_batch) + ")";
            std::printf("%-12s %-26s %12.0f %10llu %8llu\n",
                        synchronous == Synchronous::full ? "FULL" : "NORMAL", commits.c_str(),
                        outcome.writes_per_second, static_cast<unsigned long long>(outcome.batches),
                        static_cast<unsigned long long>(outcome.failed));
        }
    }
    return 0;
}
