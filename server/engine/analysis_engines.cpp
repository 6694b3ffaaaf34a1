#include "server/engine/analysis_engines.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "common/engine/search.hpp"
#include "server/engine/uci.hpp"

namespace arbiter::server::engines {

namespace {

constexpr std::string_view kBuiltin = "builtin";
constexpr std::chrono::milliseconds kHandshakeTimeout{10000};
// A search bounded by nodes has no time of its own: this is its bound as a hang.
constexpr std::chrono::milliseconds kNodesSearchTimeout{20000};
constexpr std::chrono::milliseconds kAnswerMargin{5000};

// The lines a child says, handed from the process host's I/O thread to the pool thread that
// waits for them.
struct Lines {
    std::mutex mutex;
    std::condition_variable ready;
    std::deque<std::string> lines;
    bool ended = false;
};

// Runs the child's callbacks where they are delivered (on the process host's I/O thread): each
// only queues a line for the waiting pool thread. ProcessHost asks for no timer.
class QueueingExecutor final : public Executor {
  public:
    void post(std::function<void()> task) override { task(); }
    std::shared_ptr<Timer> post_after(std::chrono::milliseconds /*delay*/,
                                      std::function<void()> /*task*/) override {
        struct NoTimer final : Timer {
            void cancel() override {}
        };
        return std::make_shared<NoTimer>();
    }
};

// One UCI engine process, spoken to synchronously from one pool thread.
class UciAnalyser final : public app::PositionAnalyser {
  public:
    UciAnalyser(const UciEngineSpec& spec, rules::Variant variant, app::AnalysisLimits limits,
                net::ProcessHost& processes, std::atomic<std::uint64_t>& searches,
                const std::atomic<bool>& stopping)
        : spec_(spec),
          variant_(variant),
          limits_(limits),
          processes_(processes),
          searches_(searches),
          stopping_(stopping) {}
    ~UciAnalyser() override { kill(); }
    UciAnalyser(const UciAnalyser&) = delete;
    UciAnalyser& operator=(const UciAnalyser&) = delete;

    Expected<app::PositionEval, std::string> evaluate(const rules::Game& game) override {
        if (!child_) {
            if (auto started = start(); !started) {
                kill();
                return unexpected(std::move(started).error());
            }
        }
        child_->write_line(position_command(game.initial_position(), game.moves()));
        child_->write_line(analysis_go_command(limits_.nodes, limits_.movetime));
        searches_.fetch_add(1);
        const auto deadline =
            std::chrono::steady_clock::now() +
            (limits_.nodes ? kNodesSearchTimeout : limits_.movetime + kAnswerMargin);
        std::optional<UciInfo> last;
        for (;;) {
            auto line = next_line(deadline);
            if (!line) {
                kill();
                return unexpected(std::string("no bestmove in time, or the engine ended"));
            }
            if (auto info = parse_uci_info(*line)) {
                // The last exact score is the search's answer; a bound only stands in for it.
                if (!info->bound || !last || last->bound) {
                    last = std::move(info);
                }
                continue;
            }
            const UciLine parsed = parse_uci_line(*line);
            if (parsed.kind != UciLine::Kind::bestmove) {
                continue;
            }
            app::PositionEval eval;
            if (last) {
                eval.cp = last->cp;
                eval.mate = last->mate;
                eval.pv = std::move(last->pv);
            }
            if (!parsed.word.empty() && parsed.word != "(none)" && parsed.word != "0000") {
                eval.best = parsed.word;
                if (eval.pv.empty() || eval.pv.front() != eval.best) {
                    eval.pv = {eval.best};
                }
            } else {
                eval.pv.clear();
            }
            constexpr std::size_t kMaxPv = 8;  // a few moves: what a reader of the line wants
            if (eval.pv.size() > kMaxPv) {
                eval.pv.resize(kMaxPv);
            }
            return eval;
        }
    }

  private:
    Expected<void, std::string> start() {
        lines_ = std::make_shared<Lines>();
        net::ChildCallbacks callbacks;
        callbacks.on_line = [lines = lines_](std::string line) {
            {
                std::lock_guard lock(lines->mutex);
                lines->lines.push_back(std::move(line));
            }
            lines->ready.notify_one();
        };
        callbacks.on_exit = [lines = lines_](const std::string& /*why*/) {
            {
                std::lock_guard lock(lines->mutex);
                lines->ended = true;
            }
            lines->ready.notify_one();
        };
        // Niced: the analysis pool's engines yield the cores to the live games' engines.
        auto child = processes_.spawn({"nice", "-n", "19", spec_.path},
                                      std::make_shared<QueueingExecutor>(), std::move(callbacks));
        if (!child) {
            return unexpected("cannot start " + spec_.name + ": " + child.error().message);
        }
        child_ = std::move(child).value();
        spdlog::info("analysis: started {} for {}", spec_.name, rules::to_string(variant_));
        child_->write_line("uci");
        UciOptions options;
        const auto handshake = std::chrono::steady_clock::now() + kHandshakeTimeout;
        for (;;) {
            auto line = next_line(handshake);
            if (!line) {
                return unexpected(spec_.name + ": no uciok");
            }
            const UciLine parsed = parse_uci_line(*line);
            options.note(parsed);
            if (parsed.kind == UciLine::Kind::uciok) {
                break;
            }
        }
        if (variant_ != rules::Variant::chess) {
            if (!options.uci_variant) {
                return unexpected(spec_.name + " has no UCI_Variant option");
            }
            child_->write_line(setoption_command("UCI_Variant", rules::to_string(variant_)));
        }
        if (options.threads) {
            child_->write_line(setoption_command("Threads", "1"));
        }
        child_->write_line("ucinewgame");
        child_->write_line("isready");
        for (;;) {
            auto line = next_line(handshake);
            if (!line) {
                return unexpected(spec_.name + ": no readyok");
            }
            if (parse_uci_line(*line).kind == UciLine::Kind::readyok) {
                return {};
            }
        }
    }

    // The next line, or nullopt at the deadline, once the process ended, or when the set
    // stops (checked every kStopCheck: a stopped host calls back no more).
    std::optional<std::string> next_line(std::chrono::steady_clock::time_point deadline) {
        constexpr std::chrono::milliseconds kStopCheck{100};
        std::unique_lock lock(lines_->mutex);
        while (lines_->lines.empty() && !lines_->ended && !stopping_.load()) {
            const auto now = std::chrono::steady_clock::now();
            if (now >= deadline) {
                break;
            }
            lines_->ready.wait_until(lock, std::min(deadline, now + kStopCheck));
        }
        if (lines_->lines.empty() || stopping_.load()) {
            return std::nullopt;
        }
        std::string line = std::move(lines_->lines.front());
        lines_->lines.pop_front();
        return line;
    }

    void kill() {
        if (child_) {
            child_->kill();
            child_.reset();
        }
    }

    const UciEngineSpec& spec_;
    rules::Variant variant_;
    app::AnalysisLimits limits_;
    net::ProcessHost& processes_;
    std::atomic<std::uint64_t>& searches_;
    const std::atomic<bool>& stopping_;
    std::shared_ptr<Lines> lines_;
    std::shared_ptr<net::ChildProcess> child_;
};

// The builtin engine's search, run on the pool thread itself.
class BuiltinAnalyser final : public app::PositionAnalyser {
  public:
    BuiltinAnalyser(app::AnalysisLimits limits, std::atomic<std::uint64_t>& searches,
                    const std::atomic<bool>& stopping)
        : limits_(limits), searches_(searches), stopping_(stopping) {}

    Expected<app::PositionEval, std::string> evaluate(const rules::Game& game) override {
        engine::SearchLimits search_limits;
        search_limits.stop = &stopping_;
        if (limits_.nodes) {
            search_limits.max_nodes = *limits_.nodes;
            search_limits.max_time = kNodesSearchTimeout;
        } else {
            search_limits.max_time = limits_.movetime;
        }
        searches_.fetch_add(1);
        const engine::SearchResult result = engine::search(game, search_limits, 1);
        app::PositionEval eval;
        if (result.move.empty()) {
            return unexpected(std::string("the builtin engine found no move"));
        }
        eval.best = result.move;
        eval.pv = {result.move};
        // A score beyond kMateBound is a forced win (or loss) kMateScore - |score| plies away.
        if (std::abs(result.score) >= engine::kMateBound) {
            const int plies = engine::kMateScore - std::abs(result.score);
            const int moves = (plies + 1) / 2;
            eval.mate = result.score > 0 ? moves : -moves;
        } else {
            eval.cp = result.score;
        }
        return eval;
    }

  private:
    app::AnalysisLimits limits_;
    std::atomic<std::uint64_t>& searches_;
    const std::atomic<bool>& stopping_;
};

}  // namespace

AnalysisEngineSet::AnalysisEngineSet(std::vector<UciEngineSpec> uci, app::AnalysisLimits limits,
                                     unsigned threads)
    : uci_(std::move(uci)),
      limits_(limits),
      // Each pool thread holds at most one process per variant it analyses.
      processes_(net::ProcessLimits{.max_children = std::size_t{std::max(1U, threads)} * 2}) {}

AnalysisEngineSet::~AnalysisEngineSet() {
    stop();
}

const UciEngineSpec* AnalysisEngineSet::find(rules::Variant variant) const {
    const UciEngineSpec* found = nullptr;
    for (const auto& spec : uci_) {
        if (std::find(spec.variants.begin(), spec.variants.end(), variant) == spec.variants.end()) {
            continue;
        }
        // Stockfish itself for chess when it is there; otherwise the first that plays it.
        if (found == nullptr || (variant == rules::Variant::chess && spec.name == "stockfish")) {
            found = &spec;
        }
    }
    return found;
}

std::string AnalysisEngineSet::engine_for(rules::Variant variant) const {
    const UciEngineSpec* spec = find(variant);
    return spec != nullptr ? spec->name : std::string(kBuiltin);
}

std::unique_ptr<app::PositionAnalyser> AnalysisEngineSet::make(rules::Variant variant) {
    if (const UciEngineSpec* spec = find(variant)) {
        return std::make_unique<UciAnalyser>(*spec, variant, limits_, processes_, searches_,
                                             stopping_);
    }
    return std::make_unique<BuiltinAnalyser>(limits_, searches_, stopping_);
}

void AnalysisEngineSet::stop() {
    stopping_.store(true);
    processes_.stop();
}

}  // namespace arbiter::server::engines
