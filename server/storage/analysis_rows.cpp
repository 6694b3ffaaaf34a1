#include "server/storage/analysis_rows.hpp"

#include <array>
#include <utility>

#include "server/storage/intent_sql.hpp"

namespace arbiter::server::storage::detail {

namespace {

std::optional<std::string> optional_text(const sqlite::Statement& row, int index) {
    if (row.column_is_null(index)) {
        return std::nullopt;
    }
    return row.column_text(index);
}

Expected<AnalysisRow, StorageError> read_row(const sqlite::Statement& row) {
    AnalysisRow analysis;
    analysis.game_id = row.column_text(0);
    const std::string status = row.column_text(1);
    const auto parsed = parse_analysis_status(status);
    if (!parsed) {  // the table's CHECK allows only the four
        return unexpected(StorageError{"unknown analysis status: " + status});
    }
    analysis.status = *parsed;
    analysis.engine = row.column_text(2);
    analysis.done = row.column_int64(3);
    analysis.total = row.column_int64(4);
    analysis.plies_json = row.column_text(5);
    analysis.accuracy_json = optional_text(row, 6);
    analysis.counts_json = optional_text(row, 7);
    analysis.requested_ms = row.column_int64(8);
    analysis.updated_ms = row.column_int64(9);
    return analysis;
}

Expected<std::vector<AnalysisRow>, StorageError> read_rows(sqlite::Statement& select) {
    std::vector<AnalysisRow> rows;
    auto read = select.each_row([&]() -> Expected<void, StorageError> {
        auto row = read_row(select);
        if (!row) {
            return unexpected(std::move(row).error());
        }
        rows.push_back(std::move(row).value());
        return {};
    });
    if (!read) {
        return unexpected(std::move(read).error());
    }
    return rows;
}

}  // namespace

Expected<AnalysisWriter, StorageError> AnalysisWriter::prepare(sqlite::Connection& connection) {
    AnalysisWriter writer;
    auto upsert = connection.prepare(kUpsertAnalysisSql, true);
    if (!upsert) {
        return unexpected(std::move(upsert).error());
    }
    writer.upsert_ = std::move(upsert).value();
    return writer;
}

Expected<void, StorageError> AnalysisWriter::apply(const SaveAnalysis& save) {
    const AnalysisRow& row = save.row;
    upsert_.reset();
    upsert_.bind(1, row.game_id)
        .bind(2, to_string(row.status))
        .bind(3, row.engine)
        .bind(4, row.done)
        .bind(5, row.total)
        .bind(6, row.plies_json);
    if (row.accuracy_json) {
        upsert_.bind(7, *row.accuracy_json);
    } else {
        upsert_.bind_null(7);
    }
    if (row.counts_json) {
        upsert_.bind(8, *row.counts_json);
    } else {
        upsert_.bind_null(8);
    }
    upsert_.bind(9, row.requested_ms).bind(10, row.updated_ms);
    return upsert_.run();
}

Expected<std::optional<AnalysisRow>, StorageError> find_analysis(sqlite::Connection& connection,
                                                                 const std::string& game_id) {
    auto select = connection.prepare("SELECT " + std::string(kAnalysisColumns) +
                                     " FROM analyses WHERE game_id = ?1");
    if (!select) {
        return unexpected(std::move(select).error());
    }
    select->bind(1, game_id);
    auto rows = read_rows(*select);
    if (!rows) {
        return unexpected(std::move(rows).error());
    }
    if (rows->empty()) {
        return std::optional<AnalysisRow>();
    }
    return std::optional<AnalysisRow>(std::move(rows->front()));
}

Expected<std::vector<AnalysisRow>, StorageError> unfinished_analyses(
    sqlite::Connection& connection) {
    auto select = connection.prepare("SELECT " + std::string(kAnalysisColumns) +
                                     " FROM analyses WHERE status IN ('queued', 'running') "
                                     "ORDER BY requested_ms, game_id");
    if (!select) {
        return unexpected(std::move(select).error());
    }
    return read_rows(*select);
}

}  // namespace arbiter::server::storage::detail
