// arbiter-test-postgres: the tests' private PostgreSQL (postgres_fixture.hpp) for a test that is
// not a C++ binary (the server's integration tests, tests/integration/server). It starts the
// server, prints one line, `postgresql-uri URI`, and stops the server and deletes its folder when
// its standard input closes (the test ends it, or dies) or it gets SIGTERM, SIGINT or SIGHUP.
// Exit code 1, with the reason on standard error, if PostgreSQL does not start.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <string>

#include "tests/support/postgres_fixture.hpp"

namespace {

void stop_waiting(int /*signal*/) {}

}  // namespace

int main() {
    // Without SA_RESTART: the signal ends the read below, and the server is stopped and deleted
    // on the way out, as when the input closes.
    struct sigaction stop {};
    stop.sa_handler = stop_waiting;
    sigemptyset(&stop.sa_mask);
    for (const int signal : {SIGTERM, SIGINT, SIGHUP}) {
        sigaction(signal, &stop, nullptr);
    }
    std::string error;
    auto server = arbiter::testing::PostgresServer::start({}, error);
    if (server == nullptr) {
        std::fprintf(stderr, "arbiter-test-postgres: %s\n", error.c_str());
        return 1;
    }
    std::printf("postgresql-uri %s\n", server->uri().c_str());
    std::fflush(stdout);
    char ignored[256];
    while (::read(STDIN_FILENO, ignored, sizeof ignored) > 0) {
    }
    return 0;
}
