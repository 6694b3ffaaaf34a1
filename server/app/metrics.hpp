#pragma once
/// \file
/// What the server reports at GET /metrics, in the Prometheus text exposition format (0.0.4).
/// Counters and histograms are lock-free: any thread may count. Gauges that other components
/// own (connections, rooms, database size, the process) are read at scrape time.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "common/protocol/messages.hpp"
#include "server/app/read_worker.hpp"
#include "server/net/server.hpp"

namespace arbiter::server::app {

/// A latency histogram with fixed buckets from 250 µs to 1 s, rendered in seconds.
class LatencyHistogram {
  public:
    void observe(std::int64_t micros) noexcept;
    std::uint64_t count() const noexcept { return count_.load(std::memory_order_relaxed); }
    /// HELP, TYPE, the cumulative buckets, _sum and _count of metric `name`.
    void render(std::string& out, std::string_view name, std::string_view help) const;

  private:
    static constexpr std::array<std::int64_t, 12> kBucketsUs = {
        250, 500, 1000, 2000, 5000, 10000, 25000, 50000, 100000, 250000, 500000, 1000000};

    std::array<std::atomic<std::uint64_t>, kBucketsUs.size() + 1> buckets_{};
    std::atomic<std::uint64_t> sum_us_{0};
    std::atomic<std::uint64_t> count_{0};
};

class Metrics {
  public:
    static constexpr std::size_t kErrorCodes =
        static_cast<std::size_t>(protocol::ErrorCode::internal) + 1;

    void move_accepted() noexcept { moves_accepted_.fetch_add(1, std::memory_order_relaxed); }
    /// A move request answered with an error (also counted by refused()).
    void move_refused(protocol::ErrorCode code) noexcept {
        moves_refused_[index(code)].fetch_add(1, std::memory_order_relaxed);
    }
    /// Any request answered with an error.
    void refused(protocol::ErrorCode code) noexcept {
        refused_[index(code)].fetch_add(1, std::memory_order_relaxed);
    }
    void game_created() noexcept { games_created_.fetch_add(1, std::memory_order_relaxed); }
    void game_ended() noexcept { games_ended_.fetch_add(1, std::memory_order_relaxed); }
    void rate_limited() noexcept { rate_limited_.fetch_add(1, std::memory_order_relaxed); }
    /// An HTTP API request answered 429 (--api-rate).
    void api_rate_limited() noexcept { api_rate_limited_.fetch_add(1, std::memory_order_relaxed); }
    /// An engine failed to give a move (crash, hang, illegal move); see room_engine.cpp.
    void engine_failed() noexcept { engine_failures_.fetch_add(1, std::memory_order_relaxed); }
    /// Time from a move's arrival to its commit, in microseconds.
    void commit_latency(std::int64_t micros) noexcept { commit_latency_.observe(micros); }
    /// Time from a message's arrival to its reply (or broadcast) being queued, in microseconds.
    void message_latency(std::int64_t micros) noexcept { message_latency_.observe(micros); }

    std::uint64_t moves_accepted() const noexcept { return moves_accepted_.load(); }
    std::uint64_t refused_count(protocol::ErrorCode code) const noexcept {
        return refused_[index(code)].load();
    }

    /// The counters and histograms in Prometheus text format.
    std::string render() const;

  private:
    static std::size_t index(protocol::ErrorCode code) noexcept {
        return static_cast<std::size_t>(code);
    }

    std::atomic<std::uint64_t> moves_accepted_{0};
    std::array<std::atomic<std::uint64_t>, kErrorCodes> moves_refused_{};
    std::array<std::atomic<std::uint64_t>, kErrorCodes> refused_{};
    std::atomic<std::uint64_t> games_created_{0};
    std::atomic<std::uint64_t> games_ended_{0};
    std::atomic<std::uint64_t> rate_limited_{0};
    std::atomic<std::uint64_t> api_rate_limited_{0};
    std::atomic<std::uint64_t> engine_failures_{0};
    LatencyHistogram commit_latency_;
    LatencyHistogram message_latency_;
};

/// WebSocket connections by what they do: seated in a game, watching one, on the lobby only,
/// or none of these yet.
struct ConnectionRoles {
    std::size_t players = 0;
    std::size_t spectators = 0;
    std::size_t lobby = 0;
    std::size_t other = 0;
};

/// The gauges read at scrape time.
struct ScrapeGauges {
    std::size_t open_connections = 0;  ///< every connection holding a slot (HTTP included)
    ConnectionRoles roles;
    /// Rooms in memory by (status, variant).
    std::map<std::pair<std::string, std::string>, std::size_t> games;
    net::NetStats net;
    ReadStats reads;
    std::size_t engine_processes = 0;     ///< UCI engine processes running
    std::uint64_t engine_idle_stops = 0;  ///< idle ones stopped for another game's engine
};

/// The gauges and the network's counters in Prometheus text format.
std::string render_gauges(const ScrapeGauges& gauges);

/// One series of one sample, with its HELP and TYPE ("counter", "gauge"), appended to `out` in
/// the Prometheus text format.
void render_series(std::string& out, std::string_view name, std::string_view type,
                   std::string_view help, double value);
/// process_* metrics (CPU, memory, open files, start time) from /proc/self; empty elsewhere.
/// Read at most once per `max_age`; between, the last text is served again. Counting open files
/// lists /proc/self/fd, which takes the kernel's lock of the descriptor table that every socket
/// call takes too: 64 loops fetching /metrics halved players' moves/s and took their p99 from 2 to
/// 45 ms. Thread-safe.
class ProcessMetrics {
  public:
    explicit ProcessMetrics(std::chrono::milliseconds max_age = std::chrono::seconds(1));

    std::string render(std::chrono::steady_clock::time_point now);

  private:
    std::string read() const;

    const std::chrono::milliseconds max_age_;
    const double boot_time_;  ///< seconds since the Unix epoch (/proc/stat btime)
    std::mutex mutex_;
    std::optional<std::chrono::steady_clock::time_point> read_at_;
    std::string text_;
};

}  // namespace arbiter::server::app
