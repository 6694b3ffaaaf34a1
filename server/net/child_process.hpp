#pragma once
/// \file
/// Child processes spoken to line by line over pipes (UCI engines), without Asio types: the
/// pipes are read and written asynchronously on one I/O thread owned by ProcessHost, and
/// everything a child says is delivered on the Executor given at spawn, so a game's strand
/// is never blocked by a child.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/core/expected.hpp"
#include "server/net/runtime.hpp"

namespace arbiter::server::net {

/// What a child says, delivered on the spawn's executor. Neither runs after kill().
struct ChildCallbacks {
    std::function<void(std::string line)> on_line;  ///< one line of stdout, without the '\n'
    std::function<void(std::string why)> on_exit;   ///< the child is gone (reaped); once
};

/// One running child. Thread-safe.
class ChildProcess {
  public:
    virtual ~ChildProcess() = default;
    /// The operating system's process id.
    virtual int pid() const noexcept = 0;
    /// Queues `line` + '\n' to the child's stdin (dropped once the child is gone).
    virtual void write_line(std::string line) = 0;
    /// SIGKILL to the child's process group, close the pipes and reap; no callback runs
    /// afterwards. Idempotent.
    virtual void kill() = 0;
};

/// The bounds of a ProcessHost.
struct ProcessLimits {
    /// Children running at once (started and not yet reaped); spawn() beyond is refused as busy.
    std::size_t max_children = 32;
    /// A longer line from a child counts as a failure (the child is killed).
    std::size_t max_line_bytes = 64UL * 1024;
};

/// Why spawn() started nothing.
struct SpawnError {
    enum class Kind : std::uint8_t {
        busy,   ///< max_children are running: another spawn may succeed once one has ended
        failed  ///< no pipes, no program, or the host is stopping
    };
    Kind kind = Kind::failed;
    std::string message;
};

/// Owns the I/O thread of every child's pipes and every child still running: stop() (and the
/// destructor) kill and reap them all, so that no engine outlives the server or is left a
/// zombie. Each child leads its own process group, and a child is killed with its group, so
/// whatever it started (a helper, a shell's command) ends with it.
class ProcessHost {
  public:
    explicit ProcessHost(ProcessLimits limits = {});
    ~ProcessHost();  // NOLINT(bugprone-exception-escape): see child_process.cpp
    ProcessHost(const ProcessHost&) = delete;
    ProcessHost& operator=(const ProcessHost&) = delete;

    /// Starts `argv[0]` (looked up in PATH when it has no '/') with stdin and stdout piped and
    /// stderr to /dev/null; no other descriptor of the server is inherited. Busy when
    /// max_children are running; fails when the pipes cannot be made, the program cannot be
    /// started, or after stop().
    Expected<std::shared_ptr<ChildProcess>, SpawnError> spawn(const std::vector<std::string>& argv,
                                                              std::shared_ptr<Executor> deliver_on,
                                                              ChildCallbacks callbacks);

    /// Kills and reaps every child, then ends the I/O thread. Idempotent.
    void stop();
    /// Children started (or being started) and not yet reaped.
    std::size_t running() const;

  private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

}  // namespace arbiter::server::net
