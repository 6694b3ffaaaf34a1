#pragma once
/// \file
/// When a room tells its members how many are watching: at most once per interval, and then the
/// latest count. Watchers come and go in bursts and in churn (one client watching and unwatching
/// in a loop); a count to every member for each change was 81,000 messages a second to 200
/// watchers, enough to push a player on a slow link over its queue limit. A pure value: the room
/// gives it the time and sends what it says.

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "common/protocol/messages.hpp"

namespace arbiter::server::app {

class SpectatorNotices {
  public:
    using TimePoint = std::chrono::steady_clock::time_point;

    /// `interval`: the least time between two counts sent.
    explicit SpectatorNotices(std::chrono::milliseconds interval) : interval_(interval) {}

    /// The number of watchers changed at `now`: in how long the count is due (zero: as soon as
    /// the requests already queued are done), or nullopt when a count is due already (it will
    /// carry this change too).
    std::optional<std::chrono::milliseconds> changed(TimePoint now) {
        if (due_) {
            return std::nullopt;
        }
        due_ = true;
        if (!last_sent_ || now >= *last_sent_ + interval_) {
            return std::chrono::milliseconds::zero();
        }
        return std::chrono::ceil<std::chrono::milliseconds>(*last_sent_ + interval_ - now);
    }
    /// The count is due at `now` and stands at `count`, naming `watchers`: whether to send it
    /// (not when count and names are those last sent: the changes since cancelled out).
    bool send(TimePoint now, std::uint32_t count,
              const std::vector<protocol::Watcher>& watchers = {}) {
        due_ = false;
        if (count == sent_count_ && watchers == sent_watchers_) {
            return false;
        }
        sent_count_ = count;
        sent_watchers_ = watchers;
        last_sent_ = now;
        return true;
    }

  private:
    std::chrono::milliseconds interval_;
    bool due_ = false;                    ///< a count is due (changed() said when)
    std::optional<TimePoint> last_sent_;  ///< when a count was last sent
    std::uint32_t sent_count_ = 0;        ///< the count last sent (members start from a state's)
    std::vector<protocol::Watcher> sent_watchers_;  ///< the names last sent
};

}  // namespace arbiter::server::app
