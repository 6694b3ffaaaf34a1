#pragma once
/// \file
/// The analysis pool (issue 42; schema/protocol.md, "Analysis"): finished games analysed by an
/// engine on threads of their own, never a room's strand, a network thread or the live games'
/// engine pool. Bounded: --analysis-threads run, at most --max-analysis-queue wait, each position
/// gets --analysis-nodes or --analysis-movetime-ms. The threads run at the lowest priority
/// (nice 19, never real-time) and so do their engine processes, so that a busy pool yields the
/// cores to live games.
///
/// A game is analysed once: its row (migration 0013) is written when it is queued, when it
/// starts and when it ends; a second request finds it, unless it failed: then it runs again. At
/// start, rows left queued or running by a server that stopped are queued again and analysed from
/// the start.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "common/core/expected.hpp"
#include "common/protocol/analysis_api.hpp"
#include "server/app/analysis_math.hpp"
#include "server/app/position_analyser.hpp"
#include "server/net/runtime.hpp"
#include "server/storage/analysis_store.hpp"
#include "server/storage/repository.hpp"

namespace arbiter::server::app {

/// A score as the wire carries it (protocol/analysis_api.hpp).
std::optional<protocol::AnalysisEval> to_wire(const std::optional<Score>& score);
/// A stored status as the wire carries it. (storage::to_string lives in arbiter_storage, which
/// arbiter_app does not link: its unit tests run on fakes.)
protocol::AnalysisStatus to_wire(storage::AnalysisStatus status);

/// The pool's bounds (the flags).
struct AnalysisOptions {
    unsigned threads = 1;
    std::size_t max_queue = 16;
    AnalysisLimits limits;
};

/// Why a request started nothing.
struct AnalysisRefusal {
    enum class Kind : std::uint8_t { unknown_game, not_finished, bad_position, busy, storage };
    Kind kind = Kind::storage;
    std::string message;
    std::int64_t retry_after_s = 0;  ///< busy: when to try again
};

/// One position's answer for /api/explore/eval, from the first seat's view.
struct PositionAnswer {
    std::optional<Score> eval;
    std::string best;
    std::vector<std::string> pv;
    std::string engine;
};

class AnalysisService {
  public:
    /// An analysis moved on: its game, status, plies done and in all. From a pool thread.
    using Progress = std::function<void(const std::string& game, storage::AnalysisStatus status,
                                        std::int64_t done, std::int64_t total)>;
    using PositionDone = std::function<void(Expected<PositionAnswer, AnalysisRefusal>)>;

    AnalysisService(storage::GameRepository& games, storage::AnalysisStore& store,
                    AnalysisEngines& engines, AnalysisOptions options, const TimeSource& time);
    ~AnalysisService();
    AnalysisService(const AnalysisService&) = delete;
    AnalysisService& operator=(const AnalysisService&) = delete;

    /// Set before start().
    void on_progress(Progress progress) { progress_ = std::move(progress); }
    /// Queues the analyses a stopped server left unfinished, and starts the threads.
    Expected<void, storage::StorageError> start();
    /// Ends the threads (a running analysis is dropped and stays queued in storage).
    void stop();

    /// Starts the analysis of `game_id` (also again, when it failed), or finds it. Reads
    /// storage: call it off the network threads. The row, and whether this call queued it.
    Expected<std::pair<storage::AnalysisRow, bool>, AnalysisRefusal> request(
        const std::string& game_id);
    /// The analysis of `game_id` as it stands (in progress: the plies done so far), or nullopt
    /// when never requested. Reads storage.
    Expected<std::optional<storage::AnalysisRow>, storage::StorageError> find(
        const std::string& game_id);
    /// A short bounded search of one position (`position` in the variant's FEN), answered on a
    /// pool thread; refused at once (bad position, busy) through `done` too.
    void evaluate_position(rules::Variant variant, const std::string& position, PositionDone done);

  private:
    struct GameJob {
        std::string game_id;
    };
    struct PositionJob {
        std::unique_ptr<rules::Game> game;
        PositionDone done;
    };
    using Job = std::variant<GameJob, std::shared_ptr<PositionJob>>;
    struct Worker {
        std::map<rules::Variant, std::unique_ptr<PositionAnalyser>> analysers;
    };

    void work();
    void analyse(Worker& worker, const std::string& game_id);
    void answer(Worker& worker, PositionJob& job);
    Expected<PositionEval, std::string> evaluate(Worker& worker, const rules::Game& game);
    /// The row in memory changed: store it (when `store`), then tell the watchers. The `last`
    /// row (done or failed) leaves memory and is told only once its write committed.
    void publish(const storage::AnalysisRow& row, bool store, bool last = false);
    AnalysisRefusal busy() const;

    storage::GameRepository& games_;
    storage::AnalysisStore& store_;
    AnalysisEngines& engines_;
    const AnalysisOptions options_;
    const TimeSource& time_;
    Progress progress_;

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Job> queue_;
    std::map<std::string, storage::AnalysisRow> active_;  ///< queued or running, by game
    bool stopping_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace arbiter::server::app
