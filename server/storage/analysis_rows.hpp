#pragma once
/// \file
/// The SQL of the `analyses` table (migration 0013): the writer's upsert, run inside the
/// group-commit writer's transaction, and the reads on the reads' connection. Internal to
/// arbiter_storage.

#include <optional>
#include <string>
#include <vector>

#include "server/storage/analysis_store.hpp"
#include "server/storage/sqlite.hpp"

namespace arbiter::server::storage::detail {

/// The prepared upsert, compiled once on the writer's connection.
class AnalysisWriter {
  public:
    static Expected<AnalysisWriter, StorageError> prepare(sqlite::Connection& connection);
    /// Writes one intent inside the caller's open transaction.
    Expected<void, StorageError> apply(const SaveAnalysis& save);

  private:
    sqlite::Statement upsert_;
};

/// The row of `game_id`, or nullopt.
Expected<std::optional<AnalysisRow>, StorageError> find_analysis(sqlite::Connection& connection,
                                                                 const std::string& game_id);
/// The rows queued or running, oldest request first.
Expected<std::vector<AnalysisRow>, StorageError> unfinished_analyses(
    sqlite::Connection& connection);

}  // namespace arbiter::server::storage::detail
