#pragma once
/// \file
/// A private redis-server for tests: 127.0.0.1 on a port nothing else uses, no persistence, its
/// files in a temporary folder. It can be killed (SIGKILL) and started again on the same port.

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>

namespace arbiter::test {

class RedisServer {
  public:
    /// Picks the port and the folder; starts nothing yet.
    RedisServer();
    ~RedisServer();
    RedisServer(const RedisServer&) = delete;
    RedisServer& operator=(const RedisServer&) = delete;
    RedisServer(RedisServer&&) = delete;
    RedisServer& operator=(RedisServer&&) = delete;

    /// Starts redis-server and waits until it accepts connections; an empty string, or why not
    /// (redis-server missing, did not start within 5 s).
    std::string start();
    /// SIGKILL, then reaps it: Redis dies with no goodbye to its clients.
    void kill();
    /// SIGSTOP / SIGCONT: a Redis that holds its connections open and answers nothing.
    void freeze() const;
    void thaw() const;

    std::uint16_t port() const { return port_; }

  private:
    std::uint16_t port_ = 0;
    std::filesystem::path folder_;
    pid_t pid_ = -1;
};

/// The path of redis-server on PATH, or empty.
std::string find_redis_server();

}  // namespace arbiter::test
