#pragma once
// Helpers shared by the storage tests: a temporary database file, small row and intent builders,
// and a model of what each intent does to a game's row.

#include <atomic>
#include <filesystem>
#include <future>
#include <string>
#include <type_traits>
#include <utility>

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

/// make_game, in play.
inline GameRow make_playing_game(const std::string& id, std::int64_t created_ms) {
    GameRow game = make_game(id, created_ms);
    game.status = protocol::GameStatus::playing;
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

/// The intent that stores `game` as a new game.
inline GameIntent created(GameRow game) {
    return CreateGame{std::move(game)};
}

/// `move` appended to `game`, the game's seq being the move's and its clocks unchanged (0).
inline AppendMove appended(const std::string& game, MoveRow move) {
    AppendMove append;
    append.game = game;
    append.seq = move.seq;
    append.move = std::move(move);
    return append;
}

/// Submits one write and waits for its callback.
inline Expected<void, StorageError> write_and_wait(GameRepository& repository, GameIntent intent) {
    std::promise<Expected<void, StorageError>> promise;
    auto future = promise.get_future();
    repository.write(std::move(intent), [&promise](Expected<void, StorageError> result) {
        promise.set_value(std::move(result));
    });
    return future.get();
}

/// Writes one account intent and waits for its commit.
inline Expected<void, StorageError> write_account_and_wait(AccountStore& store,
                                                           AccountIntent intent) {
    std::promise<Expected<void, StorageError>> promise;
    auto future = promise.get_future();
    store.write_account(std::move(intent), [&promise](Expected<void, StorageError> result) {
        promise.set_value(std::move(result));
    });
    return future.get();
}

/// What `intent` makes of `row`, the stored row of its game, as intents.hpp says: the model the
/// tests hold the store to.
inline GameRow after(GameRow row, const GameIntent& intent) {
    std::visit(
        [&row](const auto& change) {
            using T = std::decay_t<decltype(change)>;
            if constexpr (std::is_same_v<T, CreateGame>) {
                row = change.header;
            } else if constexpr (std::is_same_v<T, SeatPlayer>) {
                row.seats[change.side == rules::Side::first ? 0 : 1] = change.seat;
                row.status = protocol::GameStatus::playing;
                row.seq = change.seq;
                row.updated_ms = change.updated_ms;
            } else if constexpr (std::is_same_v<T, AppendMove>) {
                row.ply = change.move.ply;
                row.clock_ms = change.clock_ms;
                row.seq = change.seq;
                row.updated_ms = change.move.played_ms;
                row.offers.clear();
                if (change.ending) {
                    row.status = change.ending->status;
                    row.result = change.ending->result;
                    row.reason = change.ending->reason;
                }
                if (change.ratings) {
                    row.rating_diffs = {change.ratings->seats[0].diff,
                                        change.ratings->seats[1].diff};
                }
            } else if constexpr (std::is_same_v<T, TakeBack>) {
                row.ply = change.to_ply;
                row.clock_ms = change.clock_ms;
                row.seq = change.seq;
                row.updated_ms = change.updated_ms;
                row.offers.clear();
            } else if constexpr (std::is_same_v<T, SetOffers>) {
                row.offers = change.offers;
                row.clock_ms = change.clock_ms;
                row.seq = change.seq;
            } else if constexpr (std::is_same_v<T, RecordEvent>) {
                row.clock_ms = change.clock_ms;
                row.seq = change.seq;
            } else if constexpr (std::is_same_v<T, EndGame>) {
                row.status = change.ending.status;
                row.result = change.ending.result;
                row.reason = change.ending.reason;
                row.offers.clear();
                row.clock_ms = change.clock_ms;
                row.seq = change.seq;
                row.updated_ms = change.updated_ms;
                if (change.ratings) {
                    row.rating_diffs = {change.ratings->seats[0].diff,
                                        change.ratings->seats[1].diff};
                }
            } else if constexpr (std::is_same_v<T, LinkRematch>) {
                row.rematch_next = change.next;
                row.offers.clear();
                row.seq = change.seq;
            } else if constexpr (std::is_same_v<T, PruneAborted>) {
                // Deletes rows, changes none.
            } else if constexpr (std::is_same_v<T, PostChat>) {
                row.clock_ms = change.clock_ms;
                row.seq = change.seq;
            } else {
                static_assert(std::is_same_v<T, StoreClocks>);
                row.clock_ms = change.clock_ms;
                row.updated_ms = change.updated_ms;
                row.parked_flag = change.parked_flag;
            }
        },
        intent);
    return row;
}

/// The offers as their stored text ("draw:first,rematch:second"), to compare and print.
inline std::string offers_of(const GameRow& row) {
    std::string text;
    for (const protocol::OpenOffer& offer : row.offers) {
        text += text.empty() ? "" : ",";
        text += protocol::to_string(offer.kind);
        text += offer.by == rules::Side::first ? ":first" : ":second";
    }
    return text;
}

/// Every column of `actual` as in `expected`.
inline void expect_same_game(const GameRow& actual, const GameRow& expected) {
    EXPECT_EQ(actual.id, expected.id);
    EXPECT_EQ(actual.variant, expected.variant);
    EXPECT_EQ(actual.initial_position, expected.initial_position);
    EXPECT_EQ(actual.is_private, expected.is_private);
    EXPECT_EQ(actual.clock_initial_ms, expected.clock_initial_ms);
    EXPECT_EQ(actual.clock_increment_ms, expected.clock_increment_ms);
    EXPECT_EQ(actual.status, expected.status);
    EXPECT_EQ(actual.result, expected.result);
    EXPECT_EQ(actual.reason, expected.reason);
    for (std::size_t seat = 0; seat < 2; ++seat) {
        EXPECT_EQ(actual.seats[seat].name, expected.seats[seat].name);
        EXPECT_EQ(actual.seats[seat].token_hash, expected.seats[seat].token_hash);
        EXPECT_EQ(actual.seats[seat].engine, expected.seats[seat].engine);
        EXPECT_EQ(actual.seats[seat].engine_level, expected.seats[seat].engine_level);
        EXPECT_EQ(actual.clock_ms[seat], expected.clock_ms[seat]);
        EXPECT_EQ(actual.seats[seat].user_id, expected.seats[seat].user_id);
        // Only the rounded rating is stored (provisional is not: stored_game.hpp).
        EXPECT_EQ(actual.seats[seat].rating.has_value(), expected.seats[seat].rating.has_value());
        if (actual.seats[seat].rating && expected.seats[seat].rating) {
            EXPECT_EQ(actual.seats[seat].rating->rating, expected.seats[seat].rating->rating);
        }
        EXPECT_EQ(actual.rating_diffs[seat], expected.rating_diffs[seat]);
    }
    EXPECT_EQ(actual.rated, expected.rated);
    EXPECT_EQ(actual.rating_range, expected.rating_range);
    EXPECT_EQ(actual.seq, expected.seq);
    EXPECT_EQ(actual.ply, expected.ply);
    EXPECT_EQ(actual.created_ms, expected.created_ms);
    EXPECT_EQ(actual.updated_ms, expected.updated_ms);
    EXPECT_EQ(actual.rematch_of, expected.rematch_of);
    EXPECT_EQ(actual.rematch_next, expected.rematch_next);
    EXPECT_EQ(offers_of(actual), offers_of(expected));
    EXPECT_EQ(actual.parked_flag.has_value(), expected.parked_flag.has_value());
    if (actual.parked_flag && expected.parked_flag) {
        EXPECT_EQ(actual.parked_flag->at_ms, expected.parked_flag->at_ms);
        EXPECT_EQ(actual.parked_flag->seq, expected.parked_flag->seq);
    }
}

}  // namespace arbiter::server::storage::testing
