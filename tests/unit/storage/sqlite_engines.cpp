// The SQLite engines of the shared store suites: with the move journal (as the server runs) and
// without it (every move written in place).
#include <memory>
#include <optional>

#include "common/core/overloaded.hpp"
#include "repository_engines.hpp"
#include "storage_test_support.hpp"

namespace arbiter::server::storage::testing {

namespace {

class SqliteStore final : public StoreUnderTest {
  public:
    explicit SqliteStore(SqliteOptions options) : options_(options) {
        repository_ = open_or_die(database_.path(), options_);
    }
    bool valid() const { return repository_ != nullptr; }
    Database& repository() override { return *repository_; }
    bool reopen() override {
        repository_.reset();
        repository_ = open_or_die(database_.path(), options_);
        return repository_ != nullptr;
    }

    Expected<void, StorageError> execute(std::string_view sql,
                                         const std::vector<SqlValue>& values) override {
        auto connection = rows();
        if (!connection) {
            return unexpected(connection.error());
        }
        auto statement = (*connection)->prepare(sql);
        if (!statement) {
            return unexpected(std::move(statement).error());
        }
        int index = 1;
        for (const SqlValue& value : values) {
            std::visit(Overloaded{[&](std::int64_t v) { statement->bind(index, v); },
                                  [&](const std::string& v) { statement->bind(index, v); },
                                  [&](double v) { statement->bind_real(index, v); },
                                  [&](std::nullptr_t) { statement->bind_null(index); }},
                       value);
            ++index;
        }
        return statement->run();
    }

    std::optional<std::int64_t> query_integer(std::string_view sql) override {
        auto connection = rows();
        if (!connection) {
            ADD_FAILURE() << connection.error().message;
            return std::nullopt;
        }
        auto statement = (*connection)->prepare(sql);
        if (!statement) {
            ADD_FAILURE() << statement.error().message;
            return std::nullopt;
        }
        std::optional<std::int64_t> value;
        auto read = statement->each_row([&] {
            if (!value && !statement->column_is_null(0)) {
                value = statement->column_int64(0);
            }
        });
        if (!read) {
            ADD_FAILURE() << read.error().message;
            return std::nullopt;
        }
        return value;
    }

  private:
    // A connection of the tests' own to the file, beside the repository's.
    Expected<sqlite::Connection*, StorageError> rows() {
        if (!rows_) {
            auto connection = sqlite::Connection::open(database_.path(), false);
            if (!connection) {
                return unexpected(std::move(connection).error());
            }
            connection->set_busy_timeout(5000);
            rows_.emplace(std::move(connection).value());
        }
        return &*rows_;
    }

    TempDatabase database_;
    SqliteOptions options_;
    std::unique_ptr<SqliteRepository> repository_;
    std::optional<sqlite::Connection> rows_;  ///< declared last: closed first
};

RepositoryEngine sqlite_engine(const char* name, std::size_t journal_rows) {
    return {name, [journal_rows]() -> std::unique_ptr<StoreUnderTest> {
                SqliteOptions options;
                options.synchronous = Synchronous::normal;  // content, not fsync, is tested
                options.journal_rows = journal_rows;
                auto store = std::make_unique<SqliteStore>(options);
                return store->valid() ? std::move(store) : nullptr;
            }};
}

}  // namespace

std::vector<RepositoryEngine> engines_under_test() {
    return {sqlite_engine("Sqlite", 1000), sqlite_engine("SqliteWithoutJournal", 0)};
}

}  // namespace arbiter::server::storage::testing
