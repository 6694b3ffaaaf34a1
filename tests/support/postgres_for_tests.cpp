// arbiter-test-postgres: the tests' private PostgreSQL (postgres_fixture.hpp) for a test that is
// not a C++ binary (the server's integration tests, tests/integration/server). It starts the
// server, prints one line, `postgresql-uri URI`, and stops the server and deletes its folder when
// its standard input closes (the test ends it, or dies) or it gets SIGTERM, SIGINT or SIGHUP.
// Exit code 1, with the reason on standard error, if PostgreSQL does not start.
//
// A test of a database that goes away and comes back (the cluster's, tests/integration/cluster)
// writes lines on its standard input: `stop` stops the server and keeps its data, and the helper
// answers `stopped` once it is down; `start` starts it again on the same port, and the helper
// answers `started` once it takes connections, or `start-failed REASON`. Other lines are ignored.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <string>
#include <string_view>

#include "tests/support/postgres_fixture.hpp"

namespace {

void stop_waiting(int /*signal*/) {}

void answer(const std::string& line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
}

void obey(std::string_view command, arbiter::testing::PostgresServer& server) {
    if (command == "stop") {
        server.stop();
        answer("stopped");
    } else if (command == "start") {
        std::string error;
        if (server.restart(error)) {
            answer("started");
        } else {
            // One line: the reason's own line breaks would end the answer early.
            for (char& c : error) {
                c = c == '\n' ? ' ' : c;
            }
            answer("start-failed " + error);
        }
    }
}

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
    answer("postgresql-uri " + server->uri());
    std::string pending;
    char chunk[256];
    for (;;) {
        const ssize_t got = ::read(STDIN_FILENO, chunk, sizeof chunk);
        if (got <= 0) {
            return 0;
        }
        pending.append(chunk, static_cast<std::size_t>(got));
        for (auto end = pending.find('\n'); end != std::string::npos; end = pending.find('\n')) {
            obey(std::string_view(pending).substr(0, end), *server);
            pending.erase(0, end + 1);
        }
    }
}
