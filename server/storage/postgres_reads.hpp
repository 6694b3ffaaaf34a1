#pragma once
/// \file
/// The reads of stored games on PostgreSQL, each inside a read transaction the caller holds (one
/// snapshot for a header, its moves and its chat): the same answers as SQLite's game_reads.hpp.

#include <optional>
#include <string>
#include <vector>

#include "common/core/expected.hpp"
#include "server/storage/pg.hpp"
#include "server/storage/repository.hpp"

namespace arbiter::server::storage::detail {

/// One game with its moves and chat, or nullopt.
Expected<std::optional<StoredGame>, StorageError> load_postgres_game(pg::Connection& connection,
                                                                     const std::string& id);

/// Every game in status waiting or playing, oldest first, with its moves and chat; an error if
/// one of them cannot be read as a game.
Expected<std::vector<StoredGame>, StorageError> load_unfinished_postgres_games(
    pg::Connection& connection);

/// The headers of `rows`, each a row of kGameColumns (row_terms.hpp); an error if one of them
/// cannot be read as a game (an unknown variant).
Expected<std::vector<GameRow>, StorageError> read_postgres_games(const pg::Result& rows);

/// Headers matching `query`, newest first (created_ms, then id, descending), at most
/// kMaxListLimit (repository.hpp) whatever the query's limit.
Expected<std::vector<GameRow>, StorageError> list_postgres_games(pg::Connection& connection,
                                                                 const GameQuery& query);

}  // namespace arbiter::server::storage::detail
