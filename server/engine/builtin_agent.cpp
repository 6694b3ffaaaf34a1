#include "server/engine/builtin_agent.hpp"

#include <algorithm>
#include <random>

#include <pthread.h>

#include "common/engine/builtin.hpp"
#include "server/engine/think_budget.hpp"

namespace arbiter::server::engines {

BuiltinPool::BuiltinPool(unsigned threads) : size_(std::max(1U, threads)) {
    for (std::size_t i = 0; i < size_; ++i) {
        workers_.emplace_back([this] {
            pthread_setname_np(pthread_self(), "arbiter-builtin");
            work();
        });
    }
}

BuiltinPool::~BuiltinPool() {
    stop();
}

void BuiltinPool::submit(Job job) {
    {
        std::lock_guard lock(mutex_);
        if (stopping_) {
            return;
        }
        make_way_for(job.deadline, Clock::now());
        queue_.push_back(std::move(job));
    }
    wake_.notify_one();
}

void BuiltinPool::make_way_for(Clock::time_point deadline, Clock::time_point now) {
    if (running_.size() + queue_.size() < size_) {
        return;  // a worker is free for it
    }
    auto last = std::max_element(
        running_.begin(), running_.end(),
        [](const Running& a, const Running& b) { return a.deadline < b.deadline; });
    if (last == running_.end() || last->deadline <= deadline) {
        return;
    }
    const auto searched =
        std::chrono::duration_cast<std::chrono::milliseconds>(now - last->started);
    const std::int64_t cap = std::max(searched, kFairShare).count();
    if (cap < last->time_cap_ms->load()) {
        last->time_cap_ms->store(cap);
    }
    // Due no later than its cut now, so another urgent search picks another victim.
    last->deadline = std::min(last->deadline, last->started + std::chrono::milliseconds(cap));
}

void BuiltinPool::stop() {
    {
        std::lock_guard lock(mutex_);
        if (stopping_) {
            return;
        }
        stopping_ = true;
        for (const auto& running : running_) {
            running.stop->store(true);
        }
        for (const auto& job : queue_) {
            job.stop->store(true);
        }
        queue_.clear();
    }
    wake_.notify_all();
    for (auto& worker : workers_) {
        worker.join();
    }
}

void BuiltinPool::work() {
    for (;;) {
        Job job;
        Running running;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (stopping_) {
                return;
            }
            auto first = std::min_element(
                queue_.begin(), queue_.end(),
                [](const Job& a, const Job& b) { return a.deadline < b.deadline; });
            job = std::move(*first);
            queue_.erase(first);
            running = {job.stop, std::make_shared<std::atomic<std::int64_t>>(INT64_MAX),
                       Clock::now(), job.deadline};
            running_.push_back(running);
        }
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(job.deadline - running.started);
        job.run(std::max(left, kFloor), running.time_cap_ms.get());
        std::lock_guard lock(mutex_);
        std::erase_if(running_, [&](const Running& r) { return r.stop == running.stop; });
    }
}

BuiltinAgent::BuiltinAgent(int level, BuiltinPool& pool, std::shared_ptr<Executor> executor)
    : level_(level), pool_(pool), executor_(std::move(executor)), seed_(std::random_device{}()) {}

void BuiltinAgent::ask(app::MoveQuestion question, std::function<void(app::MoveAnswer)> done) {
    if (closed_) {
        return;
    }
    cancel();
    done_ = std::move(done);
    const std::uint64_t generation = ++generation_;
    auto stop = std::make_shared<std::atomic<bool>>(false);
    stop_ = stop;
    engine::SearchLimits limits = engine::limits_for_level(level_);
    const auto deadline = BuiltinPool::Clock::now() + think_budget(limits.max_time, question);
    // The question's game is the room's own copy for this question (never changed after
    // asking), so the worker may read it.
    std::shared_ptr<const rules::Game> game = question.game;
    std::weak_ptr<BuiltinAgent> weak = weak_from_this();
    const int level = level_;
    const std::uint64_t seed = seed_ + generation;
    auto executor = executor_;
    pool_.submit({[game, level, limits, stop, seed, weak, generation, executor](
                      std::chrono::milliseconds time_left,
                      const std::atomic<std::int64_t>* time_cap_ms) mutable {
                      limits.max_time = std::min(limits.max_time, time_left);
                      limits.time_cap_ms = time_cap_ms;
                      limits.stop = stop.get();
                      engine::SearchResult result = engine::choose_move(*game, level, limits, seed);
                      if (stop->load()) {
                          return;
                      }
                      executor->post([weak, generation, move = std::move(result.move)] {
                          auto self = weak.lock();
                          if (!self || self->generation_ != generation || !self->done_) {
                              return;
                          }
                          auto reply = std::move(self->done_);
                          self->done_ = nullptr;
                          if (move.empty()) {
                              reply(unexpected(std::string("the builtin engine found no move")));
                          } else {
                              reply(move);
                          }
                      });
                  },
                  stop, deadline});
}

void BuiltinAgent::cancel() {
    ++generation_;
    done_ = nullptr;
    if (stop_) {
        stop_->store(true);
        stop_.reset();
    }
}

void BuiltinAgent::restart() {
    cancel();
}

void BuiltinAgent::close() {
    closed_ = true;
    cancel();
}

}  // namespace arbiter::server::engines
