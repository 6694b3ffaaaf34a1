#pragma once
/// \file
/// UciAgent: one seat played by a UCI engine in a child process. All of its state lives on
/// the room's executor; the process's lines arrive there too (net::ProcessHost), so nothing
/// here blocks. Getting a process (at most --max-engine-processes run at once), the handshake
/// (uci/uciok, options, ucinewgame, isready/readyok) and every search are bounded by timers: an
/// engine that gets no process, does not answer in time, dies, or says nothing usable fails the
/// question, and the room decides what follows (restart once, then end).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "server/app/seat_agent.hpp"
#include "server/engine/uci.hpp"
#include "server/net/child_process.hpp"

namespace arbiter::server::engines {

/// What a UciAgent starts and how long it waits.
struct UciSettings {
    std::string engine;                      ///< the configured name ("stockfish")
    std::string path;                        ///< the program
    std::optional<std::string> uci_variant;  ///< UCI_Variant to set ("xiangqi"), if any
    int level = 1;
    /// The bound of each start-up step: a free process (when as many run as the ProcessHost
    /// allows), uciok, readyok.
    std::chrono::milliseconds handshake_timeout{5000};
    std::chrono::milliseconds answer_margin{2000};  ///< beyond the think time, for bestmove
    /// An engine idle this long (its opponent thinking, or gone) is stopped; the next question
    /// starts it again. Keeps abandoned games from holding processes.
    std::chrono::milliseconds idle_timeout{60000};
};

class UciAgent final : public app::SeatAgent, public std::enable_shared_from_this<UciAgent> {
  public:
    UciAgent(UciSettings settings, net::ProcessHost& processes, std::shared_ptr<Executor> executor);
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
    void wait_for_process(const std::string& why);
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
    std::shared_ptr<Executor> executor_;
    std::shared_ptr<net::ChildProcess> child_;
    Phase phase_ = Phase::none;
    UciOptions options_;  ///< announced in the handshake of the process running now
    std::optional<app::MoveQuestion> question_;
    std::function<void(app::MoveAnswer)> done_;
    std::chrono::milliseconds waited_{0};  ///< for a process, for the question in flight
    std::shared_ptr<Timer> timer_;
    std::uint64_t timer_generation_ = 0;  ///< a timer that fires for an older arm() is ignored
    bool closed_ = false;
};

}  // namespace arbiter::server::engines
