#include "server/app/analysis_service.hpp"

#include <pthread.h>

#include <array>
#include <cmath>

#include "common/core/overloaded.hpp"
#include "common/protocol/analysis_api.hpp"
#include "server/app/log.hpp"
#include "server/app/scheduling.hpp"

namespace arbiter::server::app {

namespace {

using storage::AnalysisRow;
using storage::AnalysisStatus;

// At most this often a running analysis tells its watchers how far it is (the contract: a few
// a second), besides when it starts and ends.
constexpr std::chrono::milliseconds kProgressInterval{250};
// What a position costs at the flags' bound, roughly, for the Retry-After of a full queue.
constexpr std::int64_t kSecondsPerQueuedGame = 5;

// The engine's score (side to move's view) from the first seat's view.
std::optional<Score> first_seat_score(const PositionEval& eval, rules::Side turn) {
    std::optional<Score> score;
    if (eval.mate) {
        score = Score::mate_in(*eval.mate);
    } else if (eval.cp) {
        score = Score::centipawns(*eval.cp);
    }
    if (score && turn == rules::Side::second) {
        score = flipped(*score);
    }
    return score;
}

protocol::MoveMark wire_mark(Mark mark) {
    switch (mark) {
        case Mark::inaccuracy:
            return protocol::MoveMark::inaccuracy;
        case Mark::mistake:
            return protocol::MoveMark::mistake;
        case Mark::blunder:
            return protocol::MoveMark::blunder;
        case Mark::none:
            break;
    }
    return protocol::MoveMark::none;
}

}  // namespace

std::optional<protocol::AnalysisEval> to_wire(const std::optional<Score>& score) {
    if (!score) {
        return std::nullopt;
    }
    return protocol::AnalysisEval{score->kind == Score::Kind::cp
                                      ? protocol::AnalysisEval::Kind::cp
                                      : protocol::AnalysisEval::Kind::mate,
                                  score->value};
}

protocol::AnalysisStatus to_wire(storage::AnalysisStatus status) {
    switch (status) {
        case AnalysisStatus::queued:
            return protocol::AnalysisStatus::queued;
        case AnalysisStatus::running:
            return protocol::AnalysisStatus::running;
        case AnalysisStatus::done:
            return protocol::AnalysisStatus::done;
        case AnalysisStatus::failed:
            break;
    }
    return protocol::AnalysisStatus::failed;
}

AnalysisService::AnalysisService(storage::GameRepository& games, storage::AnalysisStore& store,
                                 AnalysisEngines& engines, AnalysisOptions options,
                                 const TimeSource& time)
    : games_(games), store_(store), engines_(engines), options_(options), time_(time) {}

AnalysisService::~AnalysisService() {
    stop();
}

Expected<void, storage::StorageError> AnalysisService::start() {
    auto unfinished = store_.unfinished_analyses();
    if (!unfinished) {
        return unexpected(std::move(unfinished).error());
    }
    {
        std::lock_guard lock(mutex_);
        // Accepted before the stop: queued again whatever the bound, from the start.
        for (auto& row : *unfinished) {
            row.status = AnalysisStatus::queued;
            row.done = 0;
            row.plies_json = "[]";
            queue_.push_back(GameJob{row.game_id});
            active_[row.game_id] = std::move(row);
        }
    }
    if (!unfinished->empty()) {
        log_event(LogLevel::info, "analyses_requeued",
                  {{"count", std::to_string(unfinished->size())}});
    }
    for (unsigned i = 0; i < std::max(1U, options_.threads); ++i) {
        threads_.emplace_back([this] { work(); });
    }
    return {};
}

void AnalysisService::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    engines_.stop();  // a search in progress ends with its process
    for (auto& thread : threads_) {
        if (thread.joinable()) {
            thread.join();
        }
    }
    threads_.clear();
}

AnalysisRefusal AnalysisService::busy() const {
    const auto waiting = static_cast<std::int64_t>(queue_.size());
    const auto threads = static_cast<std::int64_t>(std::max(1U, options_.threads));
    return {AnalysisRefusal::Kind::busy, "the analysis queue is full; try again later",
            std::max<std::int64_t>(1, kSecondsPerQueuedGame * waiting / threads)};
}

Expected<std::pair<AnalysisRow, bool>, AnalysisRefusal> AnalysisService::request(
    const std::string& game_id) {
    {
        std::lock_guard lock(mutex_);
        if (auto it = active_.find(game_id); it != active_.end()) {
            return std::pair{it->second, false};
        }
    }
    auto stored = store_.find_analysis(game_id);
    if (!stored) {
        return unexpected(AnalysisRefusal{AnalysisRefusal::Kind::storage, stored.error().message});
    }
    // A failed analysis is tried again (protocol.md, Analysis): its engine may be back, or
    // another engine may analyse the variant now.
    if (*stored && (*stored)->status != AnalysisStatus::failed) {
        return std::pair{std::move(**stored), false};
    }
    auto game = games_.load(game_id);
    if (!game) {
        return unexpected(AnalysisRefusal{AnalysisRefusal::Kind::storage, game.error().message});
    }
    if (!*game) {
        return unexpected(
            AnalysisRefusal{AnalysisRefusal::Kind::unknown_game, "no game with that id"});
    }
    if ((*game)->header.status != protocol::GameStatus::ended) {
        return unexpected(AnalysisRefusal{AnalysisRefusal::Kind::not_finished,
                                          "only a game that ended can be analysed"});
    }
    AnalysisRow row;
    row.game_id = game_id;
    row.engine = engines_.engine_for((*game)->header.variant);
    row.total = static_cast<std::int64_t>((*game)->moves.size()) + 1;
    row.requested_ms = time_.unix_ms();
    row.updated_ms = row.requested_ms;
    {
        std::lock_guard lock(mutex_);
        if (auto it = active_.find(game_id); it != active_.end()) {
            return std::pair{it->second, false};  // another request queued it meanwhile
        }
        if (queue_.size() >= options_.max_queue) {
            return unexpected(busy());
        }
        active_[game_id] = row;
        queue_.push_back(GameJob{game_id});
    }
    publish(row, true);
    wake_.notify_one();
    return std::pair{std::move(row), true};
}

Expected<std::optional<AnalysisRow>, storage::StorageError> AnalysisService::find(
    const std::string& game_id) {
    {
        std::lock_guard lock(mutex_);
        if (auto it = active_.find(game_id); it != active_.end()) {
            return std::optional<AnalysisRow>(it->second);
        }
    }
    return store_.find_analysis(game_id);
}

void AnalysisService::evaluate_position(rules::Variant variant, const std::string& position,
                                        PositionDone done) {
    auto game = rules::make_game(variant, position);
    if (!game) {
        return done(
            unexpected(AnalysisRefusal{AnalysisRefusal::Kind::bad_position, game.error().message}));
    }
    auto job = std::make_shared<PositionJob>();
    job->game = std::move(game).value();
    job->done = std::move(done);
    {
        std::lock_guard lock(mutex_);
        if (queue_.size() >= options_.max_queue) {
            auto refusal = busy();
            job->done(unexpected(std::move(refusal)));
            return;
        }
        queue_.push_back(job);
    }
    wake_.notify_one();
}

void AnalysisService::work() {
    pthread_setname_np(pthread_self(), "arbiter-analyse");  // for top -H, perf and arbiter-load
    if (!run_in_background()) {
        log_event(LogLevel::warn, "analysis_priority_not_lowered", {});
    }
    Worker worker;
    for (;;) {
        Job job;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
            if (stopping_) {
                return;
            }
            job = std::move(queue_.front());
            queue_.pop_front();
        }
        std::visit(Overloaded{[&](const GameJob& game) { analyse(worker, game.game_id); },
                              [&](const std::shared_ptr<PositionJob>& position) {
                                  answer(worker, *position);
                              }},
                   job);
    }
}

Expected<PositionEval, std::string> AnalysisService::evaluate(Worker& worker,
                                                              const rules::Game& game) {
    // A failed engine is replaced once (its process is gone); a second failure is the answer.
    for (int attempt = 0;; ++attempt) {
        auto& analyser = worker.analysers[game.variant()];
        if (!analyser) {
            analyser = engines_.make(game.variant());
        }
        auto eval = analyser->evaluate(game);
        if (eval || attempt == 1) {
            return eval;
        }
        log_event(LogLevel::warn, "analysis_engine_failed", {{"why", eval.error()}});
        analyser.reset();
    }
}

void AnalysisService::answer(Worker& worker, PositionJob& job) {
    const rules::Game& game = *job.game;
    PositionAnswer answer;
    answer.engine = engines_.engine_for(game.variant());
    if (!game.status().over()) {
        auto eval = evaluate(worker, game);
        if (!eval) {
            return job.done(
                unexpected(AnalysisRefusal{AnalysisRefusal::Kind::storage, eval.error()}));
        }
        answer.eval = first_seat_score(*eval, game.turn());
        answer.best = eval->best;
        answer.pv = eval->pv;
    } else if (game.status().outcome == rules::Outcome::draw) {
        answer.eval = Score::centipawns(0);
    }
    job.done(std::move(answer));
}

void AnalysisService::analyse(Worker& worker, const std::string& game_id) {
    AnalysisRow row;
    {
        std::lock_guard lock(mutex_);
        row = active_[game_id];
    }
    const auto fail = [&](const std::string& why) {
        log_event(LogLevel::warn, "analysis_failed", {{"game", game_id}, {"why", why}});
        row.status = AnalysisStatus::failed;
        row.updated_ms = time_.unix_ms();
        publish(row, true, true);
    };
    auto stored = games_.load(game_id);
    if (!stored || !*stored) {
        return fail(stored ? "the game is gone" : stored.error().message);
    }
    const auto& header = (*stored)->header;
    auto made = rules::make_game(header.variant, header.initial_position);
    if (!made) {
        return fail("stored position does not load: " + made.error().message);
    }
    std::unique_ptr<rules::Game> game = std::move(made).value();
    const rules::Side first_mover = game->turn();
    row.status = AnalysisStatus::running;
    row.engine = engines_.engine_for(header.variant);
    row.updated_ms = time_.unix_ms();
    publish(row, true);

    std::vector<std::optional<Score>> evals;
    std::vector<protocol::AnalysisPly> plies;
    std::array<std::array<std::int64_t, 3>, 2> counts{};  // [seat][inaccuracy, mistake, blunder]
    auto last_progress = std::chrono::steady_clock::now();
    for (std::size_t ply = 0; ply <= (*stored)->moves.size(); ++ply) {
        {
            std::lock_guard lock(mutex_);
            if (stopping_) {
                return;  // stays queued or running in storage: queued again at the next start
            }
        }
        if (ply > 0 && !game->play((*stored)->moves[ply - 1].move)) {
            return fail("stored move does not replay: " + (*stored)->moves[ply - 1].move);
        }
        protocol::AnalysisPly entry;
        entry.ply = static_cast<std::int64_t>(ply);
        std::optional<Score> score;
        const rules::Status status = game->status();
        if (!status.over()) {
            auto eval = evaluate(worker, *game);
            if (!eval) {
                return fail(eval.error());
            }
            score = first_seat_score(*eval, game->turn());
            entry.best = eval->best;
            entry.pv = eval->pv;
        } else if (status.outcome == rules::Outcome::draw) {
            score = Score::centipawns(0);  // a drawn end is level; a decisive one has no number
        }
        entry.eval = to_wire(score);
        Mark mark = Mark::none;
        if (ply > 0) {
            // The mover of ply N moved from the position of ply N - 1.
            const rules::Side mover =
                (ply - 1) % 2 == 0 ? first_mover : rules::opponent(first_mover);
            mark = mark_of(evals.back(), score, mover);
            if (mark != Mark::none) {
                ++counts[mover == rules::Side::first ? 0 : 1][static_cast<int>(mark) - 1];
            }
        }
        entry.mark = wire_mark(mark);
        evals.push_back(score);
        plies.push_back(std::move(entry));
        row.done = static_cast<std::int64_t>(ply) + 1;
        row.plies_json = protocol::encode_analysis_plies(plies);
        const auto now = std::chrono::steady_clock::now();
        if (now - last_progress >= kProgressInterval) {
            last_progress = now;
            publish(row, false);
        }
    }
    const auto accuracy = game_accuracy(evals, first_mover);
    std::vector<protocol::SeatFigures> figures;
    for (rules::Side side : {rules::Side::first, rules::Side::second}) {
        const std::size_t seat = side == rules::Side::first ? 0 : 1;
        protocol::SeatFigures figure;
        figure.seat = std::string(rules::seat_name(header.variant, side));
        if (accuracy[seat]) {
            // One decimal, as Lichess shows it.
            figure.accuracy = std::round(*accuracy[seat] * 10) / 10;
        }
        figure.counts = {counts[seat][0], counts[seat][1], counts[seat][2]};
        figures.push_back(std::move(figure));
    }
    row.status = AnalysisStatus::done;
    row.accuracy_json = protocol::encode_analysis_accuracy(figures);
    row.counts_json = protocol::encode_analysis_counts(figures);
    row.updated_ms = time_.unix_ms();
    publish(row, true, true);
}

void AnalysisService::publish(const AnalysisRow& row, bool store, bool last) {
    {
        std::lock_guard lock(mutex_);
        if (auto it = active_.find(row.game_id); it != active_.end()) {
            it->second = row;
        }
    }
    const auto tell = [this, row] {
        log_event(LogLevel::info, "analysis_progress",
                  {{"game", row.game_id},
                   {"status", std::string(protocol::to_string(to_wire(row.status)))},
                   {"done", std::to_string(row.done)},
                   {"total", std::to_string(row.total)}});
        if (progress_) {
            progress_(row.game_id, row.status, row.done, row.total);
        }
    };
    if (!store) {
        return tell();
    }
    // The last row leaves memory, and its watchers hear of it, only once it is stored: a read
    // that follows the news then finds it (the reads of a game no longer analysed go to the
    // store).
    store_.write_analysis(
        storage::SaveAnalysis{row},
        [this, last, tell, game = row.game_id](const Expected<void, storage::StorageError>& done) {
            if (!done) {
                log_event(LogLevel::error, "analysis_not_stored",
                          {{"game", game}, {"error", done.error().message}});
            }
            if (!last) {
                return;  // told already: progress need not wait for its commit
            }
            {
                std::lock_guard lock(mutex_);
                active_.erase(game);
            }
            if (done) {
                tell();  // a last row not stored is not news: the log says why
            }
        });
    if (!last) {
        tell();
    }
}

}  // namespace arbiter::server::app
