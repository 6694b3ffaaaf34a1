#pragma once
/// \file
/// Engine seats, as rooms see them: a SeatAgent is asked for a move when it is its seat's turn
/// and answers later on the room's executor; the room plays the answer as an ordinary move
/// request (same checks, same commit-before-broadcast). EngineDirectory is what this server
/// offers (welcome.engines) and makes the agents. The implementations (UCI child processes and
/// the builtin engine's worker pool) live in server/engine/, behind these plain interfaces.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/core/expected.hpp"
#include "common/protocol/messages.hpp"
#include "common/rules/game.hpp"
#include "server/net/runtime.hpp"

namespace arbiter::server::app {

/// Everything an engine needs to choose the next move.
struct MoveQuestion {
    std::string initial_position;  ///< the variant's FEN of the start
    std::vector<std::string> moves;
    std::shared_ptr<const rules::Game> game;  ///< the position now; never changed after asking
    rules::Side side = rules::Side::first;    ///< the engine's side, which is to move
    /// Remaining ms per seat [first, second] at the moment of asking; nullopt: untimed.
    std::optional<std::array<std::int64_t, 2>> remaining_ms;
    std::int64_t increment_ms = 0;
};

/// A move in wire form, or why the engine failed to give one (for the log).
using MoveAnswer = Expected<std::string, std::string>;

/// One engine playing one seat of one game.
class SeatAgent {
  public:
    virtual ~SeatAgent() = default;
    /// Starts thinking. `done` runs once, on the executor the agent was made with, unless
    /// cancel(), restart() or close() comes first. One question at a time: a new ask()
    /// replaces the one in flight.
    virtual void ask(MoveQuestion question, std::function<void(MoveAnswer)> done) = 0;
    /// The question in flight is no longer wanted; its answer is dropped.
    virtual void cancel() = 0;
    /// Drops the engine's state (a UCI engine's process is killed); the next ask() starts
    /// afresh. Used after a failure, before asking again.
    virtual void restart() = 0;
    /// The game is over: frees everything (kills and reaps a process). Idempotent.
    virtual void close() = 0;
};

/// The engines this server offers, and a factory of seat agents.
class EngineDirectory {
  public:
    virtual ~EngineDirectory() = default;
    /// For welcome.engines.
    virtual std::vector<protocol::EngineInfo> offered() const = 0;
    /// The seat name for `engine` at `level` ("Stockfish (level 3)"), or why it cannot play
    /// `variant` here.
    virtual Expected<std::string, std::string> seat_name(const std::string& engine,
                                                         rules::Variant variant,
                                                         int level) const = 0;
    /// An agent whose answers arrive on `executor`. An engine no longer configured (a restored
    /// game after a configuration change) falls back to the builtin engine.
    virtual std::shared_ptr<SeatAgent> make_agent(const std::string& engine, rules::Variant variant,
                                                  int level,
                                                  std::shared_ptr<Executor> executor) = 0;
};

}  // namespace arbiter::server::app
