#include "tests/unit/bus/redis_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <thread>
#include <vector>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX, for posix_spawn

namespace arbiter::test {
namespace {

sockaddr_in loopback(std::uint16_t port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
}

/// A port the kernel just gave out on 127.0.0.1 and took back: free for the server to bind.
std::uint16_t unused_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address = loopback(0);
    socklen_t size = sizeof address;
    ::bind(fd, reinterpret_cast<sockaddr*>(&address), size);          // NOLINT: the sockets API
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);  // NOLINT
    ::close(fd);
    return ntohs(address.sin_port);
}

bool accepts(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    const sockaddr_in address = loopback(port);
    const bool connected =
        ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;  // NOLINT
    ::close(fd);
    return connected;
}

}  // namespace

std::string find_redis_server() {
    const char* path = std::getenv("PATH");
    std::stringstream folders(path != nullptr ? path : "/usr/bin:/bin");
    for (std::string folder; std::getline(folders, folder, ':');) {
        const auto candidate = std::filesystem::path(folder) / "redis-server";
        if (::access(candidate.c_str(), X_OK) == 0) {
            return candidate.string();
        }
    }
    return {};
}

RedisServer::RedisServer() : port_(unused_port()) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "arbiter-redis-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) {
        folder_ = pattern;
    }
}

RedisServer::~RedisServer() {
    kill();
    if (!folder_.empty()) {
        std::error_code ignored;
        std::filesystem::remove_all(folder_, ignored);
    }
}

std::string RedisServer::start() {
    const std::string binary = find_redis_server();
    if (binary.empty()) {
        return "redis-server is not on PATH: install it (scripts/install-deps.sh --test)";
    }
    if (folder_.empty()) {
        return "could not make a temporary folder for redis-server";
    }
    const std::string port = std::to_string(port_);
    const std::string log = (folder_ / "redis.log").string();
    std::vector<std::string> arguments{
        binary, "--port", port,    "--bind",    "127.0.0.1", "--save",      "",  "--appendonly",
        "no",   "--dir",  folder_, "--logfile", log,         "--daemonize", "no"};
    std::vector<char*> argv;
    for (auto& argument : arguments) {
        argv.push_back(argument.data());
    }
    argv.push_back(nullptr);
    if (::posix_spawn(&pid_, binary.c_str(), nullptr, nullptr, argv.data(), environ) != 0) {
        pid_ = -1;
        return "could not run " + binary;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < deadline) {
        if (accepts(port_)) {
            return {};
        }
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            return "redis-server exited at start; see " + log;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return "redis-server did not accept connections on 127.0.0.1:" + port + " within 5 s";
}

void RedisServer::kill() {
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        pid_ = -1;
    }
}

void RedisServer::freeze() const {
    if (pid_ > 0) {
        ::kill(pid_, SIGSTOP);
    }
}

void RedisServer::thaw() const {
    if (pid_ > 0) {
        ::kill(pid_, SIGCONT);
    }
}

}  // namespace arbiter::test
