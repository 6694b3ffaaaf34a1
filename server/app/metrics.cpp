#include "server/app/metrics.hpp"

#include <sstream>

namespace arbiter::server::app {

void Metrics::commit_latency(std::int64_t micros) noexcept {
    std::size_t bucket = 0;
    while (bucket < kLatencyBucketsUs.size() && micros > kLatencyBucketsUs[bucket]) {
        ++bucket;
    }
    latency_buckets_[bucket].fetch_add(1, std::memory_order_relaxed);
    latency_sum_us_.fetch_add(static_cast<std::uint64_t>(micros < 0 ? 0 : micros),
                              std::memory_order_relaxed);
    latency_count_.fetch_add(1, std::memory_order_relaxed);
}

std::string Metrics::render() const {
    std::ostringstream out;
    out << "# HELP arbiter_moves_accepted_total Moves committed and acknowledged.\n"
        << "# TYPE arbiter_moves_accepted_total counter\n"
        << "arbiter_moves_accepted_total " << moves_accepted_.load() << "\n"
        << "# HELP arbiter_requests_refused_total Requests answered with an error, by code.\n"
        << "# TYPE arbiter_requests_refused_total counter\n";
    for (std::size_t i = 0; i < kErrorCodes; ++i) {
        out << "arbiter_requests_refused_total{code=\""
            << protocol::to_string(static_cast<protocol::ErrorCode>(i)) << "\"} "
            << refused_[i].load() << "\n";
    }
    out << "# TYPE arbiter_games_created_total counter\n"
        << "arbiter_games_created_total " << games_created_.load() << "\n"
        << "# TYPE arbiter_games_ended_total counter\n"
        << "arbiter_games_ended_total " << games_ended_.load() << "\n"
        << "# TYPE arbiter_rate_limited_total counter\n"
        << "arbiter_rate_limited_total " << rate_limited_.load() << "\n"
        << "# HELP arbiter_move_commit_seconds Time from a move's arrival to its commit.\n"
        << "# TYPE arbiter_move_commit_seconds histogram\n";
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < kLatencyBucketsUs.size(); ++i) {
        cumulative += latency_buckets_[i].load();
        out << "arbiter_move_commit_seconds_bucket{le=\""
            << static_cast<double>(kLatencyBucketsUs[i]) / 1e6 << "\"} " << cumulative << "\n";
    }
    cumulative += latency_buckets_.back().load();
    out << "arbiter_move_commit_seconds_bucket{le=\"+Inf\"} " << cumulative << "\n"
        << "arbiter_move_commit_seconds_sum " << static_cast<double>(latency_sum_us_.load()) / 1e6
        << "\n"
        << "arbiter_move_commit_seconds_count " << latency_count_.load() << "\n";
    return out.str();
}

}  // namespace arbiter::server::app
