#pragma once
/// \file
/// The decisions of a node's lease (issue 43) that need no database, with time as a value:
/// whether a node id is acceptable, whether lease timings are safe, until when a node may write
/// after the last heartbeat the database granted, when to send the next one, and what to do when
/// one fails. postgres_lease.hpp is the database side and says what a lease is.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "common/core/expected.hpp"

namespace arbiter::server::storage {

/// The clock a node measures its lease by: steady, never the wall clock, which may jump.
using LeaseClock = std::chrono::steady_clock;

/// How long a lease lasts and how often it is renewed.
struct LeaseTiming {
    /// How long the database extends the lease by at each heartbeat (its clock).
    std::chrono::milliseconds ttl{3000};
    /// Time between two heartbeats.
    std::chrono::milliseconds heartbeat_interval{1000};
    /// Taken off the local end of the lease: the node stops writing this much before the
    /// database would let another node adopt its games (clock rate drift, a slow write).
    std::chrono::milliseconds margin{250};
};

/// Why a heartbeat (or a join, or a leave) did not hold the lease.
enum class LeaseFailure {
    unreachable,  ///< the database did not answer: the lease may still hold, or not
    expired,      ///< the lease ran out (by the database's clock) before the heartbeat came
    taken,        ///< another process joined under this node id since (a newer incarnation)
};

/// A lease operation that failed, and why.
struct LeaseError {
    LeaseFailure failure = LeaseFailure::unreachable;
    std::string message;
};

/// What a node does after a heartbeat failed.
enum class LeaseAction {
    keep_writing,     ///< unreachable, but the lease surely holds still: try again
    stop_writing,     ///< unreachable past the lease's local end: stop, keep trying
    drop_and_rejoin,  ///< expired: drop every game (they are, or will be, adopted), join again
    stop_for_good,    ///< taken: another process is this node now; this one must not rejoin
};

/// A node id follows common/core/cluster_id.hpp (1..64 characters of [A-Za-z0-9_-]): what the
/// cluster's envelopes carry and the nodes table's CHECK allows. The error says why not.
Expected<void, std::string> check_node_id(std::string_view node_id);

/// Safe timings: a positive interval, a margin of at least 0 and below the ttl, and a ttl that
/// outlasts two intervals and the margin (one lost heartbeat must not lose the lease).
Expected<void, std::string> check_lease_timing(const LeaseTiming& timing);

/// The last local moment the node may write under the grant of a heartbeat (or join) it SENT
/// at `sent_at`. The database set the lease's end to its own time when it ran the statement plus
/// the ttl; that time came after the send, so `sent_at + ttl` is never later than the true end,
/// whatever the two clocks read. Only the clocks' rates can differ: the margin covers it.
LeaseClock::time_point writable_until(LeaseClock::time_point sent_at, const LeaseTiming& timing);

/// Whether the node may still write at `now`, the last grant's heartbeat having been sent at
/// `granted_sent_at` (nullopt: the node holds no lease).
bool may_write(std::optional<LeaseClock::time_point> granted_sent_at, LeaseClock::time_point now,
               const LeaseTiming& timing);

/// When to send the next heartbeat, the last one having been sent at `last_sent_at`.
LeaseClock::time_point next_heartbeat_at(LeaseClock::time_point last_sent_at,
                                         const LeaseTiming& timing);

/// What to do at `now` after a heartbeat failed with `failure`, the last grant's heartbeat having
/// been sent at `granted_sent_at`.
LeaseAction action_after(LeaseFailure failure,
                         std::optional<LeaseClock::time_point> granted_sent_at,
                         LeaseClock::time_point now, const LeaseTiming& timing);

}  // namespace arbiter::server::storage
