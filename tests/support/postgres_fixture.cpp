#include "tests/support/postgres_fixture.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "server/storage/pg.hpp"

namespace arbiter::testing {

namespace {

std::unique_ptr<PostgresServer> the_server;  // NOLINT: the environment's, for the whole run

std::string binaries() {
    const char* overridden = std::getenv("ARBITER_TEST_POSTGRES_BIN");
    return overridden != nullptr ? overridden : "/usr/lib/postgresql/15/bin";
}

// A port nobody listens on now, on 127.0.0.1 (the kernel's pick; a race with another process is
// possible and makes the start fail, which is retried).
int unused_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
        port = ntohs(address.sin_port);
    }
    ::close(fd);
    return port;
}

std::string tail_of(const std::string& path) {
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    std::string all = text.str();
    return all.size() > 2000 ? all.substr(all.size() - 2000) : all;
}

// Forks `argv` with its output appended to `log`, as the postgres user when we are root, dying
// with this process. Returns the child's pid, or -1.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log) {
    const passwd* user = ::geteuid() == 0 ? ::getpwnam("postgres") : nullptr;
    if (::geteuid() == 0 && user == nullptr) {
        return -1;
    }
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid != 0) {
        return pid;
    }
    const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (out >= 0) {
        ::dup2(out, STDOUT_FILENO);
        ::dup2(out, STDERR_FILENO);
    }
    if (user != nullptr && (::initgroups(user->pw_name, user->pw_gid) != 0 ||
                            ::setgid(user->pw_gid) != 0 || ::setuid(user->pw_uid) != 0)) {
        ::_exit(126);
    }
    // After the change of user, which clears it: SIGINT is PostgreSQL's fast shutdown.
    ::prctl(PR_SET_PDEATHSIG, SIGINT);
    if (::getppid() != parent) {
        ::_exit(125);
    }
    std::vector<char*> args;
    for (const std::string& arg : argv) {
        args.push_back(const_cast<char*>(arg.c_str()));
    }
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
}

int wait_for(pid_t pid) {
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid) {
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

std::unique_ptr<PostgresServer> PostgresServer::start(const Options& options, std::string& error) {
    if (!std::filesystem::exists(binaries() + "/initdb")) {
        error = "PostgreSQL is not installed: no " + binaries() +
                "/initdb. Install it (scripts/install-deps.sh --test installs Debian's "
                "postgresql) or set ARBITER_TEST_POSTGRES_BIN to its bin folder.";
        return nullptr;
    }
    std::unique_ptr<PostgresServer> server(new PostgresServer());
    std::string folder = (std::filesystem::temp_directory_path() / "arbiter-pg-XXXXXX").string();
    if (::mkdtemp(folder.data()) == nullptr) {
        error = "cannot create a temporary folder for PostgreSQL";
        return nullptr;
    }
    server->folder_ = folder;
    server->options_ = options;
    if (::geteuid() == 0) {
        const passwd* user = ::getpwnam("postgres");
        if (user == nullptr || ::chown(folder.c_str(), user->pw_uid, user->pw_gid) != 0) {
            error = "running as root, and the postgres user cannot own " + folder;
            return nullptr;
        }
    }
    const std::string log = folder + "/initdb.log";
    const pid_t initdb =
        spawn({binaries() + "/initdb", "--pgdata=" + folder + "/data", "--username=arbiter",
               "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"},
              log);
    if (initdb < 0 || wait_for(initdb) != 0) {
        error = "initdb failed:\n" + tail_of(log);
        return nullptr;
    }
    for (int attempt = 0; attempt < 3; ++attempt) {
        if (server->launch(unused_port(), error)) {
            return server;
        }
    }
    return nullptr;
}

bool PostgresServer::launch(int port, std::string& error) {
    port_ = port;
    std::vector<std::string> argv = {binaries() + "/postgres",
                                     "-D",
                                     folder_ + "/data",
                                     "-p",
                                     std::to_string(port_),
                                     "-c",
                                     "listen_addresses=127.0.0.1",
                                     "-c",
                                     "unix_socket_directories=" + folder_,
                                     "-c",
                                     "max_connections=100",
                                     "-c",
                                     "shared_buffers=32MB"};
    if (!options_.durable) {
        for (const char* fast : {"fsync=off", "full_page_writes=off"}) {
            argv.insert(argv.end(), {"-c", fast});
        }
    }
    const std::string log = folder_ + "/server.log";
    pid_ = spawn(argv, log);
    if (pid_ < 0) {
        error = "cannot start postgres";
        return false;
    }
    // Ready once it takes a connection; it may also have died (a port taken meanwhile).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
        if (server::storage::pg::Connection::open(uri())) {
            return true;
        }
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            error = "postgres exited at start:\n" + tail_of(log);
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    error = "postgres did not take connections within 30 s:\n" + tail_of(log);
    ::kill(pid_, SIGQUIT);
    wait_for(pid_);
    pid_ = -1;
    return false;
}

void PostgresServer::stop() {
    if (pid_ > 0) {
        ::kill(pid_, SIGINT);
        wait_for(pid_);
        pid_ = -1;
    }
}

bool PostgresServer::restart(std::string& error) {
    if (pid_ > 0) {
        return true;
    }
    // The port was this server's a moment ago: PostgreSQL binds it with SO_REUSEADDR, so only
    // another process that took it meanwhile makes this fail, and a retry would not help.
    return launch(port_, error);
}

PostgresServer::~PostgresServer() {
    stop();
    if (!folder_.empty()) {
        std::error_code ignored;
        std::filesystem::remove_all(folder_, ignored);
    }
}

std::string PostgresServer::uri() const {
    // initdb made the databases postgres and template1; the user arbiter may use postgres.
    return "postgresql://arbiter@127.0.0.1:" + std::to_string(port_) + "/postgres";
}

std::string PostgresServer::fresh_schema_uri() {
    const std::string schema = "test_" + std::to_string(++schemas_);
    auto admin = server::storage::pg::Connection::open(uri());
    if (!admin) {
        ADD_FAILURE() << admin.error().message;
        return uri();
    }
    if (auto created = admin->exec("CREATE SCHEMA " + schema); !created) {
        ADD_FAILURE() << created.error().message;
    }
    // libpq passes `options` to the server: every connection of the store searches the schema.
    return uri() + "?options=-csearch_path%3D" + schema;
}

void PostgresEnvironment::SetUp() {
    std::string error;
    the_server = PostgresServer::start({}, error);
    ASSERT_NE(the_server, nullptr) << "the tests' PostgreSQL server: " << error;
}

void PostgresEnvironment::TearDown() {
    the_server.reset();
}

PostgresServer* PostgresEnvironment::server() {
    return the_server.get();
}

}  // namespace arbiter::testing
