#pragma once
/// \file
/// EngineRegistry: the engines this server offers (the builtin engine always, plus the UCI
/// engines given by `--engine NAME=PATH`), the seat agents that play them, and the resources
/// they share: the process host of UCI children and the builtin worker pool. stop() at server
/// shutdown kills and reaps every child and stops every search.

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/app/seat_agent.hpp"
#include "server/engine/builtin_agent.hpp"
#include "server/engine/uci_agent.hpp"
#include "server/net/child_process.hpp"

namespace arbiter::server::engines {

/// One configured UCI engine.
struct UciEngineSpec {
    std::string name;  ///< as offered in welcome.engines
    std::string path;
    std::vector<rules::Variant> variants;
};

/// Parses a `--engine NAME[:GAMES]=PATH` flag. NAME is 1..32 of [A-Za-z0-9_-], not "builtin".
/// GAMES lists what the engine is offered for, comma-separated: chess and/or xiangqi (a game other
/// than chess is set through UCI_Variant). Without it, a name containing "fairy"
/// (Fairy-Stockfish) plays xiangqi and any other chess (Stockfish and other chess engines).
Expected<UciEngineSpec, std::string> parse_engine_flag(std::string_view flag);

struct EngineOptions {
    std::vector<UciEngineSpec> uci;
    unsigned builtin_threads = 1;
    std::chrono::milliseconds handshake_timeout{5000};
    std::chrono::milliseconds answer_margin{2000};
    /// UCI engine processes running at once. A game against a UCI engine is refused
    /// (engine_unavailable) while all are running; an engine that must start while all are
    /// running (its game was created before, or its process stopped when idle) stops the one
    /// idle longest and waits for a free one (IdleProcesses).
    std::size_t max_processes = 32;
};

class EngineRegistry final : public app::EngineDirectory {
  public:
    explicit EngineRegistry(EngineOptions options);
    ~EngineRegistry() override;

    std::vector<protocol::EngineInfo> offered() const override;
    Expected<std::string, std::string> seat_name(const std::string& engine, rules::Variant variant,
                                                 int level) const override;
    std::shared_ptr<app::SeatAgent> make_agent(const std::string& engine, rules::Variant variant,
                                               int level,
                                               std::shared_ptr<Executor> executor) override;

    /// Kills and reaps every engine process and stops every builtin search. Idempotent.
    void stop();

    /// For /metrics: UCI engine processes running now, and idle ones stopped so far for another
    /// game's engine (at max_processes).
    std::size_t processes_running() const { return processes_.running(); }
    std::uint64_t idle_stops() const { return idle_.stops(); }

  private:
    const UciEngineSpec* find(const std::string& engine, rules::Variant variant) const;

    EngineOptions options_;
    net::ProcessHost processes_;
    IdleProcesses idle_;
    BuiltinPool pool_;
};

}  // namespace arbiter::server::engines
