#include "server/app/read_worker.hpp"

#include <exception>
#include <utility>

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include "server/app/log.hpp"

namespace arbiter::server::app {

namespace {
constexpr int kReadNiceness = 10;
}  // namespace

ReadWorker::ReadWorker(std::size_t capacity, const char* thread_name)
    : capacity_(capacity), thread_name_(thread_name), thread_([this] { run(); }) {}

ReadWorker::~ReadWorker() {
    stop();
}

bool ReadWorker::try_post(std::function<void()> read, ReadPriority priority) {
    {
        std::lock_guard lock(mutex_);
        auto& queue = priority == ReadPriority::player ? players_ : background_;
        if (stopping_ || queue.size() >= capacity_) {
            stats_.refused += 1;
            return false;
        }
        queue.push_back(std::move(read));
    }
    ready_.notify_one();
    return true;
}

void ReadWorker::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    ready_.notify_one();
    if (thread_.joinable()) {
        thread_.join();
    }
}

ReadStats ReadWorker::stats() {
    std::lock_guard lock(mutex_);
    ReadStats copy = stats_;
    copy.waiting = players_.size() + background_.size();
    return copy;
}

void ReadWorker::run() {
    pthread_setname_np(pthread_self(), thread_name_);  // for top -H, perf and gdb
    // Reads yield the cores to live games: under a flood of them, moves still go first. (Linux
    // gives each thread its own nice value; raising it needs no privilege.)
    setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kReadNiceness);
    for (;;) {
        std::function<void()> read;
        {
            std::unique_lock lock(mutex_);
            ready_.wait(lock,
                        [this] { return stopping_ || !players_.empty() || !background_.empty(); });
            // A player waits for the read running, never for the background reads queued.
            auto& queue = !players_.empty() ? players_ : background_;
            if (queue.empty()) {
                return;  // stopping, and every read taken has run
            }
            read = std::move(queue.front());
            queue.pop_front();
            stats_.done += 1;
        }
        // A read answers its own request; one that throws must not end the others.
        try {
            read();
        } catch (const std::exception& error) {
            log_event(LogLevel::error, "read_failed", {{"error", error.what()}});
        }
    }
}

}  // namespace arbiter::server::app
