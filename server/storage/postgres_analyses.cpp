#include "server/storage/postgres_analyses.hpp"

#include <utility>

#include "server/storage/intent_sql.hpp"

namespace arbiter::server::storage::detail {

namespace {

constexpr const char* kUpsert = "analysis_upsert";

std::optional<std::string> optional_text(const pg::Result& rows, int r, int column) {
    return rows.is_null(r, column) ? std::nullopt : std::optional(rows.text(r, column));
}

Expected<std::vector<AnalysisRow>, StorageError> read_rows(const pg::Result& rows) {
    std::vector<AnalysisRow> analyses;
    analyses.reserve(static_cast<std::size_t>(rows.rows()));
    for (int r = 0; r < rows.rows(); ++r) {
        AnalysisRow analysis;
        analysis.game_id = rows.text(r, 0);
        const std::string status = rows.text(r, 1);
        const auto parsed = parse_analysis_status(status);
        if (!parsed) {  // the table's CHECK allows only the four
            return unexpected(StorageError{"unknown analysis status: " + status});
        }
        analysis.status = *parsed;
        analysis.engine = rows.text(r, 2);
        analysis.done = rows.integer(r, 3);
        analysis.total = rows.integer(r, 4);
        analysis.plies_json = rows.text(r, 5);
        analysis.accuracy_json = optional_text(rows, r, 6);
        analysis.counts_json = optional_text(rows, r, 7);
        analysis.requested_ms = rows.integer(r, 8);
        analysis.updated_ms = rows.integer(r, 9);
        analyses.push_back(std::move(analysis));
    }
    return analyses;
}

Expected<std::vector<AnalysisRow>, StorageError> select_rows(pg::Connection& connection,
                                                             std::string_view where,
                                                             const pg::Params& params) {
    auto rows = connection.query(
        "SELECT " + std::string(kAnalysisColumns) + " FROM analyses " + std::string(where), params);
    if (!rows) {
        return unexpected(std::move(rows).error());
    }
    return read_rows(*rows);
}

}  // namespace

Expected<void, StorageError> PostgresAnalysisWriter::prepare(pg::Connection& connection) {
    return connection.prepare(kUpsert, pg::numbered_parameters(kUpsertAnalysisSql));
}

Expected<void, StorageError> PostgresAnalysisWriter::apply(const SaveAnalysis& save) {
    const AnalysisRow& row = save.row;
    pg::Params params;
    params.text(row.game_id)
        .text(to_string(row.status))
        .text(row.engine)
        .integer(row.done)
        .integer(row.total)
        .text(row.plies_json);
    row.accuracy_json ? params.text(*row.accuracy_json) : params.null();
    row.counts_json ? params.text(*row.counts_json) : params.null();
    params.integer(row.requested_ms).integer(row.updated_ms);
    auto upserted = connection_->run(kUpsert, params);
    if (!upserted) {
        return unexpected(std::move(upserted).error());
    }
    return {};
}

Expected<std::optional<AnalysisRow>, StorageError> find_postgres_analysis(
    pg::Connection& connection, const std::string& game_id) {
    auto rows = select_rows(connection, "WHERE game_id = $1", pg::Params().text(game_id));
    if (!rows) {
        return unexpected(std::move(rows).error());
    }
    if (rows->empty()) {
        return std::optional<AnalysisRow>();
    }
    return std::optional<AnalysisRow>(std::move(rows->front()));
}

Expected<std::vector<AnalysisRow>, StorageError> unfinished_postgres_analyses(
    pg::Connection& connection) {
    // Ids in byte order, as SQLite compares text.
    return select_rows(connection,
                       "WHERE status IN ('queued', 'running') "
                       "ORDER BY requested_ms, game_id COLLATE \"C\"",
                       {});
}

}  // namespace arbiter::server::storage::detail
