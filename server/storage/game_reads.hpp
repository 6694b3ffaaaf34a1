#pragma once
/// \file
/// The reads of stored games on SQLite, each inside a read transaction the caller holds (one
/// snapshot for a header, its moves and the journal). A game's journaled moves (schema 0003) are
/// merged as filing them would: its moves after the filed ones, its row's columns as the last
/// one left them, and no open offers (a move lapses them).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/core/expected.hpp"
#include "server/storage/repository.hpp"
#include "server/storage/sqlite.hpp"

namespace arbiter::server::storage::detail {

/// One game with its moves, or nullopt.
Expected<std::optional<StoredGame>, StorageError> load_game(sqlite::Connection& connection,
                                                            const std::string& id);

/// Every game in status waiting or playing, oldest first, with its moves; an error if one of
/// them cannot be read as a game.
Expected<std::vector<StoredGame>, StorageError> load_unfinished_games(
    sqlite::Connection& connection);

/// The most games `list_games()` returns at once, whatever the query's limit.
inline constexpr std::size_t kMaxListLimit = 200;

/// Headers matching `query`, newest first (created_ms, then id, descending).
Expected<std::vector<GameRow>, StorageError> list_games(sqlite::Connection& connection,
                                                        const GameQuery& query);

}  // namespace arbiter::server::storage::detail
