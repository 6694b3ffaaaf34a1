// ProcessHost: real children on pipes (/bin/cat, /bin/sh), lines both ways, kill and reap, what
// a child inherits, what it leaves behind, and how many run at once.

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include "server/net/child_process.hpp"

namespace arbiter::server::net {
namespace {

using namespace std::chrono_literals;

// Runs posted tasks on the test's thread, when it waits for them.
class QueueExecutor final : public Executor {
  public:
    void post(std::function<void()> task) override {
        {
            std::lock_guard lock(mutex_);
            tasks_.push_back(std::move(task));
        }
        ready_.notify_all();
    }
    std::shared_ptr<Timer> post_after(std::chrono::milliseconds /*delay*/,
                                      std::function<void()> /*task*/) override {
        return nullptr;
    }
    // Runs tasks until `done()` holds or the time is up.
    bool run_until(const std::function<bool()>& done, std::chrono::milliseconds limit = 5s) {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (!done()) {
            std::unique_lock lock(mutex_);
            if (!ready_.wait_until(lock, deadline, [this] { return !tasks_.empty(); })) {
                return false;
            }
            auto task = std::move(tasks_.front());
            tasks_.pop_front();
            lock.unlock();
            task();
        }
        return true;
    }

  private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> tasks_;
};

bool reaped(int pid) {
    // ECHILD: not our child any more, so not a zombie either.
    return ::waitpid(pid, nullptr, WNOHANG) < 0 && errno == ECHILD;
}

// A process that is not ours (a child's child) has ended: it is gone, or a zombie that its new
// parent has not reaped (pid 1 of a container may never do it).
bool ended(int pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(stat, text);
    const std::size_t name_end = text.rfind(')');  // "pid (name) state ..."
    return name_end == std::string::npos || text.substr(name_end + 2, 1) == "Z";
}

bool ends_within(int pid, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!ended(pid)) {
        if (std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::sleep_for(5ms);
    }
    return true;
}

// A descriptor of this process without FD_CLOEXEC, as Asio opens its sockets.
struct InheritableSocket {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ~InheritableSocket() { ::close(fd); }
};

TEST(ChildProcess, LinesGoBothWays) {
    ProcessHost host;
    auto executor = std::make_shared<QueueExecutor>();
    std::vector<std::string> lines;
    auto child = host.spawn({"/bin/cat"}, executor,
                            {[&](std::string line) { lines.push_back(std::move(line)); }, {}});
    ASSERT_TRUE(child.has_value()) << child.error().message;
    (*child)->write_line("uci");
    (*child)->write_line("isready");
    ASSERT_TRUE(executor->run_until([&] { return lines.size() == 2; }));
    EXPECT_EQ(lines, (std::vector<std::string>{"uci", "isready"}));
    EXPECT_EQ(host.running(), 1U);
    const int pid = (*child)->pid();
    (*child)->kill();
    host.stop();
    EXPECT_EQ(host.running(), 0U);
    EXPECT_TRUE(reaped(pid));
}

TEST(ChildProcess, AnExitIsReportedAndReaped) {
    ProcessHost host;
    auto executor = std::make_shared<QueueExecutor>();
    std::string why;
    auto child = host.spawn({"/bin/sh", "-c", "echo hello; exit 3"}, executor,
                            {[](std::string) {}, [&](std::string text) { why = std::move(text); }});
    ASSERT_TRUE(child.has_value()) << child.error().message;
    ASSERT_TRUE(executor->run_until([&] { return !why.empty(); }));
    EXPECT_NE(why.find("closed its output"), std::string::npos) << why;
    EXPECT_TRUE(reaped((*child)->pid()));
    EXPECT_EQ(host.running(), 0U);
}

TEST(ChildProcess, KillSilencesAndReaps) {
    ProcessHost host;
    auto executor = std::make_shared<QueueExecutor>();
    bool exited = false;
    auto child = host.spawn({"/bin/sh", "-c", "sleep 60"}, executor,
                            {[](std::string) {}, [&](std::string) { exited = true; }});
    ASSERT_TRUE(child.has_value()) << child.error().message;
    const int pid = (*child)->pid();
    (*child)->kill();
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (host.running() != 0 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(5ms);
    }
    EXPECT_EQ(host.running(), 0U);
    EXPECT_TRUE(reaped(pid));
    executor->run_until([] { return false; }, 100ms);
    EXPECT_FALSE(exited) << "no callback after kill()";
}

TEST(ChildProcess, StopKillsEveryChild) {
    ProcessHost host;
    auto executor = std::make_shared<QueueExecutor>();
    std::vector<int> pids;
    for (int i = 0; i < 3; ++i) {
        auto child = host.spawn({"/bin/sh", "-c", "sleep 60"}, executor, {});
        ASSERT_TRUE(child.has_value()) << child.error().message;
        pids.push_back((*child)->pid());
    }
    host.stop();
    for (int pid : pids) {
        EXPECT_TRUE(reaped(pid)) << pid;
    }
    EXPECT_FALSE(host.spawn({"/bin/cat"}, executor, {}).has_value()) << "no spawn after stop()";
}

TEST(ChildProcess, AMissingProgramIsAnError) {
    ProcessHost host;
    auto child =
        host.spawn({"/nonexistent/engine"}, std::make_shared<QueueExecutor>(), ChildCallbacks{});
    ASSERT_FALSE(child.has_value());
    EXPECT_EQ(child.error().kind, SpawnError::Kind::failed);
    EXPECT_NE(child.error().message.find("/nonexistent/engine"), std::string::npos)
        << child.error().message;
    EXPECT_EQ(host.running(), 0U);
}

TEST(ChildProcess, InheritsOnlyItsPipesAndStderr) {
    // An engine holding the server's listening socket or a client's connection keeps it open
    // after the server closes it, or exits.
    InheritableSocket socket;
    ASSERT_GE(socket.fd, 0);
    ProcessHost host;
    auto executor = std::make_shared<QueueExecutor>();
    std::vector<std::string> lines;
    bool exited = false;
    const std::string script = "for fd in 0 1 2 " + std::to_string(socket.fd) +
                               "; do if [ -e /proc/self/fd/$fd ]; then echo $fd open; "
                               "else echo $fd closed; fi; done";
    auto child = host.spawn({"/bin/sh", "-c", script}, executor,
                            {[&](std::string line) { lines.push_back(std::move(line)); },
                             [&](std::string) { exited = true; }});
    ASSERT_TRUE(child.has_value()) << child.error().message;
    ASSERT_TRUE(executor->run_until([&] { return exited; }));
    EXPECT_EQ(lines, (std::vector<std::string>{"0 open", "1 open", "2 open",
                                               std::to_string(socket.fd) + " closed"}));
}

TEST(ChildProcess, KillEndsWhatTheChildStarted) {
    ProcessHost host;
    auto executor = std::make_shared<QueueExecutor>();
    std::string helper;
    // The shell's background job: a helper the engine started, in the engine's process group.
    auto child = host.spawn({"/bin/sh", "-c", "sleep 60 & echo $!; wait"}, executor,
                            {[&](std::string line) { helper = std::move(line); }, {}});
    ASSERT_TRUE(child.has_value()) << child.error().message;
    ASSERT_TRUE(executor->run_until([&] { return !helper.empty(); }));
    const int helper_pid = std::stoi(helper);
    ASSERT_FALSE(ended(helper_pid));
    (*child)->kill();
    EXPECT_TRUE(ends_within(helper_pid, 5s)) << "the helper " << helper_pid << " still runs";
    host.stop();
    EXPECT_TRUE(reaped((*child)->pid()));
}

TEST(ChildProcess, AnExitEndsWhatTheChildLeftRunning) {
    ProcessHost host;
    auto executor = std::make_shared<QueueExecutor>();
    std::string helper;
    std::string why;
    // The child ends at once; its helper, without the child's pipes, would run on.
    auto child = host.spawn({"/bin/sh", "-c", "sleep 60 </dev/null >/dev/null & echo $!"}, executor,
                            {[&](std::string line) { helper = std::move(line); },
                             [&](std::string text) { why = std::move(text); }});
    ASSERT_TRUE(child.has_value()) << child.error().message;
    ASSERT_TRUE(executor->run_until([&] { return !why.empty(); }));
    ASSERT_FALSE(helper.empty());
    EXPECT_TRUE(ends_within(std::stoi(helper), 5s)) << "the helper " << helper << " still runs";
    EXPECT_TRUE(reaped((*child)->pid()));
}

TEST(ChildProcess, NoMoreThanMaxChildrenRun) {
    ProcessHost host(ProcessLimits{.max_children = 2});
    auto executor = std::make_shared<QueueExecutor>();
    std::vector<std::shared_ptr<ChildProcess>> children;
    for (int i = 0; i < 2; ++i) {
        auto child = host.spawn({"/bin/sh", "-c", "sleep 60"}, executor, {});
        ASSERT_TRUE(child.has_value()) << child.error().message;
        children.push_back(*child);
    }
    auto refused = host.spawn({"/bin/sh", "-c", "sleep 60"}, executor, {});
    ASSERT_FALSE(refused.has_value());
    EXPECT_EQ(refused.error().kind, SpawnError::Kind::busy);
    EXPECT_NE(refused.error().message.find("all 2 "), std::string::npos) << refused.error().message;
    EXPECT_EQ(host.running(), 2U);
    // A place is free again once a child is reaped.
    children[0]->kill();
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (host.running() != 1 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(5ms);
    }
    auto again = host.spawn({"/bin/sh", "-c", "sleep 60"}, executor, {});
    EXPECT_TRUE(again.has_value()) << again.error().message;
    EXPECT_EQ(host.running(), 2U);
}

}  // namespace
}  // namespace arbiter::server::net
