#pragma once
/// \file
/// Analyses on PostgreSQL (analysis_store.hpp): the upsert, inside the writer's transaction, and
/// the reads, on the reads' connection. The same meaning and statements as SQLite's
/// analysis_rows.hpp (intent_sql.hpp). Internal to arbiter_storage.

#include <optional>
#include <string>
#include <vector>

#include "common/core/expected.hpp"
#include "server/storage/analysis_store.hpp"
#include "server/storage/pg.hpp"

namespace arbiter::server::storage::detail {

/// Writes analyses through the upsert prepared once on its connection. A save for a game that is
/// not stored fails, and the caller rolls back to before it.
class PostgresAnalysisWriter {
  public:
    /// Prepares the upsert on `connection` (again after every reconnection).
    static Expected<void, StorageError> prepare(pg::Connection& connection);

    explicit PostgresAnalysisWriter(pg::Connection& connection) noexcept
        : connection_(&connection) {}

    /// Writes one intent inside the caller's open transaction.
    Expected<void, StorageError> apply(const SaveAnalysis& save);

  private:
    pg::Connection* connection_;
};

/// The row of `game_id`, or nullopt.
Expected<std::optional<AnalysisRow>, StorageError> find_postgres_analysis(
    pg::Connection& connection, const std::string& game_id);
/// The rows queued or running, oldest request first (then by game id).
Expected<std::vector<AnalysisRow>, StorageError> unfinished_postgres_analyses(
    pg::Connection& connection);

}  // namespace arbiter::server::storage::detail
