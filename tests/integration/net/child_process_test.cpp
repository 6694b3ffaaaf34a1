// ProcessHost: real children on pipes (/bin/cat, /bin/sh), lines both ways, kill and reap.

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
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

TEST(ChildProcess, LinesGoBothWays) {
    ProcessHost host;
    auto executor = std::make_shared<QueueExecutor>();
    std::vector<std::string> lines;
    auto child = host.spawn({"/bin/cat"}, executor,
                            {[&](std::string line) { lines.push_back(std::move(line)); }, {}});
    ASSERT_TRUE(child.has_value()) << child.error();
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
    ASSERT_TRUE(child.has_value()) << child.error();
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
    ASSERT_TRUE(child.has_value()) << child.error();
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
        ASSERT_TRUE(child.has_value()) << child.error();
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
    EXPECT_NE(child.error().find("/nonexistent/engine"), std::string::npos) << child.error();
}

}  // namespace
}  // namespace arbiter::server::net
