#pragma once
// What one event loop of arbiter-load counted; merged across loops for the report.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace arbiter::bench::load {

/// Latency samples in microseconds.
class Latencies {
  public:
    void add(std::int64_t micros) { samples_.push_back(static_cast<std::uint32_t>(micros)); }
    void merge(const Latencies& other) {
        samples_.insert(samples_.end(), other.samples_.begin(), other.samples_.end());
    }
    std::size_t size() const { return samples_.size(); }
    /// The q-quantile (0 < q <= 1) in milliseconds by the nearest-rank method; 0 when empty.
    /// Sorts the samples.
    double quantile_ms(double q);

  private:
    std::vector<std::uint32_t> samples_;
};

/// Counters of one loop (a loop's thread writes them; the main thread reads them after the run).
struct Stats {
    std::uint64_t round_trips = 0;    ///< moves acknowledged to their mover (echo: echoes)
    std::uint64_t games_started = 0;  ///< `created` received
    std::uint64_t games_ended = 0;    ///< `ended` received by the creator
    Latencies to_mover;               ///< move sent -> the mover's `moved` (echo: the echo)
    Latencies to_opponent;            ///< move sent -> the opponent's `moved`
    /// move sent -> a spectator's `moved`; with --by-node only spectators on the creator's node
    Latencies to_spectator;
    /// move sent -> the `moved` of a spectator on another node than the game's creator (--by-node)
    Latencies to_spectator_other_node;
    /// to_mover again, one entry per second of the measured window (with --timeline): shows
    /// whether a tail is a transient (set-up, slow consumers being closed) or steady.
    std::vector<Latencies> to_mover_by_second;
    std::map<std::string, std::uint64_t> errors;  ///< `error` messages by code
    std::map<std::string, std::uint64_t> closes;  ///< closed connections by close code / reason
    std::uint64_t reads_sent = 0;                 ///< readers' requests (measured window)
    std::uint64_t reads_answered = 0;             ///< ... answered with the game
    std::map<std::string, std::uint64_t> read_errors;  ///< ... refused, by error code

    void merge(const Stats& other);
};

}  // namespace arbiter::bench::load
