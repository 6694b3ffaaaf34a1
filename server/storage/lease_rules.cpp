#include "server/storage/lease_rules.hpp"

#include "common/core/cluster_id.hpp"

namespace arbiter::server::storage {

Expected<void, std::string> check_node_id(std::string_view node_id) {
    if (node_id.empty()) {
        return unexpected(std::string("a node id must not be empty"));
    }
    if (node_id.size() > kMaxClusterIdBytes) {
        return unexpected("a node id has at most " + std::to_string(kMaxClusterIdBytes) +
                          " characters, not " + std::to_string(node_id.size()));
    }
    for (const char c : node_id) {
        if (!is_cluster_id_character(c)) {
            return unexpected("a node id holds only letters, digits, '_' and '-': '" +
                              std::string(node_id) + "'");
        }
    }
    return {};
}

Expected<void, std::string> check_lease_timing(const LeaseTiming& timing) {
    using std::chrono::milliseconds;
    const auto ms = [](milliseconds value) { return std::to_string(value.count()) + " ms"; };
    if (timing.heartbeat_interval <= milliseconds{0}) {
        return unexpected("the heartbeat interval must be positive, not " +
                          ms(timing.heartbeat_interval));
    }
    if (timing.margin < milliseconds{0} || timing.margin >= timing.ttl) {
        return unexpected("the lease margin must be at least 0 and below the lease (" +
                          ms(timing.ttl) + "), not " + ms(timing.margin));
    }
    if (timing.ttl < 2 * timing.heartbeat_interval + timing.margin) {
        return unexpected("the lease (" + ms(timing.ttl) +
                          ") must last at least two heartbeat intervals (" +
                          ms(timing.heartbeat_interval) + " each) and the margin (" +
                          ms(timing.margin) + "), so that one lost heartbeat does not lose it");
    }
    return {};
}

LeaseClock::time_point writable_until(LeaseClock::time_point sent_at, const LeaseTiming& timing) {
    return sent_at + timing.ttl - timing.margin;
}

bool may_write(std::optional<LeaseClock::time_point> granted_sent_at, LeaseClock::time_point now,
               const LeaseTiming& timing) {
    return granted_sent_at && now < writable_until(*granted_sent_at, timing);
}

LeaseClock::time_point next_heartbeat_at(LeaseClock::time_point last_sent_at,
                                         const LeaseTiming& timing) {
    return last_sent_at + timing.heartbeat_interval;
}

LeaseAction action_after(LeaseFailure failure,
                         std::optional<LeaseClock::time_point> granted_sent_at,
                         LeaseClock::time_point now, const LeaseTiming& timing) {
    switch (failure) {
        case LeaseFailure::unreachable:
            return may_write(granted_sent_at, now, timing) ? LeaseAction::keep_writing
                                                           : LeaseAction::stop_writing;
        case LeaseFailure::expired:
            return LeaseAction::drop_and_rejoin;
        case LeaseFailure::taken:
            return LeaseAction::stop_for_good;
    }
    return LeaseAction::stop_writing;
}

}  // namespace arbiter::server::storage
