#pragma once
/// \file
/// The analysis pool's engines (issue 42): the UCI engines given by --engine (Stockfish for
/// chess, Fairy-Stockfish for xiangqi) and the builtin engine for draughts and any game without
/// a UCI engine. Their processes are this set's own (not the live games' --max-engine-processes)
/// and run under `nice -n 19`, so a busy analysis pool yields the cores to live games' engines.
/// The UCI text is uci.hpp's, the pipes are net::ProcessHost's.

#include <atomic>
#include <memory>
#include <vector>

#include "server/app/position_analyser.hpp"
#include "server/engine/engine_registry.hpp"
#include "server/net/child_process.hpp"

namespace arbiter::server::engines {

class AnalysisEngineSet final : public app::AnalysisEngines {
  public:
    /// `uci`: the configured UCI engines; `threads`: the pool's threads (one process each per
    /// engine at most).
    AnalysisEngineSet(std::vector<UciEngineSpec> uci, app::AnalysisLimits limits, unsigned threads);
    ~AnalysisEngineSet() override;

    std::string engine_for(rules::Variant variant) const override;
    std::unique_ptr<app::PositionAnalyser> make(rules::Variant variant) override;
    std::uint64_t searches() const override { return searches_.load(); }
    void stop() override;

  private:
    const UciEngineSpec* find(rules::Variant variant) const;

    std::vector<UciEngineSpec> uci_;
    app::AnalysisLimits limits_;
    net::ProcessHost processes_;
    std::atomic<std::uint64_t> searches_{0};
    std::atomic<bool> stopping_{false};  ///< ends every wait and search at once
};

}  // namespace arbiter::server::engines
