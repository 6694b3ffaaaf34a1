#pragma once
/// \file
/// Engines as the analysis pool sees them (issue 42): one PositionAnalyser per pool thread and
/// engine, asked about one position at a time and answering before it returns (the pool's own
/// threads wait, never a room's strand or a network thread). The implementations (UCI child
/// processes, the builtin engine) live in server/engine/, behind these plain interfaces.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/core/expected.hpp"
#include "common/rules/game.hpp"

namespace arbiter::server::app {

/// How long the engine looks at each position: `nodes` when given, else `movetime`.
struct AnalysisLimits {
    std::optional<std::uint64_t> nodes;
    std::chrono::milliseconds movetime{100};
};

/// What an engine says of a position, from the side to move's view.
struct PositionEval {
    std::optional<int> cp;        ///< centipawns
    std::optional<int> mate;      ///< moves to mate; negative: the side to move is mated
    std::string best;             ///< wire notation; empty when the engine gave none
    std::vector<std::string> pv;  ///< wire notation, `best` first
};

/// One engine for one pool thread. Not thread-safe: its thread alone calls it.
class PositionAnalyser {
  public:
    virtual ~PositionAnalyser() = default;
    /// Evaluates the position `game` stands in (ongoing, with a legal move), or says why not.
    virtual Expected<PositionEval, std::string> evaluate(const rules::Game& game) = 0;
};

/// The analysis engines of this server. Thread-safe.
class AnalysisEngines {
  public:
    virtual ~AnalysisEngines() = default;
    /// The engine that analyses `variant`: "stockfish", "fairy-stockfish", "builtin", or the
    /// configured name.
    virtual std::string engine_for(rules::Variant variant) const = 0;
    /// A new analyser for `variant` (a UCI engine's process starts on its first question).
    virtual std::unique_ptr<PositionAnalyser> make(rules::Variant variant) = 0;
    /// Engine searches run so far (one per position asked): the test of "analysed once".
    virtual std::uint64_t searches() const = 0;
    /// Kills every engine process. Idempotent.
    virtual void stop() = 0;
};

}  // namespace arbiter::server::app
