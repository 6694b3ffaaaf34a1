#include "server/engine/uci_agent.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "server/engine/think_budget.hpp"
#include "server/engine/uci.hpp"

namespace arbiter::server::engines {

namespace {

// How often a question waiting for a process (all that may run are running) tries again.
constexpr std::chrono::milliseconds kProcessRetry{100};
constexpr unsigned kTriesPerStop = 10;

}  // namespace

void IdleProcesses::rest(const void* agent, std::shared_ptr<Executor> executor,
                         std::function<void()> stop) {
    std::lock_guard lock(mutex_);
    std::erase_if(entries_, [agent](const Entry& entry) { return entry.agent == agent; });
    entries_.push_back({agent, std::move(executor), std::move(stop)});
}

void IdleProcesses::wake(const void* agent) {
    std::lock_guard lock(mutex_);
    std::erase_if(entries_, [agent](const Entry& entry) { return entry.agent == agent; });
}

void IdleProcesses::stop_longest_idle() {
    Entry longest;
    {
        std::lock_guard lock(mutex_);
        if (entries_.empty()) {
            return;
        }
        longest = std::move(entries_.front());
        entries_.pop_front();
    }
    longest.executor->post(std::move(longest.stop));
}

UciAgent::UciAgent(UciSettings settings, net::ProcessHost& processes, IdleProcesses& idle,
                   std::shared_ptr<Executor> executor)
    : settings_(std::move(settings)),
      processes_(processes),
      idle_(idle),
      executor_(std::move(executor)) {}

UciAgent::~UciAgent() {
    kill_process();
}

void UciAgent::ask(app::MoveQuestion question, std::function<void(app::MoveAnswer)> done) {
    if (closed_) {
        return;
    }
    question_ = std::move(question);
    done_ = std::move(done);
    idle_.wake(this);
    switch (phase_) {
        case Phase::none:
            start_process();
            break;
        case Phase::ready:
            search();
            break;
        case Phase::searching:
            // A new question while the engine thinks about an old one: stop it; the bestmove
            // that follows is dropped and the new search starts then.
            child_->write_line("stop");
            phase_ = Phase::stopping;
            arm(settings_.answer_margin, "stop");
            break;
        case Phase::waiting:
        case Phase::handshake:
        case Phase::syncing:
        case Phase::stopping:
            break;  // the search starts once the engine is ready
    }
}

void UciAgent::cancel() {
    question_.reset();
    done_ = nullptr;
    if (phase_ == Phase::waiting) {
        kill_process();  // no process yet: stop waiting for one
    } else if (phase_ == Phase::searching) {
        child_->write_line("stop");
        phase_ = Phase::stopping;
        arm(settings_.answer_margin, "stop");
    }
}

void UciAgent::restart() {
    kill_process();
}

void UciAgent::close() {
    closed_ = true;
    question_.reset();
    done_ = nullptr;
    kill_process();
}

void UciAgent::start_process() {
    std::weak_ptr<UciAgent> weak = weak_from_this();
    net::ChildCallbacks callbacks;
    callbacks.on_line = [weak](const std::string& line) {
        if (auto self = weak.lock()) {
            self->on_line(line);
        }
    };
    callbacks.on_exit = [weak](const std::string& why) {
        if (auto self = weak.lock()) {
            self->on_exit(why);
        }
    };
    auto child = processes_.spawn({settings_.path}, executor_, std::move(callbacks));
    if (!child) {
        if (child.error().kind == net::SpawnError::Kind::busy) {
            wait_for_process();
        } else {
            fail(child.error().message);
        }
        return;
    }
    child_ = std::move(child).value();
    options_ = {};
    phase_ = Phase::handshake;
    child_->write_line("uci");
    arm(settings_.handshake_timeout, "uciok");
}

// As many processes as --max-engine-processes allows are running (or one just stopped is not yet
// reaped): stop the one idle longest, if one is, and try again shortly. Not the engine's failure,
// and not bounded here: each process that runs is idle (stopped in turn), or in a handshake, a
// search or a stop, each bounded by its timer; a timed game's clock runs meanwhile.
void UciAgent::wait_for_process() {
    if (phase_ != Phase::waiting) {
        spdlog::info("engine {}: all engine processes run; waiting for one", settings_.engine);
        tries_ = 0;
    }
    phase_ = Phase::waiting;
    // One process stopped per wait, and one more each second it lasts (a stopped process takes
    // a moment to be reaped: stopping one at each try would stop more than this engine needs).
    if (tries_++ % kTriesPerStop == 0) {
        idle_.stop_longest_idle();
    }
    after(kProcessRetry, [](UciAgent& self) {
        if (self.phase_ == Phase::waiting) {
            self.start_process();  // still waiting, if all still run
        }
    });
}

void UciAgent::on_line(const std::string& line) {
    const UciLine parsed = parse_uci_line(line);
    switch (parsed.kind) {
        case UciLine::Kind::option:
            // Options belong to the handshake (UCI: between "uci" and "uciok"); one announced
            // later is ignored, and UciOptions keeps only those the agent sets.
            if (phase_ == Phase::handshake) {
                options_.note(parsed);
            }
            break;
        case UciLine::Kind::uciok:
            if (phase_ == Phase::handshake) {
                on_uciok();
            }
            break;
        case UciLine::Kind::readyok:
            if (phase_ == Phase::syncing) {
                phase_ = Phase::ready;
                ++timer_generation_;
                if (question_) {
                    search();
                }
            }
            break;
        case UciLine::Kind::bestmove:
            if (phase_ == Phase::stopping) {
                phase_ = Phase::ready;
                ++timer_generation_;
                if (question_) {
                    search();
                }
            } else if (phase_ == Phase::searching) {
                phase_ = Phase::ready;
                ++timer_generation_;
                if (parsed.word.empty() || parsed.word == "(none)" || parsed.word == "0000") {
                    fail("answered no move (\"" + line + "\")");
                } else {
                    answer(parsed.word);
                }
            }
            break;
        case UciLine::Kind::other:
            break;
    }
}

void UciAgent::on_uciok() {
    if (settings_.uci_variant) {
        if (!options_.uci_variant) {
            fail("the engine has no UCI_Variant option for " + *settings_.uci_variant);
            return;
        }
        child_->write_line(setoption_command("UCI_Variant", *settings_.uci_variant));
    }
    // One search thread per engine: many games share two cores (and it keeps Skill Level's
    // randomness the only randomness).
    if (options_.threads) {
        child_->write_line(setoption_command("Threads", "1"));
    }
    const UciStrength strength = uci_strength(settings_.level);
    if (options_.skill_level) {
        child_->write_line(setoption_command("Skill Level", std::to_string(strength.skill_level)));
    }
    if (strength.elo && options_.limit_strength && options_.elo) {
        const int elo = std::clamp(*strength.elo, options_.elo_min.value_or(*strength.elo),
                                   options_.elo_max.value_or(*strength.elo));
        child_->write_line(setoption_command("UCI_LimitStrength", "true"));
        child_->write_line(setoption_command("UCI_Elo", std::to_string(elo)));
    }
    child_->write_line("ucinewgame");
    child_->write_line("isready");
    phase_ = Phase::syncing;
    arm(settings_.handshake_timeout, "readyok");
}

void UciAgent::search() {
    const app::MoveQuestion& question = *question_;
    const UciStrength strength = uci_strength(settings_.level);
    // The level's think time, capped from the clock in a timed game: a bestmove later than that
    // plus the margin counts as a hang.
    const std::chrono::milliseconds think = think_budget(strength.movetime, question);
    child_->write_line(position_command(question.initial_position, question.moves));
    child_->write_line(go_command(question.remaining_ms, question.increment_ms, think));
    phase_ = Phase::searching;
    arm(think + settings_.answer_margin, "bestmove");
}

void UciAgent::on_exit(const std::string& why) {
    idle_.wake(this);
    child_.reset();
    phase_ = Phase::none;
    ++timer_generation_;
    if (question_) {
        fail("the engine process ended: " + why);
    } else {
        // Idle: nothing is lost; the next question starts a new process.
        spdlog::info("engine {}: process ended while idle: {}", settings_.engine, why);
    }
}

void UciAgent::arm(std::chrono::milliseconds delay, std::string what) {
    after(delay, [what = std::move(what), delay](UciAgent& self) {
        self.fail("no " + what + " within " + std::to_string(delay.count()) + " ms");
    });
}

void UciAgent::fail(std::string why) {
    spdlog::warn("engine {} (level {}): {}", settings_.engine, settings_.level, why);
    // The process is in an unknown state: the next question starts a fresh one.
    kill_process();
    answer(unexpected(std::move(why)));
}

void UciAgent::answer(app::MoveAnswer answer) {
    auto done = std::move(done_);
    done_ = nullptr;
    question_.reset();
    if (child_) {
        arm_idle();
    }
    if (done) {
        done(std::move(answer));
    }
}

void UciAgent::arm_idle() {
    after(settings_.idle_timeout, [](UciAgent& self) {
        if (!self.question_) {
            self.kill_process();
        }
    });
    rest();
}

// Offers the idle process to engines that need one while all run (IdleProcesses).
void UciAgent::rest() {
    std::weak_ptr<UciAgent> weak = weak_from_this();
    idle_.rest(this, executor_, [weak] {
        auto self = weak.lock();
        if (self && !self->question_ && self->phase_ == Phase::ready) {
            spdlog::info("engine {}: idle process stopped for another game's engine",
                         self->settings_.engine);
            self->kill_process();
            self->idle_.stopped();
        }
    });
}

// The one timer: `task` runs after `delay` unless another after() (any arm), an answer line or
// kill_process() comes first.
void UciAgent::after(std::chrono::milliseconds delay, std::function<void(UciAgent&)> task) {
    if (timer_) {
        timer_->cancel();
    }
    const std::uint64_t generation = ++timer_generation_;
    std::weak_ptr<UciAgent> weak = weak_from_this();
    timer_ = executor_->post_after(delay, [weak, generation, task = std::move(task)] {
        auto self = weak.lock();
        if (self && self->timer_generation_ == generation) {
            task(*self);
        }
    });
}

void UciAgent::kill_process() {
    idle_.wake(this);
    if (timer_) {
        timer_->cancel();
        timer_.reset();
    }
    ++timer_generation_;
    if (child_) {
        child_->kill();
        child_.reset();
    }
    phase_ = Phase::none;
}

}  // namespace arbiter::server::engines
