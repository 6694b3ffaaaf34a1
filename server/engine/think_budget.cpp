#include "server/engine/think_budget.hpp"

#include <algorithm>
#include <cstdint>

namespace arbiter::server::engines {

std::chrono::milliseconds think_budget(std::chrono::milliseconds level_limit,
                                       const app::MoveQuestion& question) {
    if (!question.remaining_ms) {
        return level_limit;
    }
    const std::int64_t own = (*question.remaining_ms)[question.side == rules::Side::first ? 0 : 1];
    // The increment comes after the move: never plan on more than half of what is left now (a
    // 2 s + 10 s clock would otherwise be given 5 s for its first timed move, and flag).
    const std::int64_t from_clock = std::min(own / 30 + question.increment_ms / 2, own / 2);
    return std::chrono::milliseconds(std::clamp<std::int64_t>(
        from_clock, std::min<std::int64_t>(20, level_limit.count()), level_limit.count()));
}

}  // namespace arbiter::server::engines
