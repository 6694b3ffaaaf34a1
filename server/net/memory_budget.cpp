#include "server/net/memory_budget.hpp"

#include <algorithm>

namespace arbiter::server::net {

std::size_t default_outgoing_budget(std::uint64_t physical_bytes) noexcept {
    constexpr std::uint64_t kFloor = 16ULL << 20;
    constexpr std::uint64_t kCeiling = 2ULL << 30;
    return static_cast<std::size_t>(std::clamp(physical_bytes / 8, kFloor, kCeiling));
}

std::vector<std::uint64_t> connections_to_shed(std::span<const QueueHolder> holders,
                                               std::size_t total_bytes, std::size_t low_water) {
    std::vector<std::uint64_t> chosen;
    if (total_bytes <= low_water) {
        return chosen;
    }
    std::size_t to_free = total_bytes - low_water;
    std::vector<const QueueHolder*> open;
    open.reserve(holders.size());
    for (const auto& holder : holders) {
        if (holder.closing) {
            to_free -= std::min(to_free, holder.queued_bytes);
        } else if (holder.queued_bytes > 0) {
            open.push_back(&holder);
        }
    }
    // Players last: a spectator or a lobby follower closed reconnects and misses nothing it
    // cannot ask for again, where a player closed loses its presence and opens a claim.
    std::sort(open.begin(), open.end(), [](const QueueHolder* a, const QueueHolder* b) {
        if (a->player != b->player) {
            return !a->player;
        }
        if (a->queued_bytes != b->queued_bytes) {
            return a->queued_bytes > b->queued_bytes;
        }
        return a->id < b->id;
    });
    for (const auto* holder : open) {
        if (to_free == 0) {
            break;
        }
        chosen.push_back(holder->id);
        to_free -= std::min(to_free, holder->queued_bytes);
    }
    return chosen;
}

}  // namespace arbiter::server::net
