#pragma once
// A private PostgreSQL server for a test binary (issue 43): initdb into a temporary folder, the
// server on an unused port of 127.0.0.1 with its unix socket in that folder, one database; all of
// it stopped and deleted at the end. PostgreSQL refuses to run as root: under root the server
// runs as the `postgres` user, and the folder is that user's.
//
// The server runs with fsync=off and full_page_writes=off unless `durable`: a test of what a
// crash keeps must ask for a durable one (none does yet). It is the test process's child, and
// dies with it (PR_SET_PDEATHSIG), so a crashed test leaves no server behind.
//
// PostgreSQL not installed is a failure that says so, never a skip: CI installs it
// (scripts/install-deps.sh --test).

#include <sys/types.h>

#include <memory>
#include <string>

#include <gtest/gtest.h>

namespace arbiter::testing {

class PostgresServer {
  public:
    struct Options {
        /// fsync and full_page_writes on, as a production server has them.
        bool durable = false;
    };

    /// Starts a server, or says why it could not (PostgreSQL missing, initdb failed ...).
    static std::unique_ptr<PostgresServer> start(const Options& options, std::string& error);

    PostgresServer(const PostgresServer&) = delete;
    PostgresServer& operator=(const PostgresServer&) = delete;
    /// Stops the server (fast shutdown) and deletes its folder.
    ~PostgresServer();

    /// Stops the server (fast shutdown) and keeps its folder, for a test of a database that goes
    /// away and comes back (restart()). Nothing happens when it is stopped already.
    void stop();
    /// Starts a stopped server again, on the same port with the same data; false (and why, in
    /// `error`) if it does not take connections. Nothing happens when it is running.
    bool restart(std::string& error);

    /// A libpq URI of the server's database, as a user of arbiter-server would write it.
    std::string uri() const;
    /// A URI whose search_path is a new, empty schema: a fresh store for one test.
    std::string fresh_schema_uri();
    int port() const noexcept { return port_; }

  private:
    PostgresServer() = default;
    bool launch(int port, std::string& error);

    Options options_;
    std::string folder_;
    int port_ = 0;
    pid_t pid_ = -1;
    int schemas_ = 0;
};

/// The test binary's one server (a global GoogleTest environment: started before the first test,
/// stopped after the last). Register it in main() or with AddGlobalTestEnvironment.
class PostgresEnvironment : public ::testing::Environment {
  public:
    void SetUp() override;
    void TearDown() override;
    /// The running server; nullptr (and the test fails) if it did not start.
    static PostgresServer* server();
};

}  // namespace arbiter::testing
