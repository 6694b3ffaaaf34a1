#pragma once
// The storage engines the repository tests run against (issue 43): each test of the shared
// suites (repository_test.cpp, intent_contract_test.cpp) runs once per engine. storage_tests
// instantiates them with SQLite's engines (sqlite_engines.cpp), postgres_storage_tests with
// PostgreSQL's (postgres_engines.cpp), so that every assertion holds for both.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "server/storage/repository.hpp"

namespace arbiter::server::storage::testing {

/// One fresh store of one engine, for one test: its repository, over whatever holds its data (a
/// temporary file, a schema of the test server), which goes with it.
class StoreUnderTest {
  public:
    virtual ~StoreUnderTest() = default;
    /// The open repository (valid until reopen() or destruction).
    virtual GameRepository& repository() = 0;
    /// Closes the repository and opens the same store again, as a restarted server would; false
    /// (and a test failure) if it cannot.
    virtual bool reopen() = 0;
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

    std::unique_ptr<StoreUnderTest> store_;
    GameRepository* repository_ = nullptr;
};

}  // namespace arbiter::server::storage::testing
