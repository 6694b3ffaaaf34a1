#include "server/storage/sqlite.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>
#include <utility>

namespace arbiter::server::storage::sqlite {

namespace {

// `doing` is often SQL text (a statement, a whole migration): keep messages to one readable line.
StorageError make_error(std::string_view doing, sqlite3* connection, int code) {
    constexpr std::size_t kMaxDoing = 120;
    std::string message(doing.substr(0, std::min(doing.size(), doing.find('\n'))));
    if (message.size() > kMaxDoing) {
        message.resize(kMaxDoing - 3);
        message += "...";
    }
    message += ": ";
    message += connection != nullptr ? sqlite3_errmsg(connection) : sqlite3_errstr(code);
    message += " (sqlite code " + std::to_string(code) + ")";
    return StorageError{std::move(message)};
}

}  // namespace

// --- Statement ---------------------------------------------------------------------------------

Statement::Statement(sqlite3_stmt* handle, sqlite3* connection) noexcept
    : handle_(handle), connection_(connection) {}

Statement::Statement(Statement&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      connection_(std::exchange(other.connection_, nullptr)),
      bind_error_(std::move(other.bind_error_)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
    if (this != &other) {
        sqlite3_finalize(handle_);
        handle_ = std::exchange(other.handle_, nullptr);
        connection_ = std::exchange(other.connection_, nullptr);
        bind_error_ = std::move(other.bind_error_);
    }
    return *this;
}

Statement::~Statement() {
    sqlite3_finalize(handle_);
}

void Statement::keep_bind_error(int code, int index) {
    if (code != SQLITE_OK && !bind_error_) {
        bind_error_ = make_error("binding parameter " + std::to_string(index), connection_, code);
    }
}

Statement& Statement::bind(int index, std::int64_t value) {
    keep_bind_error(sqlite3_bind_int64(handle_, index, value), index);
    return *this;
}

Statement& Statement::bind_real(int index, double value) {
    keep_bind_error(sqlite3_bind_double(handle_, index, value), index);
    return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
    // SQLITE_TRANSIENT: SQLite copies the text, so a temporary argument may die before step().
    return bind_text(index, text, true);
}

Statement& Statement::bind_unowned(int index, std::string_view text) {
    return bind_text(index, text, false);
}

Statement& Statement::bind_text(int index, std::string_view text, bool copy) {
    if (text.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
        keep_bind_error(SQLITE_TOOBIG, index);
        return *this;
    }
    // A view with no data (std::string_view(), as "" for "none" often is) is the empty text:
    // sqlite3_bind_text binds NULL for a null pointer, which the NOT NULL columns refuse.
    const char* characters = text.data() != nullptr ? text.data() : "";
    keep_bind_error(sqlite3_bind_text(handle_, index, characters, static_cast<int>(text.size()),
                                      copy ? SQLITE_TRANSIENT : SQLITE_STATIC),
                    index);
    return *this;
}

Statement& Statement::bind(int index, const std::optional<std::int64_t>& value) {
    return value ? bind(index, *value) : bind_null(index);
}

Statement& Statement::bind_null(int index) {
    keep_bind_error(sqlite3_bind_null(handle_, index), index);
    return *this;
}

Expected<bool, StorageError> Statement::step() {
    if (bind_error_) {
        StorageError error = std::move(*bind_error_);
        reset();
        return unexpected(std::move(error));
    }
    const int code = sqlite3_step(handle_);
    if (code == SQLITE_ROW) {
        return true;
    }
    if (code == SQLITE_DONE) {
        return false;
    }
    StorageError error = make_error(sqlite3_sql(handle_), connection_, code);
    sqlite3_reset(handle_);
    return unexpected(std::move(error));
}

Expected<void, StorageError> Statement::run() {
    return each_row([] {});
}

void Statement::reset() noexcept {
    if (handle_ == nullptr) {
        return;  // never prepared (or moved from): sqlite3_clear_bindings would dereference it
    }
    sqlite3_reset(handle_);
    sqlite3_clear_bindings(handle_);
    bind_error_.reset();
}

double Statement::column_double(int index) const noexcept {
    return sqlite3_column_double(handle_, index);
}

std::int64_t Statement::column_int64(int index) const noexcept {
    return sqlite3_column_int64(handle_, index);
}

std::string Statement::column_text(int index) const {
    const auto* text = sqlite3_column_text(handle_, index);
    const int bytes = sqlite3_column_bytes(handle_, index);
    if (text == nullptr) {
        return {};
    }
    return std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(bytes));
}

std::optional<std::int64_t> Statement::column_optional_int64(int index) const noexcept {
    if (column_is_null(index)) {
        return std::nullopt;
    }
    return column_int64(index);
}

bool Statement::column_is_null(int index) const noexcept {
    return sqlite3_column_type(handle_, index) == SQLITE_NULL;
}

// --- Connection --------------------------------------------------------------------------------

Expected<Connection, StorageError> Connection::open(const std::string& path, bool create) {
    // Before SQLite's first use in the process (later it refuses, harmlessly): without memory
    // statistics sqlite3_malloc takes no global mutex. Profiled under load, the writer thread
    // spent ~27 % of its time in malloc/free, a mutex around each.
    static const bool kConfigured = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK;
    (void)kConfigured;
    sqlite3* handle = nullptr;
    // NOMUTEX: each connection is confined to one thread at a time by its owner, so SQLite's own
    // per-connection mutex would only cost time.
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
    if (create) {
        flags |= SQLITE_OPEN_CREATE;
    }
    const int code = sqlite3_open_v2(path.c_str(), &handle, flags, nullptr);
    if (code != SQLITE_OK) {
        StorageError error = make_error("opening " + path, handle, code);
        sqlite3_close(handle);
        return unexpected(std::move(error));
    }
    sqlite3_extended_result_codes(handle, 1);
    return Connection(handle);
}

Connection::Connection(Connection&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), kept_(std::move(other.kept_)) {}

Connection& Connection::operator=(Connection&& other) noexcept {
    if (this != &other) {
        close();
        handle_ = std::exchange(other.handle_, nullptr);
        kept_ = std::move(other.kept_);
    }
    return *this;
}

// sqlite3_close (not _v2) fails while statements are open; every Statement must be destroyed
// first, which the owners guarantee by declaring statements after their connection.
Connection::~Connection() {
    close();
}

void Connection::close() noexcept {
    kept_ = {};
    sqlite3_close(handle_);
}

Expected<void, StorageError> Connection::exec(std::string_view sql) {
    const std::string text(sql);
    const int code = sqlite3_exec(handle_, text.c_str(), nullptr, nullptr, nullptr);
    if (code != SQLITE_OK) {
        return unexpected(make_error(text, handle_, code));
    }
    return {};
}

Expected<Statement, StorageError> Connection::prepare(std::string_view sql, bool persistent) {
    sqlite3_stmt* handle = nullptr;
    const unsigned flags = persistent ? SQLITE_PREPARE_PERSISTENT : 0U;
    const int code = sqlite3_prepare_v3(handle_, sql.data(), static_cast<int>(sql.size()), flags,
                                        &handle, nullptr);
    if (code != SQLITE_OK) {
        return unexpected(make_error("preparing " + std::string(sql), handle_, code));
    }
    return Statement(handle, handle_);
}

Expected<std::int64_t, StorageError> Connection::query_int64(std::string_view sql) {
    auto statement = prepare(sql);
    if (!statement) {
        return unexpected(std::move(statement).error());
    }
    auto row = statement->step();
    if (!row) {
        return unexpected(std::move(row).error());
    }
    if (!*row) {
        return unexpected(StorageError{std::string(sql) + ": no row"});
    }
    return statement->column_int64(0);
}

Expected<std::string, StorageError> Connection::query_text(std::string_view sql) {
    auto statement = prepare(sql);
    if (!statement) {
        return unexpected(std::move(statement).error());
    }
    auto row = statement->step();
    if (!row) {
        return unexpected(std::move(row).error());
    }
    if (!*row) {
        return unexpected(StorageError{std::string(sql) + ": no row"});
    }
    return statement->column_text(0);
}

void Connection::set_busy_timeout(int milliseconds) noexcept {
    sqlite3_busy_timeout(handle_, milliseconds);
}

std::int64_t Connection::changes() const noexcept {
    return sqlite3_changes64(handle_);
}

bool Connection::in_transaction() const noexcept {
    return sqlite3_get_autocommit(handle_) == 0;
}

StorageError Connection::last_error(std::string_view doing) const {
    return make_error(doing, handle_, sqlite3_extended_errcode(handle_));
}

Expected<void, StorageError> Connection::run_kept(Kept which) {
    auto& statement = kept_[static_cast<std::size_t>(which)];
    if (!statement.prepared()) {
        constexpr std::array<std::string_view, 3> kText{"BEGIN", "BEGIN IMMEDIATE", "COMMIT"};
        auto prepared = prepare(kText[static_cast<std::size_t>(which)], true);
        if (!prepared) {
            return unexpected(std::move(prepared).error());
        }
        statement = std::move(*prepared);
    }
    return statement.run();
}

// --- Transaction -----------------------------------------------------------------

Expected<Transaction, StorageError> Transaction::begin(Connection& connection,
                                                       TransactionKind kind) {
    auto begun =
        connection.run_kept(kind == TransactionKind::immediate ? Connection::Kept::begin_immediate
                                                               : Connection::Kept::begin_deferred);
    if (!begun) {
        return unexpected(begun.error());
    }
    return Transaction(connection);
}

Transaction::Transaction(Transaction&& other) noexcept
    : connection_(std::exchange(other.connection_, nullptr)) {}

Transaction::~Transaction() {
    // SQLite may already have rolled back by itself (SQLITE_FULL, SQLITE_IOERR, …): only roll
    // back a transaction that is still open.
    if (connection_ != nullptr && connection_->in_transaction()) {
        (void)connection_->exec("ROLLBACK");
    }
}

Expected<void, StorageError> Transaction::commit() {
    ARBITER_ASSERT(connection_ != nullptr);
    auto committed = connection_->run_kept(Connection::Kept::commit);
    if (committed) {
        connection_ = nullptr;
    }
    return committed;
}

// --- online backup -----------------------------------------------------------------------------

Expected<void, StorageError> copy_database(Connection& source, Connection& target,
                                           int pages_per_step) {
    sqlite3_backup* backup = sqlite3_backup_init(target.handle(), "main", source.handle(), "main");
    if (backup == nullptr) {
        return unexpected(target.last_error("starting the backup"));
    }
    // Another connection may hold a lock we need for a moment: retry for up to ~10 s.
    constexpr int kMaxBusyRetries = 2000;
    int busy_retries = 0;
    int code = SQLITE_OK;
    for (;;) {
        code = sqlite3_backup_step(backup, pages_per_step);
        if (code == SQLITE_OK) {
            continue;
        }
        if ((code == SQLITE_BUSY || code == SQLITE_LOCKED) && ++busy_retries < kMaxBusyRetries) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            continue;
        }
        break;
    }
    // finish() reports the step's error again if there was one; keep the first.
    const int finished = sqlite3_backup_finish(backup);
    if (code != SQLITE_DONE) {
        return unexpected(make_error("copying the database", target.handle(), code));
    }
    if (finished != SQLITE_OK) {
        return unexpected(make_error("finishing the backup", target.handle(), finished));
    }
    return {};
}

}  // namespace arbiter::server::storage::sqlite
