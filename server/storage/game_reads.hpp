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

/// The statement list_games() runs for `query`: its filters as the numbered parameters ?1
/// (status), ?2 (variant), ?3 (before) and ?4 (limit), each present only when the query has it
/// (the storage tests read its EXPLAIN QUERY PLAN).
std::string list_games_sql(const GameQuery& query);
/// The end every list of games shares, after its own WHERE conditions: ?2 the variant (when
/// `variant`), public games only (unless `include_private`), keyset paging after the game ?3
/// (when `before`), newest first, at most ?4.
std::string list_tail_sql(bool variant, bool include_private, bool before);

/// Headers matching `query`, newest first (created_ms, then id, descending).
Expected<std::vector<GameRow>, StorageError> list_games(sqlite::Connection& connection,
                                                        const GameQuery& query);

/// Lists `games` as they are after their journaled moves (clocks, seq, ply), as list_games()
/// does, inside the caller's read transaction.
Expected<void, StorageError> overlay_journal(sqlite::Connection& connection,
                                             std::vector<GameRow>& games);

}  // namespace arbiter::server::storage::detail
