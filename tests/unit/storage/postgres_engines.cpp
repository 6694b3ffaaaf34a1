// The PostgreSQL engine of the shared store suites: each store a fresh schema of the test
// binary's one server (tests/support/postgres_fixture.hpp), which runs with fsync off: these
// suites test what is stored, not what survives a power cut.
#include <memory>
#include <optional>

#include "common/core/overloaded.hpp"
#include "repository_engines.hpp"
#include "server/storage/pg.hpp"
#include "server/storage/postgres_repository.hpp"
#include "tests/support/postgres_fixture.hpp"

namespace arbiter::server::storage::testing {

namespace {

class PostgresStore final : public StoreUnderTest {
  public:
    explicit PostgresStore(std::string uri) : uri_(std::move(uri)) { reopen(); }
    bool valid() const { return repository_ != nullptr; }
    Database& repository() override { return *repository_; }
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

    Expected<void, StorageError> execute(std::string_view sql,
                                         const std::vector<SqlValue>& values) override {
        auto connection = rows();
        if (!connection) {
            return unexpected(connection.error());
        }
        pg::Params params;
        for (const SqlValue& value : values) {
            std::visit(Overloaded{[&](std::int64_t v) { params.integer(v); },
                                  [&](const std::string& v) { params.text(v); },
                                  [&](double v) { params.real(v); },
                                  [&](std::nullptr_t) { params.null(); }},
                       value);
        }
        auto ran = (*connection)->query(pg::numbered_parameters(sql), params);
        if (!ran) {
            return unexpected(std::move(ran).error());
        }
        return {};
    }

    std::optional<std::int64_t> query_integer(std::string_view sql) override {
        auto connection = rows();
        if (!connection) {
            ADD_FAILURE() << connection.error().message;
            return std::nullopt;
        }
        auto result = (*connection)->query(sql);
        if (!result) {
            ADD_FAILURE() << result.error().message;
            return std::nullopt;
        }
        if (result->rows() == 0) {
            return std::nullopt;
        }
        return result->optional_integer(0, 0);
    }

  private:
    // A connection of the tests' own to the store's schema, beside the repository's.
    Expected<pg::Connection*, StorageError> rows() {
        if (!rows_) {
            auto connection = pg::Connection::open(uri_);
            if (!connection) {
                return unexpected(std::move(connection).error());
            }
            rows_.emplace(std::move(connection).value());
        }
        return &*rows_;
    }

    std::string uri_;
    std::unique_ptr<PostgresRepository> repository_;
    std::optional<pg::Connection> rows_;
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
