#pragma once
// The storage engines the store tests run against (issue 43): each test of the shared suites
// (repository_test.cpp, intent_contract_test.cpp, accounts_test.cpp, players_test.cpp,
// ratings_test.cpp, analyses_test.cpp) runs once per engine. storage_tests instantiates them with
// SQLite's engines (sqlite_engines.cpp), postgres_storage_tests with PostgreSQL's
// (postgres_engines.cpp), so that every assertion holds for both.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "server/storage/database.hpp"

namespace arbiter::server::storage::testing {

/// A value bound to a statement of execute(): an integer, text, a real or NULL.
using SqlValue = std::variant<std::int64_t, std::string, double, std::nullptr_t>;

/// One fresh store of one engine, for one test: its repository, over whatever holds its data (a
/// temporary file, a schema of the test server), which goes with it.
class StoreUnderTest {
  public:
    virtual ~StoreUnderTest() = default;
    /// The open repository (valid until reopen() or destruction).
    virtual Database& repository() = 0;
    /// Closes the repository and opens the same store again, as a restarted server would; false
    /// (and a test failure) if it cannot.
    virtual bool reopen() = 0;
    /// Runs one statement on a connection of its own, beside the repository: rows that no intent
    /// writes, set up by hand. `sql` is written with SQLite's `?N` parameters (made `$N` for
    /// PostgreSQL) and in SQL both engines read; `values` are bound in order.
    virtual Expected<void, StorageError> execute(std::string_view sql,
                                                 const std::vector<SqlValue>& values) = 0;
    /// The first column of the first row of `sql` (no parameters) as an integer, on a connection
    /// of its own; nullopt when there is no row, or it is NULL, or the statement failed.
    virtual std::optional<std::int64_t> query_integer(std::string_view sql) = 0;
};

/// How to make a fresh store of one engine.
struct RepositoryEngine {
    std::string
        name;  ///< PascalCase: it ends the test's name ("Engines/StorageRepository.X/Sqlite")
    std::function<std::unique_ptr<StoreUnderTest>()> open;
};

/// GoogleTest's name of a test's engine.
inline std::string engine_name(const ::testing::TestParamInfo<RepositoryEngine>& info) {
    return info.param.name;
}

/// The engines this test binary runs the shared suites against.
std::vector<RepositoryEngine> engines_under_test();

/// A test on a fresh store of its engine.
class EngineTest : public ::testing::TestWithParam<RepositoryEngine> {
  protected:
    void SetUp() override {
        store_ = GetParam().open();
        ASSERT_NE(store_, nullptr) << "no " << GetParam().name << " store";
        repository_ = &store_->repository();
    }
    /// A restart: the same store, opened again.
    void reopen() {
        ASSERT_TRUE(store_->reopen());
        repository_ = &store_->repository();
    }

    /// execute() on this test's store, which must succeed.
    void execute(std::string_view sql, const std::vector<SqlValue>& values = {}) {
        auto done = store_->execute(sql, values);
        ASSERT_TRUE(done) << sql << ": " << done.error().message;
    }

    std::unique_ptr<StoreUnderTest> store_;
    Database* repository_ = nullptr;
};

}  // namespace arbiter::server::storage::testing
