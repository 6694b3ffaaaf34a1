#include "bench/load/stats.hpp"

#include <algorithm>
#include <cmath>

namespace arbiter::bench::load {

double Latencies::quantile_ms(double q) {
    if (samples_.empty()) {
        return 0.0;
    }
    std::sort(samples_.begin(), samples_.end());
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(samples_.size())));
    const std::size_t index = std::min(samples_.size() - 1, rank == 0 ? 0 : rank - 1);
    return samples_[index] / 1000.0;
}

void Stats::merge(const Stats& other) {
    round_trips += other.round_trips;
    games_started += other.games_started;
    games_ended += other.games_ended;
    to_mover.merge(other.to_mover);
    to_opponent.merge(other.to_opponent);
    to_spectator.merge(other.to_spectator);
    to_spectator_other_node.merge(other.to_spectator_other_node);
    if (to_mover_by_second.size() < other.to_mover_by_second.size()) {
        to_mover_by_second.resize(other.to_mover_by_second.size());
    }
    for (std::size_t second = 0; second < other.to_mover_by_second.size(); ++second) {
        to_mover_by_second[second].merge(other.to_mover_by_second[second]);
    }
    for (const auto& [code, count] : other.errors) {
        errors[code] += count;
    }
    for (const auto& [code, count] : other.closes) {
        closes[code] += count;
    }
    reads_sent += other.reads_sent;
    reads_answered += other.reads_answered;
    for (const auto& [code, count] : other.read_errors) {
        read_errors[code] += count;
    }
}

}  // namespace arbiter::bench::load
