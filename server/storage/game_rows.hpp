#pragma once
/// \file
/// The SQL of the games and moves tables and the mapping between their rows and GameRow/MoveRow.
/// Internal to arbiter_storage: SqliteRepository owns the connections and the threads; this file
/// owns what one write or one read does inside a transaction the caller holds.

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/core/expected.hpp"
#include "server/storage/repository.hpp"
#include "server/storage/sqlite.hpp"

namespace arbiter::server::storage::detail {

/// The writer's prepared statements, compiled once and reused for every write.
class WriteStatements {
  public:
    static Expected<WriteStatements, StorageError> prepare(sqlite::Connection& connection);

    /// Applies one GameWrite (header update or insert, truncate, idempotent append) inside the
    /// caller's open transaction. On failure the caller must roll the write back.
    Expected<void, StorageError> apply(const GameWrite& change);

    /// To be called whenever a transaction that ran apply() is rolled back: the headers this
    /// object remembers as written may then not be in the database.
    void forget_written();

  private:
    /// The most headers remembered; past it the memory starts afresh (only a speed-up is lost).
    static constexpr std::size_t max_remembered_headers = 100000;

    Expected<void, StorageError> write_header(const GameRow& header);
    Expected<void, StorageError> append(const std::string& game_id, const MoveRow& move);

    sqlite::Connection* connection_ = nullptr;
    sqlite::Statement update_game_;
    sqlite::Statement insert_game_;
    sqlite::Statement update_progress_;
    sqlite::Statement delete_moves_from_;
    sqlite::Statement insert_move_;
    sqlite::Statement select_move_;
    /// The header last written for each unfinished game by this connection: a write that
    /// changes only a move's columns then updates just those (see update_progress_sql).
    std::unordered_map<std::string, GameRow> written_;
};

/// One game with its moves, or nullopt. The caller holds a read transaction so that the header
/// and the moves come from the same snapshot.
Expected<std::optional<StoredGame>, StorageError> load_game(sqlite::Connection& connection,
                                                            const std::string& id);

/// Every game in status waiting or playing, oldest first, with its moves.
Expected<std::vector<StoredGame>, StorageError> load_unfinished_games(
    sqlite::Connection& connection);

/// The most games `list()` returns at once, whatever the query's limit.
inline constexpr std::size_t max_list_limit = 200;

/// Headers matching `query`, newest first (created_ms, then id, descending).
Expected<std::vector<GameRow>, StorageError> list_games(sqlite::Connection& connection,
                                                        const GameQuery& query);

}  // namespace arbiter::server::storage::detail
