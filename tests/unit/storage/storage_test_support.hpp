#pragma once
// Helpers shared by the storage tests: a temporary database file and small row builders.

#include <atomic>
#include <filesystem>
#include <future>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "server/storage/sqlite_repository.hpp"

namespace arbiter::server::storage::testing {

/// A unique database path under the system temp folder; the file, its -wal and -shm, and any
/// sibling made from it (path + suffix, a file or a folder) are removed on destruction.
class TempDatabase {
  public:
    TempDatabase() {
        static std::atomic<int> counter{0};
        path_ = (std::filesystem::temp_directory_path() /
                 ("arbiter-storage-" + std::to_string(::getpid()) + "-" +
                  std::to_string(counter.fetch_add(1)) + ".db"))
                    .string();
        remove_all_files();
    }
    TempDatabase(const TempDatabase&) = delete;
    TempDatabase& operator=(const TempDatabase&) = delete;
    ~TempDatabase() { remove_all_files(); }

    const std::string& path() const { return path_; }
    /// A sibling path that is cleaned up with this one (e.g. a backup target).
    std::string sibling(const std::string& suffix) const { return path_ + suffix; }

  private:
    void remove_all_files() const {
        const std::filesystem::path folder = std::filesystem::path(path_).parent_path();
        const std::string stem = std::filesystem::path(path_).filename().string();
        std::error_code error;
        for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
            if (entry.path().filename().string().starts_with(stem)) {
                std::filesystem::remove_all(entry.path(), error);
            }
        }
    }

    std::string path_;
};

inline std::unique_ptr<SqliteRepository> open_or_die(const std::string& path,
                                                     SqliteOptions options = {}) {
    auto repository = SqliteRepository::open(path, options);
    if (!repository) {
        ADD_FAILURE() << repository.error().message;
        return nullptr;
    }
    return std::move(repository).value();
}

/// PRAGMA integrity_check of the database at `path` ("ok"), or why it could not be run.
inline std::string integrity_of(const std::string& path) {
    auto connection = sqlite::Connection::open(path, false);
    if (!connection) {
        return connection.error().message;
    }
    return connection->query_text("PRAGMA integrity_check").value_or("query failed");
}

/// A waiting chess game with both seats open.
inline GameRow make_game(const std::string& id, std::int64_t created_ms) {
    GameRow game;
    game.id = id;
    game.variant = rules::Variant::chess;
    game.initial_position = "startpos";
    game.created_ms = created_ms;
    game.updated_ms = created_ms;
    return game;
}

inline MoveRow make_move(std::uint32_t ply, const std::string& move) {
    MoveRow row;
    row.ply = ply;
    row.move = move;
    row.notation = move;
    row.position = "position after " + move;
    row.seq = ply + 1;
    row.played_ms = 1000 + ply;
    return row;
}

/// Submits one write and waits for its callback.
inline Expected<void, StorageError> write_and_wait(GameRepository& repository, GameWrite change) {
    std::promise<Expected<void, StorageError>> promise;
    auto future = promise.get_future();
    repository.write(std::move(change), [&promise](Expected<void, StorageError> result) {
        promise.set_value(std::move(result));
    });
    return future.get();
}

inline GameWrite header_only(GameRow header) {
    return GameWrite{std::move(header), {}, {}};
}

inline GameWrite with_move(GameRow header, MoveRow move) {
    header.ply = move.ply;
    header.seq = move.seq;
    header.status = "playing";
    return GameWrite{std::move(header), {}, std::move(move)};
}

}  // namespace arbiter::server::storage::testing
