// The SQLite engines of the shared repository suites: with the move journal (as the server runs)
// and without it (every move written in place).
#include <memory>

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
    GameRepository& repository() override { return *repository_; }
    bool reopen() override {
        repository_.reset();
        repository_ = open_or_die(database_.path(), options_);
        return repository_ != nullptr;
    }

  private:
    TempDatabase database_;
    SqliteOptions options_;
    std::unique_ptr<SqliteRepository> repository_;
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
