#pragma once
/// \file
/// The flag deadlines of the games that left memory with a clock running, so that one timer for
/// all of them can bring each back when its flag falls (RoomRegistry). A pure index: time is a
/// value here.

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace arbiter::server::app {

/// Game id -> flag deadline, ordered by deadline. Not thread-safe (the registry locks it).
class FlagDeadlines {
  public:
    using TimePoint = std::chrono::steady_clock::time_point;

    /// `game` left memory and its flag falls at `at` (replaces an earlier deadline).
    void add(const std::string& game, TimePoint at);
    /// `game` is back in memory (its room arms its own flag timer), or ended: no deadline here.
    void remove(const std::string& game);
    /// The games whose deadline is at or before `now`, earliest first; they leave the index.
    std::vector<std::string> take_due(TimePoint now);
    /// The earliest deadline, if any.
    std::optional<TimePoint> next() const;
    std::size_t size() const noexcept { return by_game_.size(); }

  private:
    std::map<std::string, TimePoint> by_game_;
    std::set<std::pair<TimePoint, std::string>> by_time_;
};

}  // namespace arbiter::server::app
