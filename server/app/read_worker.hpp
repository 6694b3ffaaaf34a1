#pragma once
/// \file
/// Storage reads that answer a request (bringing a game back into memory, a replay, a list of
/// games) run on a thread of their own, not on a network thread. A stored game is replayed
/// through the rules as it is read (~0.3 ms for one of 340 plies); a flood of such reads on the
/// network threads stalled every connection they serve, and so every live game. Here a flood
/// waits in a bounded queue and is refused beyond it, while moves go on.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace arbiter::server::app {

/// Whose read it is. A player's (`join`, `resume`, `watch` of a game not in memory, a game
/// brought back when its flag falls) runs before every background read (the REST API, `replay`,
/// `games`), and has room of its own in the queue: a flood of background reads can neither delay
/// nor refuse it.
enum class ReadPriority : std::uint8_t { player, background };

/// What the reader thread did, for /metrics.
struct ReadStats {
    std::size_t waiting = 0;    ///< reads queued now (both priorities), not the one running
    std::uint64_t done = 0;     ///< reads taken to run since start
    std::uint64_t refused = 0;  ///< reads refused because `capacity` were waiting
};

/// Where reads of stored games are queued: the reader thread, or a test's own queue.
class ReadQueue {
  public:
    virtual ~ReadQueue() = default;
    /// Queues `read` and says true; says false, and drops `read`, when it cannot take it now.
    virtual bool try_post(std::function<void()> read, ReadPriority priority) = 0;
    /// A background read.
    bool try_post(std::function<void()> read) {
        return try_post(std::move(read), ReadPriority::background);
    }
};

/// One thread running queued reads: players' reads first, each priority in the order posted, at
/// most `capacity` of each waiting.
class ReadWorker final : public ReadQueue {
  public:
    /// `thread_name` (at most 15 characters) shows in top -H, perf and gdb. The same worker also
    /// runs the password hashes of accounts, a thread of their own ("arbiter-hashing").
    explicit ReadWorker(std::size_t capacity, const char* thread_name = "arbiter-reader");
    /// stop()
    ~ReadWorker() override;
    ReadWorker(const ReadWorker&) = delete;
    ReadWorker& operator=(const ReadWorker&) = delete;

    using ReadQueue::try_post;
    /// Queues `read` and says true; says false, and drops `read`, when `capacity` reads of its
    /// priority are already waiting or the worker has stopped.
    bool try_post(std::function<void()> read, ReadPriority priority) override;
    /// Runs the reads already queued, then joins the thread. Later posts are refused.
    void stop();
    ReadStats stats();

  private:
    void run();

    const std::size_t capacity_;
    const char* const thread_name_;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> players_;     ///< ReadPriority::player
    std::deque<std::function<void()>> background_;  ///< ReadPriority::background
    bool stopping_ = false;
    ReadStats stats_;     // but `waiting`, which is the queues' sizes
    std::thread thread_;  // last: started once the members above exist
};

}  // namespace arbiter::server::app
