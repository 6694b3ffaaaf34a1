#pragma once
/// \file
/// A small RAII layer over libpq, PostgreSQL's C client (the PostgreSQL counterpart of
/// sqlite.hpp): a connection, the result of a statement, bound parameters, a transaction, and
/// every failure as a StorageError. Internal to arbiter_storage: only the postgres_* files
/// include it, so libpq stays out of everything else.
///
/// Values travel as text (libpq's text format): PostgreSQL parses each parameter as the type its
/// place in the statement has, and a column's text is read back with the accessors below.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/core/expected.hpp"
#include "server/storage/stored_game.hpp"

struct pg_conn;
struct pg_result;

namespace arbiter::server::storage::pg {

/// The parameters $1, $2 ... of one statement, in order, as text; NULL as nullopt.
class Params {
  public:
    Params& text(std::string_view value);
    Params& integer(std::int64_t value);
    Params& integer(std::optional<std::int64_t> value);
    Params& real(double value);
    Params& boolean(bool value);
    Params& boolean(std::optional<bool> value);
    Params& null();

    /// For libpq: a pointer per parameter, nullptr for NULL.
    std::vector<const char*> pointers() const;
    int size() const noexcept { return static_cast<int>(values_.size()); }

  private:
    std::vector<std::optional<std::string>> values_;
};

/// What one statement returned: its rows (if any) and how many rows it changed.
class Result {
  public:
    Result() = default;
    explicit Result(pg_result* result) noexcept : result_(result) {}

    int rows() const noexcept;
    /// The command tag ("COMMIT", "ROLLBACK", "UPDATE 1" ...).
    std::string command() const;
    /// Rows changed by an INSERT, UPDATE or DELETE.
    std::uint64_t changed() const noexcept;
    bool is_null(int row, int column) const noexcept;
    std::string text(int row, int column) const;
    std::int64_t integer(int row, int column) const;
    std::optional<std::int64_t> optional_integer(int row, int column) const;
    double real(int row, int column) const;
    /// A boolean column ('t' or 'f').
    bool boolean(int row, int column) const;
    std::optional<bool> optional_boolean(int row, int column) const;

  private:
    struct Clear {
        void operator()(pg_result* result) const noexcept;
    };
    std::unique_ptr<pg_result, Clear> result_;
};

/// One statement of a pipeline (Connection::pipeline): a prepared statement's name and its
/// parameters, or, with no name, `sql` that takes none ("BEGIN").
struct Statement {
    std::string name;
    Params params;
    std::string sql;
};

/// One connection to a PostgreSQL server. Not thread-safe: one thread at a time.
class Connection {
  public:
    /// Connects with a libpq connection string or URI ("postgresql://user@127.0.0.1:5432/db").
    static Expected<Connection, StorageError> open(const std::string& conninfo);
    /// Whether `conninfo` is a connection string libpq can parse (nothing is connected); the
    /// error says why not.
    static Expected<void, StorageError> check_conninfo(const std::string& conninfo);

    /// Runs `sql`, which may hold several statements and takes no parameters (a migration, BEGIN).
    Expected<void, StorageError> exec(std::string_view sql);
    /// Runs one statement with its parameters.
    Expected<Result, StorageError> query(std::string_view sql, const Params& params = {});
    /// Prepares `sql` once on the server under `name`, for run().
    Expected<void, StorageError> prepare(const std::string& name, std::string_view sql);
    /// Runs the statement prepared as `name`.
    Expected<Result, StorageError> run(const std::string& name, const Params& params = {});
    /// Sends every statement at once and then reads their results (libpq's pipeline mode): one
    /// round trip for all of them, run in order as if sent one by one. Each statement's result,
    /// in order; after one fails, the server skips the rest, and each of those fails too. Fails
    /// as a whole when the connection does; the connection then counts as lost (connected() is
    /// false until reset()). Keep pipelines to what the socket's buffers hold (hundreds of
    /// small statements): the sends block while the server's results are not yet read.
    Expected<std::vector<Expected<Result, StorageError>>, StorageError> pipeline(
        const std::vector<Statement>& statements);

    /// Whether the connection to the server is still up (after a failure: whether to reconnect).
    bool connected() const noexcept;
    /// Connects again with the same connection string (the server restarted); prepared
    /// statements are gone after it.
    Expected<void, StorageError> reset();

  private:
    struct Finish {
        void operator()(pg_conn* connection) const noexcept;
    };
    explicit Connection(pg_conn* connection) noexcept : connection_(connection) {}
    /// The result of a statement, or the error libpq or the server reported.
    Expected<Result, StorageError> checked(pg_result* result);

    std::unique_ptr<pg_conn, Finish> connection_;
    /// Left in a state no statement can follow (a pipeline cut short): lost until reset().
    bool broken_ = false;
};

/// BEGIN ... COMMIT on one connection; rolled back on destruction unless committed.
class Transaction {
  public:
    /// `begin` is the BEGIN statement ("BEGIN", "BEGIN ISOLATION LEVEL REPEATABLE READ ...").
    static Expected<Transaction, StorageError> begin(Connection& connection,
                                                     std::string_view begin = "BEGIN");
    /// Takes charge of the transaction a pipeline's BEGIN opened on `connection`.
    static Transaction begun(Connection& connection) noexcept { return Transaction(connection); }
    Transaction(Transaction&& other) noexcept;
    Transaction& operator=(Transaction&&) = delete;
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    ~Transaction();

    Expected<void, StorageError> commit();
    void rollback() noexcept;

  private:
    explicit Transaction(Connection& connection) noexcept : connection_(&connection) {}
    Connection* connection_;
};

/// `conninfo` as it may be shown in a log: "postgresql://USER@HOST:PORT/DATABASE", the parts it
/// names, never its password or its other options; "postgresql://(unreadable)" when libpq cannot
/// parse it.
std::string shown_conninfo(const std::string& conninfo);

/// `sql` with SQLite's numbered parameters (`?N`) written as PostgreSQL's (`$N`), for the
/// statements both engines share (intent_sql.hpp). Those hold no `?` in a literal.
std::string numbered_parameters(std::string_view sql);

}  // namespace arbiter::server::storage::pg
