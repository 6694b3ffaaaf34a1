#pragma once
/// \file
/// Counters the server keeps for /metrics (Prometheus text format). Lock-free: any thread may
/// count. Gauges that other components own (connections, database size) are read at scrape time.

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

#include "common/protocol/messages.hpp"

namespace arbiter::server::app {

class Metrics {
  public:
    static constexpr std::size_t kErrorCodes =
        static_cast<std::size_t>(protocol::ErrorCode::internal) + 1;

    void move_accepted() noexcept { moves_accepted_.fetch_add(1, std::memory_order_relaxed); }
    void refused(protocol::ErrorCode code) noexcept {
        refused_[static_cast<std::size_t>(code)].fetch_add(1, std::memory_order_relaxed);
    }
    void game_created() noexcept { games_created_.fetch_add(1, std::memory_order_relaxed); }
    void game_ended() noexcept { games_ended_.fetch_add(1, std::memory_order_relaxed); }
    void rate_limited() noexcept { rate_limited_.fetch_add(1, std::memory_order_relaxed); }
    /// Time from a move's arrival to its commit, in microseconds.
    void commit_latency(std::int64_t micros) noexcept;

    std::uint64_t moves_accepted() const noexcept { return moves_accepted_.load(); }
    std::uint64_t refused_count(protocol::ErrorCode code) const noexcept {
        return refused_[static_cast<std::size_t>(code)].load();
    }

    /// The counters and the commit-latency histogram in Prometheus text format.
    std::string render() const;

  private:
    static constexpr std::array<std::int64_t, 10> kLatencyBucketsUs = {
        250, 500, 1000, 2000, 5000, 10000, 25000, 50000, 100000, 250000};

    std::atomic<std::uint64_t> moves_accepted_{0};
    std::array<std::atomic<std::uint64_t>, kErrorCodes> refused_{};
    std::atomic<std::uint64_t> games_created_{0};
    std::atomic<std::uint64_t> games_ended_{0};
    std::atomic<std::uint64_t> rate_limited_{0};
    std::array<std::atomic<std::uint64_t>, kLatencyBucketsUs.size() + 1> latency_buckets_{};
    std::atomic<std::uint64_t> latency_sum_us_{0};
    std::atomic<std::uint64_t> latency_count_{0};
};

}  // namespace arbiter::server::app
