#include "server/storage/pg.hpp"

#include <libpq-fe.h>

#include <charconv>
#include <cstdio>
#include <utility>

namespace arbiter::server::storage::pg {

namespace {

// libpq's messages end with a newline; ours do not.
std::string trimmed(const char* message) {
    std::string text = message != nullptr ? message : "";
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
        text.pop_back();
    }
    return text;
}

// A constraint's failure reads as SQLite's does ("CHECK constraint failed: ..."), so that a
// caller or a test reads one kind of message whatever the engine.
std::string error_of(const PGresult* result, const char* fallback) {
    std::string message = trimmed(result != nullptr ? PQresultErrorMessage(result) : fallback);
    if (message.empty()) {
        message = trimmed(fallback);
    }
    const char* state = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
    const std::string_view code = state != nullptr ? state : "";
    if (code == "23514") {
        return "CHECK constraint failed: " + message;
    }
    if (code == "23505") {
        return "UNIQUE constraint failed: " + message;
    }
    if (code == "23503") {
        return "FOREIGN KEY constraint failed: " + message;
    }
    if (code == "23502") {
        return "NOT NULL constraint failed: " + message;
    }
    return message.empty() ? "PostgreSQL failed" : message;
}

}  // namespace

// --- Params ------------------------------------------------------------------------------------

Params& Params::text(std::string_view value) {
    values_.emplace_back(std::string(value));
    return *this;
}

Params& Params::integer(std::int64_t value) {
    values_.emplace_back(std::to_string(value));
    return *this;
}

Params& Params::integer(std::optional<std::int64_t> value) {
    return value ? integer(*value) : null();
}

Params& Params::real(double value) {
    // Shortest text that reads back as the same double (to_chars' guarantee).
    char buffer[64];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
    values_.emplace_back(std::string(buffer, end));
    return *this;
}

Params& Params::boolean(bool value) {
    values_.emplace_back(value ? "t" : "f");
    return *this;
}

Params& Params::boolean(std::optional<bool> value) {
    return value ? boolean(*value) : null();
}

Params& Params::null() {
    values_.emplace_back(std::nullopt);
    return *this;
}

std::vector<const char*> Params::pointers() const {
    std::vector<const char*> pointers;
    pointers.reserve(values_.size());
    for (const auto& value : values_) {
        pointers.push_back(value ? value->c_str() : nullptr);
    }
    return pointers;
}

// --- Result ------------------------------------------------------------------------------------

void Result::Clear::operator()(pg_result* result) const noexcept {
    PQclear(result);
}

int Result::rows() const noexcept {
    return result_ ? PQntuples(result_.get()) : 0;
}

std::string Result::command() const {
    return result_ ? PQcmdStatus(result_.get()) : "";
}

std::uint64_t Result::changed() const noexcept {
    if (!result_) {
        return 0;
    }
    const char* count = PQcmdTuples(result_.get());
    std::uint64_t changed = 0;
    std::from_chars(count, count + std::char_traits<char>::length(count), changed);
    return changed;
}

bool Result::is_null(int row, int column) const noexcept {
    return PQgetisnull(result_.get(), row, column) != 0;
}

std::string Result::text(int row, int column) const {
    return {PQgetvalue(result_.get(), row, column),
            static_cast<std::size_t>(PQgetlength(result_.get(), row, column))};
}

std::int64_t Result::integer(int row, int column) const {
    const char* value = PQgetvalue(result_.get(), row, column);
    std::int64_t number = 0;
    std::from_chars(value, value + PQgetlength(result_.get(), row, column), number);
    return number;
}

std::optional<std::int64_t> Result::optional_integer(int row, int column) const {
    return is_null(row, column) ? std::nullopt : std::optional(integer(row, column));
}

double Result::real(int row, int column) const {
    const char* value = PQgetvalue(result_.get(), row, column);
    double number = 0;
    std::from_chars(value, value + PQgetlength(result_.get(), row, column), number);
    return number;
}

bool Result::boolean(int row, int column) const {
    return PQgetvalue(result_.get(), row, column)[0] == 't';
}

std::optional<bool> Result::optional_boolean(int row, int column) const {
    return is_null(row, column) ? std::nullopt : std::optional(boolean(row, column));
}

// --- Connection --------------------------------------------------------------------------------

void Connection::Finish::operator()(pg_conn* connection) const noexcept {
    PQfinish(connection);
}

Expected<Connection, StorageError> Connection::open(const std::string& conninfo) {
    if (auto parsed = check_conninfo(conninfo); !parsed) {
        return unexpected(parsed.error());
    }
    Connection connection(PQconnectdb(conninfo.c_str()));
    if (!connection.connection_) {
        return unexpected(StorageError{"connecting to PostgreSQL: out of memory"});
    }
    if (PQstatus(connection.connection_.get()) != CONNECTION_OK) {
        return unexpected(StorageError{"connecting to PostgreSQL: " +
                                       trimmed(PQerrorMessage(connection.connection_.get()))});
    }
    // Server notices (a NOTICE from CREATE ... IF NOT EXISTS) are not errors: not printed.
    PQsetNoticeProcessor(
        connection.connection_.get(), [](void*, const char*) {}, nullptr);
    return connection;
}

Expected<void, StorageError> Connection::check_conninfo(const std::string& conninfo) {
    char* error = nullptr;
    PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
    if (options == nullptr) {
        std::string message = error != nullptr ? trimmed(error) : "out of memory";
        PQfreemem(error);
        return unexpected(StorageError{"not a PostgreSQL connection string: " + message});
    }
    PQconninfoFree(options);
    return {};
}

Expected<Result, StorageError> Connection::checked(pg_result* raw) {
    Result result(raw);
    const ExecStatusType status = raw != nullptr ? PQresultStatus(raw) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
        return result;
    }
    return unexpected(StorageError{error_of(raw, PQerrorMessage(connection_.get()))});
}

Expected<void, StorageError> Connection::exec(std::string_view sql) {
    auto result = checked(PQexec(connection_.get(), std::string(sql).c_str()));
    if (!result) {
        return unexpected(std::move(result).error());
    }
    return {};
}

Expected<Result, StorageError> Connection::query(std::string_view sql, const Params& params) {
    const auto values = params.pointers();
    return checked(PQexecParams(connection_.get(), std::string(sql).c_str(), params.size(), nullptr,
                                values.data(), nullptr, nullptr, 0));
}

Expected<void, StorageError> Connection::prepare(const std::string& name, std::string_view sql) {
    auto result =
        checked(PQprepare(connection_.get(), name.c_str(), std::string(sql).c_str(), 0, nullptr));
    if (!result) {
        return unexpected(StorageError{"preparing " + name + ": " + result.error().message});
    }
    return {};
}

Expected<Result, StorageError> Connection::run(const std::string& name, const Params& params) {
    const auto values = params.pointers();
    return checked(PQexecPrepared(connection_.get(), name.c_str(), params.size(), values.data(),
                                  nullptr, nullptr, 0));
}

Expected<std::vector<Expected<Result, StorageError>>, StorageError> Connection::pipeline(
    const std::vector<Statement>& statements) {
    pg_conn* connection = connection_.get();
    const auto lost = [&](const std::string& what) {
        // Results may still be on their way: nothing can be run on this connection any more.
        broken_ = true;
        return unexpected(StorageError{what + ": " + trimmed(PQerrorMessage(connection))});
    };
    if (PQenterPipelineMode(connection) != 1) {
        return lost("starting a pipeline");
    }
    for (const Statement& statement : statements) {
        const auto values = statement.params.pointers();
        const int sent =
            statement.name.empty()
                ? PQsendQueryParams(connection, statement.sql.c_str(), 0, nullptr, nullptr, nullptr,
                                    nullptr, 0)
                : PQsendQueryPrepared(connection, statement.name.c_str(), statement.params.size(),
                                      values.data(), nullptr, nullptr, 0);
        if (sent != 1) {
            return lost("sending a pipeline");
        }
    }
    if (PQpipelineSync(connection) != 1) {
        return lost("sending a pipeline");
    }
    std::vector<Expected<Result, StorageError>> results;
    results.reserve(statements.size());
    for (std::size_t i = 0; i < statements.size(); ++i) {
        pg_result* raw = PQgetResult(connection);
        if (raw == nullptr) {
            return lost("reading a pipeline");
        }
        if (PQresultStatus(raw) == PGRES_PIPELINE_ABORTED) {
            PQclear(raw);
            results.emplace_back(
                unexpected(StorageError{"not run: a statement before it in its pipeline failed"}));
        } else {
            results.push_back(checked(raw));
        }
        // Each statement's results end with a null.
        while (pg_result* extra = PQgetResult(connection)) {
            PQclear(extra);
        }
    }
    pg_result* sync = PQgetResult(connection);
    const bool synced = sync != nullptr && PQresultStatus(sync) == PGRES_PIPELINE_SYNC;
    PQclear(sync);
    if (!synced || PQexitPipelineMode(connection) != 1) {
        return lost("ending a pipeline");
    }
    return results;
}

bool Connection::connected() const noexcept {
    return !broken_ && PQstatus(connection_.get()) == CONNECTION_OK;
}

Expected<void, StorageError> Connection::reset() {
    broken_ = false;
    PQreset(connection_.get());
    if (!connected()) {
        return unexpected(StorageError{"reconnecting to PostgreSQL: " +
                                       trimmed(PQerrorMessage(connection_.get()))});
    }
    return {};
}

// --- Transaction -------------------------------------------------------------------------------

Expected<Transaction, StorageError> Transaction::begin(Connection& connection,
                                                       std::string_view begin) {
    if (auto begun = connection.exec(begin); !begun) {
        return unexpected(begun.error());
    }
    return Transaction(connection);
}

Transaction::Transaction(Transaction&& other) noexcept
    : connection_(std::exchange(other.connection_, nullptr)) {}

Transaction::~Transaction() {
    rollback();
}

Expected<void, StorageError> Transaction::commit() {
    Connection* connection = std::exchange(connection_, nullptr);
    if (connection == nullptr) {
        return unexpected(StorageError{"commit without a transaction"});
    }
    auto committed = connection->query("COMMIT");
    if (!committed) {
        return unexpected(std::move(committed).error());
    }
    // COMMIT of a transaction in which a statement failed rolls it back, and says only so.
    if (committed->command() != "COMMIT") {
        return unexpected(
            StorageError{"the transaction was rolled back: a statement in it failed"});
    }
    return {};
}

void Transaction::rollback() noexcept {
    if (Connection* connection = std::exchange(connection_, nullptr)) {
        (void)connection->exec("ROLLBACK");
    }
}

std::string shown_conninfo(const std::string& conninfo) {
    PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), nullptr);
    if (options == nullptr) {
        return "postgresql://(unreadable)";
    }
    std::string user;
    std::string host;
    std::string port;
    std::string database;
    for (const PQconninfoOption* option = options; option->keyword != nullptr; ++option) {
        if (option->val == nullptr) {
            continue;
        }
        const std::string_view keyword = option->keyword;
        if (keyword == "user") {
            user = option->val;
        } else if (keyword == "host" || (keyword == "hostaddr" && host.empty())) {
            host = option->val;
        } else if (keyword == "port") {
            port = option->val;
        } else if (keyword == "dbname") {
            database = option->val;
        }
    }
    PQconninfoFree(options);
    return "postgresql://" + (user.empty() ? "" : user + "@") + host +
           (port.empty() ? "" : ":" + port) + "/" + database;
}

std::string numbered_parameters(std::string_view sql) {
    std::string out(sql);
    for (std::size_t i = 0; i + 1 < out.size(); ++i) {
        if (out[i] == '?' && out[i + 1] >= '0' && out[i + 1] <= '9') {
            out[i] = '$';
        }
    }
    return out;
}

}  // namespace arbiter::server::storage::pg
