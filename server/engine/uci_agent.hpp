#pragma once
/// \file
/// UciAgent: one seat played by a UCI engine in a child process. All of its state lives on
/// the room's executor; the process's lines arrive there too (net::ProcessHost), so nothing
/// here blocks. At most --max-engine-processes run at once: an engine that needs one while all
/// run stops the one idle longest (IdleProcesses) and waits for it to end. Waiting ends: every
/// other process is idle, or in a handshake or a search, each bounded by a timer. An engine that
/// does not answer in time, dies, or says nothing usable fails the question, and the room decides
/// what follows (restart once, then end).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "server/app/seat_agent.hpp"
#include "server/engine/uci.hpp"
#include "server/net/child_process.hpp"

namespace arbiter::server::engines {

/// The UCI processes that run idle (their opponent thinking, or gone), longest idle first. When
/// every process allowed runs, an engine that needs one stops the one idle longest, whose next
/// question starts it again: a process serves a game that asks before one that rests.
class IdleProcesses {
  public:
    /// `agent` rests with a process; `stop` stops it (run on `executor`, the agent's own).
    void rest(const void* agent, std::shared_ptr<Executor> executor, std::function<void()> stop);
    /// `agent` is asked, or has no process any more.
    void wake(const void* agent);
    /// Asks the process idle longest to stop, if one rests.
    void stop_longest_idle();
    /// The `stop` of rest() calls this when it did stop its process (the agent may have been
    /// asked meanwhile, and then keeps it).
    void stopped() { stops_.fetch_add(1, std::memory_order_relaxed); }
    /// Processes stopped through stop_longest_idle() so far.
    std::uint64_t stops() const { return stops_.load(std::memory_order_relaxed); }

  private:
    struct Entry {
        const void* agent;
        std::shared_ptr<Executor> executor;
        std::function<void()> stop;
    };
    std::mutex mutex_;
    std::list<Entry> entries_;  ///< longest idle first
    std::atomic<std::uint64_t> stops_{0};
};

/// What a UciAgent starts and how long it waits.
struct UciSettings {
    std::string engine;                      ///< the configured name ("stockfish")
    std::string path;                        ///< the program
    std::optional<std::string> uci_variant;  ///< UCI_Variant to set ("xiangqi"), if any
    int level = 1;
    /// The bound of each start-up step: uciok, readyok.
    std::chrono::milliseconds handshake_timeout{5000};
    std::chrono::milliseconds answer_margin{2000};  ///< beyond the think time, for bestmove
    /// An engine idle this long (its opponent thinking, or gone) is stopped; the next question
    /// starts it again. Keeps abandoned games from holding processes.
    std::chrono::milliseconds idle_timeout{60000};
};

class UciAgent final : public app::SeatAgent, public std::enable_shared_from_this<UciAgent> {
  public:
    UciAgent(UciSettings settings, net::ProcessHost& processes, IdleProcesses& idle,
             std::shared_ptr<Executor> executor);
    ~UciAgent() override;

    void ask(app::MoveQuestion question, std::function<void(app::MoveAnswer)> done) override;
    void cancel() override;
    void restart() override;
    void close() override;

  private:
    enum class Phase : std::uint8_t {
        none,
        waiting,  ///< for a process: as many as allowed run already
        handshake,
        syncing,
        ready,
        searching,
        stopping
    };

    void start_process();
    void wait_for_process();
    void rest();
    void on_line(const std::string& line);
    void on_exit(const std::string& why);
    void on_uciok();
    void search();
    void arm(std::chrono::milliseconds delay, std::string what);
    void arm_idle();
    void after(std::chrono::milliseconds delay, std::function<void(UciAgent&)> task);
    void fail(std::string why);
    void answer(app::MoveAnswer answer);
    void kill_process();

    UciSettings settings_;
    net::ProcessHost& processes_;
    IdleProcesses& idle_;
    std::shared_ptr<Executor> executor_;
    std::shared_ptr<net::ChildProcess> child_;
    Phase phase_ = Phase::none;
    UciOptions options_;  ///< announced in the handshake of the process running now
    std::optional<app::MoveQuestion> question_;
    std::function<void(app::MoveAnswer)> done_;
    unsigned tries_ = 0;  ///< to get a process, in the wait going on
    std::shared_ptr<Timer> timer_;
    std::uint64_t timer_generation_ = 0;  ///< a timer that fires for an older arm() is ignored
    bool closed_ = false;
};

}  // namespace arbiter::server::engines
