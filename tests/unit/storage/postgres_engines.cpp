// The PostgreSQL engine of the shared repository suites: each store a fresh schema of the test
// binary's one server (tests/support/postgres_fixture.hpp), which runs with fsync off: these
// suites test what is stored, not what survives a power cut.
#include <memory>

#include "repository_engines.hpp"
#include "server/storage/postgres_repository.hpp"
#include "tests/support/postgres_fixture.hpp"

namespace arbiter::server::storage::testing {

namespace {

class PostgresStore final : public StoreUnderTest {
  public:
    explicit PostgresStore(std::string uri) : uri_(std::move(uri)) { reopen(); }
    bool valid() const { return repository_ != nullptr; }
    GameRepository& repository() override { return *repository_; }
    bool reopen() override {
        repository_.reset();
        PostgresOptions options;
        options.synchronous = Synchronous::normal;
        auto opened = PostgresRepository::open(uri_, options);
        if (!opened) {
            ADD_FAILURE() << opened.error().message;
            return false;
        }
        repository_ = std::move(opened).value();
        return true;
    }

  private:
    std::string uri_;
    std::unique_ptr<PostgresRepository> repository_;
};

}  // namespace

std::vector<RepositoryEngine> engines_under_test() {
    return {{"Postgres", []() -> std::unique_ptr<StoreUnderTest> {
                 arbiter::testing::PostgresServer* server =
                     arbiter::testing::PostgresEnvironment::server();
                 if (server == nullptr) {
                     ADD_FAILURE() << "the tests' PostgreSQL server did not start";
                     return nullptr;
                 }
                 auto store = std::make_unique<PostgresStore>(server->fresh_schema_uri());
                 return store->valid() ? std::move(store) : nullptr;
             }}};
}

}  // namespace arbiter::server::storage::testing

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    ::testing::AddGlobalTestEnvironment(new arbiter::testing::PostgresEnvironment());
    return RUN_ALL_TESTS();
}
