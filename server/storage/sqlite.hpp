#pragma once
/// \file
/// Small RAII wrappers over the SQLite C API: a Connection, a prepared Statement with bind/step/
/// column helpers, and a Transaction that rolls back unless committed. Every value
/// reaches SQL through a bound parameter; exec() is only for constant SQL (pragmas, migrations).
/// Failures come back as StorageError values carrying SQLite's own message.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "common/core/expected.hpp"
#include "server/storage/stored_game.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace arbiter::server::storage::sqlite {

/// A prepared statement. Binding is fluent; the first bind failure is kept and reported by the
/// next step() so that call sites check one Expected instead of one per parameter.
class Statement {
  public:
    Statement() = default;
    Statement(sqlite3_stmt* handle, sqlite3* connection) noexcept;
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&& other) noexcept;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    ~Statement();

    /// Parameters are 1-based, as in SQLite. Text is copied (SQLITE_TRANSIENT), so temporaries
    /// are safe.
    Statement& bind(int index, std::int64_t value);
    Statement& bind(int index, std::string_view text);
    Statement& bind(int index, const std::optional<std::int64_t>& value);
    Statement& bind_null(int index);
    Statement& bind_double(int index, double value);
    /// Binds text that SQLite reads where it lies (SQLITE_STATIC), without a copy: `text` must
    /// outlive the step(), run() or each_row() that follows. run() and each_row() clear the
    /// binding when they end. For rows written once per move, where a copy of each text field
    /// is a malloc and a memcpy.
    Statement& bind_unowned(int index, std::string_view text);

    /// Advances: true when a row is available, false when the statement is done.
    Expected<bool, StorageError> step();
    /// Steps to completion, ignoring rows (INSERT/UPDATE/DELETE), then resets.
    Expected<void, StorageError> run();
    /// Steps to completion, calling `visit()` at each row (it reads the columns), then resets.
    /// The first failed step, or the first failed visit when `visit` returns an Expected, stops
    /// the walk and is returned.
    template <class Visit>
    Expected<void, StorageError> each_row(Visit&& visit);
    /// Rewinds for the next execution and clears every binding and the kept bind error.
    void reset() noexcept;
    /// False for a default-constructed or moved-from statement.
    bool prepared() const noexcept { return handle_ != nullptr; }

    std::int64_t column_int64(int index) const noexcept;
    double column_double(int index) const noexcept;
    std::string column_text(int index) const;
    std::optional<std::int64_t> column_optional_int64(int index) const noexcept;
    bool column_is_null(int index) const noexcept;

  private:
    Statement& bind_text(int index, std::string_view text, bool copy);
    void keep_bind_error(int code, int index);

    sqlite3_stmt* handle_ = nullptr;
    sqlite3* connection_ = nullptr;
    std::optional<StorageError> bind_error_;
};

/// How a transaction takes its locks: deferred (read first) or immediate (write lock at once).
enum class TransactionKind : std::uint8_t { deferred, immediate };

/// One SQLite connection, used by one thread at a time (opened with SQLITE_OPEN_NOMUTEX).
class Connection {
  public:
    /// Opens (and creates if `create`) the database file at `path`.
    static Expected<Connection, StorageError> open(const std::string& path, bool create);

    Connection(Connection&& other) noexcept;
    Connection& operator=(Connection&& other) noexcept;
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    ~Connection();

    /// Runs constant SQL text that may hold several statements. Never pass user data here.
    Expected<void, StorageError> exec(std::string_view sql);
    /// Compiles one statement; `persistent` hints that it will be reused many times.
    Expected<Statement, StorageError> prepare(std::string_view sql, bool persistent = false);
    /// Runs a query expected to return a single integer (e.g. `PRAGMA user_version`).
    Expected<std::int64_t, StorageError> query_int64(std::string_view sql);
    /// Runs a query expected to return a single text (e.g. `PRAGMA journal_mode=WAL`).
    Expected<std::string, StorageError> query_text(std::string_view sql);

    /// How long a locked database is retried before SQLITE_BUSY.
    void set_busy_timeout(int milliseconds) noexcept;
    /// Rows changed by the last INSERT/UPDATE/DELETE.
    std::int64_t changes() const noexcept;
    /// False while a transaction is open (SQLite's autocommit flag).
    bool in_transaction() const noexcept;
    /// The last error of this connection, prefixed with what was being done.
    StorageError last_error(std::string_view doing) const;

    sqlite3* handle() const noexcept { return handle_; }

  private:
    friend class Transaction;

    /// The statements every transaction runs, compiled once per connection: exec() parses its
    /// text at each call, and at a few moves a batch (FULL at half the maximum rate) parsing
    /// BEGIN IMMEDIATE and COMMIT was ~4 % of the writer thread's time.
    enum class Kept : std::uint8_t { begin_deferred, begin_immediate, commit };

    explicit Connection(sqlite3* handle) noexcept : handle_(handle) {}
    Expected<void, StorageError> run_kept(Kept which);
    /// Finalizes the kept statements, then closes: sqlite3_close fails while any is open.
    void close() noexcept;

    sqlite3* handle_ = nullptr;
    std::array<Statement, 3> kept_;  ///< by Kept; compiled at first use
};

/// BEGIN … COMMIT; rolled back on destruction unless commit() succeeded.
class Transaction {
  public:
    static Expected<Transaction, StorageError> begin(Connection& connection, TransactionKind kind);

    Transaction(Transaction&& other) noexcept;
    Transaction& operator=(Transaction&&) = delete;
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    ~Transaction();

    Expected<void, StorageError> commit();

  private:
    explicit Transaction(Connection& connection) noexcept : connection_(&connection) {}

    Connection* connection_ = nullptr;
};

/// Copies the whole database of `source` into `target` with SQLite's online backup, in steps of
/// `pages_per_step` pages. `source` should hold a read transaction for the duration (see
/// SqliteRepository::backup) so that the copy is one consistent snapshot.
Expected<void, StorageError> copy_database(Connection& source, Connection& target,
                                           int pages_per_step);

template <class Visit>
Expected<void, StorageError> Statement::each_row(Visit&& visit) {
    for (;;) {
        auto row = step();
        if (!row) {
            reset();
            return unexpected(std::move(row).error());
        }
        if (!*row) {
            reset();
            return {};
        }
        if constexpr (std::is_void_v<std::invoke_result_t<Visit&>>) {
            visit();
        } else if (auto visited = visit(); !visited) {
            reset();
            return visited;
        }
    }
}

}  // namespace arbiter::server::storage::sqlite
