#include "server/app/flag_deadlines.hpp"

namespace arbiter::server::app {

void FlagDeadlines::add(const std::string& game, TimePoint at) {
    remove(game);
    by_game_.emplace(game, at);
    by_time_.emplace(at, game);
}

void FlagDeadlines::remove(const std::string& game) {
    if (auto it = by_game_.find(game); it != by_game_.end()) {
        by_time_.erase({it->second, game});
        by_game_.erase(it);
    }
}

std::vector<std::string> FlagDeadlines::take_due(TimePoint now) {
    std::vector<std::string> due;
    while (!by_time_.empty() && by_time_.begin()->first <= now) {
        auto first = by_time_.extract(by_time_.begin());
        by_game_.erase(first.value().second);
        due.push_back(std::move(first.value().second));
    }
    return due;
}

std::optional<FlagDeadlines::TimePoint> FlagDeadlines::next() const {
    if (by_time_.empty()) {
        return std::nullopt;
    }
    return by_time_.begin()->first;
}

}  // namespace arbiter::server::app
