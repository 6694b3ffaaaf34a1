#include "server/storage/postgres_lease.hpp"

#include <utility>

#include "server/storage/postgres_migrations.hpp"

namespace arbiter::server::storage {

namespace {

// Every time is the database's: one clock_timestamp() per statement, read once (`t.now`), so
// that the heartbeat's time, the check and the new end agree.
constexpr const char* kJoinSql =
    "INSERT INTO nodes AS n (node_id, incarnation, started_at, heartbeat_at, lease_expires_at) "
    "SELECT $1, 1, t.now, t.now, t.now + $2::double precision * interval '1 millisecond' "
    "FROM (SELECT clock_timestamp() AS now) AS t "
    "ON CONFLICT (node_id) DO UPDATE SET incarnation = n.incarnation + 1, "
    "started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at, "
    "lease_expires_at = excluded.lease_expires_at, left_at = NULL "
    "RETURNING incarnation, (extract(epoch FROM lease_expires_at) * 1000)::bigint";
// The older incarnation's games: nobody heartbeats for them any more.
constexpr const char* kReleaseOlderIncarnationSql =
    "UPDATE games SET owner_node = NULL WHERE owner_node = $1";
constexpr const char* kHeartbeatSql =
    "UPDATE nodes SET heartbeat_at = t.now, "
    "lease_expires_at = t.now + $3::double precision * interval '1 millisecond' "
    "FROM (SELECT clock_timestamp() AS now) AS t "
    "WHERE node_id = $1 AND incarnation = $2 AND lease_expires_at > t.now "
    "RETURNING (extract(epoch FROM lease_expires_at) * 1000)::bigint";
constexpr const char* kLeaveSql =
    "UPDATE nodes SET lease_expires_at = t.now, left_at = t.now "
    "FROM (SELECT clock_timestamp() AS now) AS t "
    "WHERE node_id = $1 AND incarnation = $2 AND lease_expires_at > t.now";
constexpr const char* kLeaseStateSql =
    "SELECT incarnation, lease_expires_at > clock_timestamp() FROM nodes WHERE node_id = $1";

LeaseError unreachable(const std::string& doing, const StorageError& error) {
    return LeaseError{LeaseFailure::unreachable, doing + ": " + error.message};
}

}  // namespace

Expected<std::unique_ptr<PostgresLease>, StorageError> PostgresLease::open(
    const std::string& conninfo, LeaseOptions options) {
    if (auto id = check_node_id(options.node_id); !id) {
        return unexpected(StorageError{id.error()});
    }
    if (auto timing = check_lease_timing(options.timing); !timing) {
        return unexpected(StorageError{timing.error()});
    }
    auto connection = pg::Connection::open(conninfo);
    if (!connection) {
        return unexpected(std::move(connection).error());
    }
    if (auto migrated = migrate_postgres(*connection, postgres_migrations()); !migrated) {
        return unexpected(migrated.error());
    }
    return std::unique_ptr<PostgresLease>(
        new PostgresLease(std::move(options), std::move(connection).value()));
}

PostgresLease::PostgresLease(LeaseOptions options, pg::Connection connection)
    : options_(std::move(options)), connection_(std::move(connection)) {}

std::uint64_t PostgresLease::incarnation() const {
    std::lock_guard lock(mutex_);
    return incarnation_;
}

bool PostgresLease::may_write(LeaseClock::time_point now) const {
    std::lock_guard lock(mutex_);
    return storage::may_write(granted_sent_at_, now, options_.timing);
}

LeaseAction PostgresLease::action_after(const LeaseError& error, LeaseClock::time_point now) const {
    std::lock_guard lock(mutex_);
    return storage::action_after(error.failure, granted_sent_at_, now, options_.timing);
}

Expected<LeaseGrant, LeaseError> PostgresLease::join() {
    std::lock_guard lock(mutex_);
    granted_sent_at_.reset();
    if (auto up = reconnect(); !up) {
        return unexpected(up.error());
    }
    const auto sent_at = LeaseClock::now();
    auto transaction = pg::Transaction::begin(connection_);
    if (!transaction) {
        return unexpected(unreachable("joining", transaction.error()));
    }
    auto joined = connection_.query(
        kJoinSql, pg::Params().text(options_.node_id).integer(options_.timing.ttl.count()));
    if (!joined) {
        return unexpected(unreachable("joining", joined.error()));
    }
    auto released =
        connection_.query(kReleaseOlderIncarnationSql, pg::Params().text(options_.node_id));
    if (!released) {
        return unexpected(unreachable("releasing the older incarnation's games", released.error()));
    }
    if (auto committed = transaction->commit(); !committed) {
        return unexpected(unreachable("committing the join", committed.error()));
    }
    incarnation_ = static_cast<std::uint64_t>(joined->integer(0, 0));
    granted_sent_at_ = sent_at;
    return LeaseGrant{incarnation_, joined->integer(0, 1), sent_at};
}

Expected<LeaseGrant, LeaseError> PostgresLease::heartbeat() {
    std::lock_guard lock(mutex_);
    if (incarnation_ == 0) {
        return unexpected(LeaseError{LeaseFailure::expired, "the node has not joined"});
    }
    if (auto up = reconnect(); !up) {
        return unexpected(up.error());
    }
    const auto sent_at = LeaseClock::now();
    auto renewed =
        connection_.query(kHeartbeatSql, pg::Params()
                                             .text(options_.node_id)
                                             .integer(static_cast<std::int64_t>(incarnation_))
                                             .integer(options_.timing.ttl.count()));
    if (!renewed) {
        return unexpected(unreachable("renewing the lease", renewed.error()));
    }
    if (renewed->rows() == 0) {
        return unexpected(lost_lease("renewing the lease"));
    }
    granted_sent_at_ = sent_at;
    return LeaseGrant{incarnation_, renewed->integer(0, 0), sent_at};
}

Expected<void, LeaseError> PostgresLease::leave() {
    std::lock_guard lock(mutex_);
    if (incarnation_ == 0) {
        return unexpected(LeaseError{LeaseFailure::expired, "the node has not joined"});
    }
    if (auto up = reconnect(); !up) {
        return unexpected(up.error());
    }
    // From here on the node writes nothing, whatever the database answers.
    granted_sent_at_.reset();
    auto left = connection_.query(
        kLeaveSql,
        pg::Params().text(options_.node_id).integer(static_cast<std::int64_t>(incarnation_)));
    if (!left) {
        return unexpected(unreachable("leaving", left.error()));
    }
    if (left->changed() == 0) {
        return unexpected(lost_lease("leaving"));
    }
    return {};
}

Expected<void, LeaseError> PostgresLease::reconnect() {
    if (connection_.connected()) {
        return {};
    }
    if (auto reset = connection_.reset(); !reset) {
        return unexpected(unreachable("reaching PostgreSQL", reset.error()));
    }
    return {};
}

LeaseError PostgresLease::lost_lease(const std::string& doing) {
    granted_sent_at_.reset();
    auto state = connection_.query(kLeaseStateSql, pg::Params().text(options_.node_id));
    if (!state) {
        return unreachable(doing + " (the lease is lost)", state.error());
    }
    const std::string node = "node " + options_.node_id;
    if (state->rows() == 0) {
        return LeaseError{LeaseFailure::expired, doing + ": " + node + " has no row any more"};
    }
    const auto holder = static_cast<std::uint64_t>(state->integer(0, 0));
    if (holder != incarnation_) {
        return LeaseError{LeaseFailure::taken, doing + ": " + node + " was joined again (" +
                                                   "incarnation " + std::to_string(holder) +
                                                   ", this process is " +
                                                   std::to_string(incarnation_) + ")"};
    }
    return LeaseError{LeaseFailure::expired,
                      doing + ": the lease of " + node + " had already expired"};
}

}  // namespace arbiter::server::storage
