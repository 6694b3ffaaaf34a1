// ProcessHost: child processes on pipes, read and written with Asio on one I/O thread; what a
// child says is posted to its owner's executor. The one translation unit that knows how a child
// is started (posix_spawn), read (asio::posix::stream_descriptor) and reaped (waitpid).
#include "server/net/child_process.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>

extern char** environ;  // NOLINT: POSIX declares it nowhere else

namespace arbiter::server::net {

namespace {

namespace asio = boost::asio;
using error_code = boost::system::error_code;

std::string describe_status(int status) {
    if (WIFEXITED(status)) {
        return "exited with status " + std::to_string(WEXITSTATUS(status));
    }
    if (WIFSIGNALED(status)) {
        return "killed by signal " + std::to_string(WTERMSIG(status));
    }
    return "ended";
}

// SIGKILL to the child's process group (start_child makes the child its leader), then reap the
// child: after this the pid is no zombie, and what the child started (a helper, the command of a
// shell script) is killed with it even when the child itself has already ended, unless it left
// the group (setsid, setpgid). The child itself is signalled too, should it have left. Both
// signals go before the reap: until then the child's pid, and so the group's id, cannot name any
// other process or group.
std::string kill_and_reap(pid_t pid) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    int status = 0;
    pid_t reaped = 0;
    do {
        reaped = ::waitpid(pid, &status, 0);
    } while (reaped < 0 && errno == EINTR);
    return reaped == pid ? describe_status(status) : "not reaped: " + std::string(strerror(errno));
}

class Child;

struct HostState {
    explicit HostState(ProcessLimits bounds) : limits(bounds) {}
    ProcessLimits limits;
    asio::io_context ioc{1};
    asio::executor_work_guard<asio::io_context::executor_type> work{ioc.get_executor()};
    std::thread thread;
    mutable std::mutex mutex;
    std::vector<std::shared_ptr<Child>> children;  // started and not yet reaped
    std::size_t starting = 0;  // spawns between the check of max_children and `children`
    bool stopped = false;
    std::atomic<bool> finished{false};  // stop() has begun: post nothing more to the I/O thread

    void forget(const Child* child);
};

class Child final : public ChildProcess, public std::enable_shared_from_this<Child> {
  public:
    Child(std::shared_ptr<HostState> host, pid_t pid, int stdin_fd, int stdout_fd,
          std::shared_ptr<Executor> deliver_on, ChildCallbacks callbacks)
        : host_(std::move(host)),
          pid_(pid),
          input_(host_->ioc, stdin_fd),
          output_(host_->ioc, stdout_fd),
          buffer_(host_->limits.max_line_bytes),
          deliver_on_(std::move(deliver_on)),
          callbacks_(std::move(callbacks)) {}

    int pid() const noexcept override { return pid_; }

    void write_line(std::string line) override {
        if (host_->finished.load()) {
            return;
        }
        asio::post(host_->ioc, [self = shared_from_this(), line = std::move(line)]() mutable {
            if (self->gone_) {
                return;
            }
            self->writes_.push_back(std::move(line) + "\n");
            if (self->writes_.size() == 1) {
                self->write_next();
            }
        });
    }

    void kill() override {
        silenced_.store(true);
        if (host_->finished.load()) {
            return;  // stop() has reaped every child already
        }
        asio::post(host_->ioc, [self = shared_from_this()] { self->terminate("killed"); });
    }

    // On the I/O thread.
    void start() { read_next(); }

    // On the I/O thread: make sure the child is dead and reaped, then say so (once).
    void terminate(const std::string& why) {
        if (gone_) {
            return;
        }
        gone_ = true;
        error_code ignored;
        input_.close(ignored);
        output_.close(ignored);
        writes_.clear();
        const std::string status = kill_and_reap(pid_);
        host_->forget(this);
        deliver([self = shared_from_this(), text = why + " (" + status + ")"] {
            if (self->callbacks_.on_exit) {
                self->callbacks_.on_exit(text);
            }
        });
    }

    void silence() { silenced_.store(true); }

  private:
    void read_next() {
        asio::async_read_until(
            output_, buffer_, '\n', [self = shared_from_this()](error_code ec, std::size_t size) {
                if (ec) {
                    if (ec != asio::error::operation_aborted) {
                        self->terminate(ec == asio::error::eof         ? "closed its output"
                                        : ec == asio::error::not_found ? "wrote an overlong line"
                                                                       : "read: " + ec.message());
                    }
                    return;
                }
                // A streambuf's readable data is one contiguous buffer.
                const asio::const_buffer data = self->buffer_.data();
                std::string line(static_cast<const char*>(data.data()), size - 1);
                self->buffer_.consume(size);
                if (!line.empty() && line.back() == '\r') {
                    line.pop_back();
                }
                self->deliver([self, line = std::move(line)] {
                    if (self->callbacks_.on_line) {
                        self->callbacks_.on_line(line);
                    }
                });
                self->read_next();
            });
    }

    void write_next() {
        asio::async_write(input_, asio::buffer(writes_.front()),
                          [self = shared_from_this()](error_code ec, std::size_t /*size*/) {
                              if (ec || self->gone_) {
                                  // A dead child: its output side reports the end.
                                  self->writes_.clear();
                                  return;
                              }
                              self->writes_.pop_front();
                              if (!self->writes_.empty()) {
                                  self->write_next();
                              }
                          });
    }

    // Runs `task` on the owner's executor unless the owner has killed the child by then.
    void deliver(std::function<void()> task) {
        if (silenced_.load()) {
            return;
        }
        deliver_on_->post([self = shared_from_this(), task = std::move(task)] {
            if (!self->silenced_.load()) {
                task();
            }
        });
    }

    std::shared_ptr<HostState> host_;
    pid_t pid_;
    asio::posix::stream_descriptor input_;   // the child's stdin
    asio::posix::stream_descriptor output_;  // the child's stdout
    asio::streambuf buffer_;
    std::deque<std::string> writes_;  // one async_write in flight: the front
    bool gone_ = false;               // I/O thread only
    std::atomic<bool> silenced_{false};
    std::shared_ptr<Executor> deliver_on_;
    ChildCallbacks callbacks_;
};

void HostState::forget(const Child* child) {
    std::lock_guard lock(mutex);
    std::erase_if(children, [&](const auto& c) { return c.get() == child; });
}

struct Pipe {
    int read = -1;
    int write = -1;
    ~Pipe() {
        close_read();
        close_write();
    }
    void close_read() {
        if (read >= 0) {
            ::close(read);
            read = -1;
        }
    }
    void close_write() {
        if (write >= 0) {
            ::close(write);
            write = -1;
        }
    }
    bool open() {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) {
            return false;
        }
        read = fds[0];
        write = fds[1];
        return true;
    }
};

// posix_spawn, not fork: the server is multi-threaded. The child gets a clean signal state and
// its own process group, so a Ctrl-C meant for the server does not reach it directly, and
// kill_and_reap can end everything it starts.
Expected<pid_t, std::string> start_child(const std::vector<std::string>& argv, Pipe& to_child,
                                         Pipe& from_child) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child.read, STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, from_child.write, STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    // Nothing else of the server's: Asio opens its sockets without O_CLOEXEC, and a child that
    // held the listening socket or a client's connection would keep it open after the server
    // closed it (or exited). glibc >= 2.34 (close_range, or /proc/self/fd without it).
    posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t no_signals;
    sigemptyset(&no_signals);
    posix_spawnattr_setsigmask(&attributes, &no_signals);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int signal : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) {
        sigaddset(&defaults, signal);
    }
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setflags(
        &attributes,
        static_cast<short>(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP));
    std::vector<char*> args;
    for (const auto& arg : argv) {
        args.push_back(const_cast<char*>(arg.c_str()));  // NOLINT: the C interface is not const
    }
    args.push_back(nullptr);
    pid_t pid = 0;
    const int failed =
        ::posix_spawnp(&pid, argv.front().c_str(), &actions, &attributes, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (failed != 0) {
        return unexpected("cannot start " + argv.front() + ": " + strerror(failed));
    }
    return pid;
}

}  // namespace

struct ProcessHost::Impl : HostState {
    using HostState::HostState;
};

ProcessHost::ProcessHost(ProcessLimits limits) : impl_(std::make_shared<Impl>(limits)) {
    // A write to a child that just died must be an EPIPE error, not a signal that ends the server.
    std::signal(SIGPIPE, SIG_IGN);
    impl_->thread = std::thread([impl = impl_] {
        pthread_setname_np(pthread_self(), "arbiter-engines");
        impl->ioc.run();
    });
}

// stop() posts to Asio, which throws only when it cannot allocate the handler: a destructor
// can only end the process then.
// NOLINTNEXTLINE(bugprone-exception-escape)
ProcessHost::~ProcessHost() {
    stop();
}

Expected<std::shared_ptr<ChildProcess>, SpawnError> ProcessHost::spawn(
    const std::vector<std::string>& argv, std::shared_ptr<Executor> deliver_on,
    ChildCallbacks callbacks) {
    const auto failed = [](std::string why) {
        return unexpected(SpawnError{SpawnError::Kind::failed, std::move(why)});
    };
    if (argv.empty() || argv.front().empty()) {
        return failed("no program to start");
    }
    {
        // The child's place among max_children is taken before it starts, so that concurrent
        // spawns never run more; it is `starting` until the child is among `children`.
        std::lock_guard lock(impl_->mutex);
        if (impl_->stopped) {
            return failed("the server is stopping");
        }
        if (impl_->children.size() + impl_->starting >= impl_->limits.max_children) {
            return unexpected(SpawnError{SpawnError::Kind::busy,
                                         "all " + std::to_string(impl_->limits.max_children) +
                                             " processes allowed at once are running"});
        }
        ++impl_->starting;
    }
    const auto give_up = [&](std::string why) {
        std::lock_guard lock(impl_->mutex);
        --impl_->starting;
        return failed(std::move(why));
    };
    Pipe to_child;
    Pipe from_child;
    if (!to_child.open() || !from_child.open()) {
        return give_up("cannot make pipes: " + std::string(strerror(errno)));
    }
    auto pid = start_child(argv, to_child, from_child);
    if (!pid) {
        return give_up(pid.error());
    }
    to_child.close_read();
    from_child.close_write();
    auto child = std::make_shared<Child>(impl_, *pid, to_child.write, from_child.read,
                                         std::move(deliver_on), std::move(callbacks));
    to_child.write = -1;  // owned by the stream descriptors now
    from_child.read = -1;
    {
        std::lock_guard lock(impl_->mutex);
        --impl_->starting;
        if (!impl_->stopped) {
            impl_->children.push_back(child);
            asio::post(impl_->ioc, [child] { child->start(); });
            return std::shared_ptr<ChildProcess>(child);
        }
    }
    child->silence();
    kill_and_reap(*pid);
    return failed("the server is stopping");
}

void ProcessHost::stop() {
    {
        std::lock_guard lock(impl_->mutex);
        if (impl_->stopped) {
            return;
        }
        impl_->stopped = true;
    }
    // From now on owners post nothing more: the task below kills and reaps every child.
    impl_->finished.store(true);
    asio::post(impl_->ioc, [impl = impl_] {
        std::vector<std::shared_ptr<Child>> children;
        {
            std::lock_guard lock(impl->mutex);
            children = impl->children;
        }
        for (const auto& child : children) {
            child->silence();
            child->terminate("server stopping");
        }
    });
    impl_->work.reset();
    if (impl_->thread.joinable()) {
        impl_->thread.join();
    }
}

std::size_t ProcessHost::running() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->children.size() + impl_->starting;
}

}  // namespace arbiter::server::net
