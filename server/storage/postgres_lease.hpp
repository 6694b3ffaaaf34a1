#pragma once
/// \file
/// A cluster node's lease on PostgreSQL (issue 43), and the design of game ownership it serves.
///
/// **A lease** is a node's right to own games. It is a row of `nodes` (schema/postgres/0002):
/// the node id, its incarnation, and `lease_expires_at`. A node joins (the row is made, or taken
/// over with the next incarnation), then sends a heartbeat every interval, which moves the end
/// to the database's now + ttl, and leaves at a graceful stop (the end becomes now). A heartbeat
/// that finds the lease already over, or the row under a newer incarnation, fails: the node
/// stops writing (lease_rules.hpp, action_after, says what it does next).
///
/// **The database's clock decides**, never a node's: every comparison and every new end is
/// clock_timestamp() on the server. Nodes' wall clocks may disagree by seconds, and one that
/// jumps would make its lease look longer than it is; the one database has one clock. Locally a
/// node only measures intervals on its steady clock from the moment it SENT a heartbeat that was
/// granted (lease_rules.hpp, writable_until), which can only err on the early side.
///
/// **Ownership and fencing.** A game row has `owner_node` and `owner_epoch`. A node that creates
/// a game owns it at epoch 1. When a node's lease expires (by the database's clock), or a node
/// hands its games over (`release_games`), any other node with a live lease may adopt them:
/// under `FOR NO KEY UPDATE SKIP LOCKED`, owner_node becomes the adopter and owner_epoch goes up by
/// one (a compare-and-set on the epoch read), and the adopter rebuilds the game from its stored
/// moves. Every later write of the game, by any node, checks `owner_node = me AND owner_epoch =
/// the epoch I hold` IN THE SAME STATEMENT that changes the game's row. So a node that lost a
/// game, because it froze, was cut off, or is an older process under the same id, cannot commit
/// a change to it, and therefore cannot acknowledge one: its write fails `fenced` and changes
/// nothing. The epoch, not the lease, is the fence: a lease says when a game MAY be taken, the
/// epoch makes sure that once it is taken the old owner's writes fail, whatever its own clock
/// and heartbeats believe. A node's writes between its lease's end and the adoption still
/// commit, and the adopter's rebuild, in the same transaction as the adoption, reads them.
///
/// Acquiring games (creating one, adopting) also checks the node's live lease under its
/// incarnation, holding the `nodes` row FOR SHARE to the commit: a join under the same id (which
/// releases every game of the older incarnation, in its transaction) waits for it, and an older
/// process's acquisition after that join fails. No game is left owned by a process nobody
/// heartbeats for.
///
/// Epochs never decrease (a trigger refuses it): a fencing token that went back would let an old
/// owner write again.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "common/core/expected.hpp"
#include "server/storage/lease_rules.hpp"
#include "server/storage/pg.hpp"
#include "server/storage/stored_game.hpp"

namespace arbiter::server::storage {

/// Options of PostgresLease::open.
struct LeaseOptions {
    std::string node_id;  ///< check_node_id()
    LeaseTiming timing;   ///< check_lease_timing()
};

/// A lease the database granted (a join or a heartbeat).
struct LeaseGrant {
    std::uint64_t incarnation = 0;
    std::int64_t expires_at_ms = 0;       ///< the lease's end, Unix ms by the DATABASE's clock
    LeaseClock::time_point sent_at = {};  ///< when this node sent the statement (its clock)
};

/// One node's lease, on a connection of its own. Thread-safe: a heartbeat thread and a stopping
/// thread may call it at once (one statement at a time).
class PostgresLease {
  public:
    /// Checks the options, connects to `conninfo` and brings the schema up to date (the nodes
    /// table). Joins nothing yet.
    static Expected<std::unique_ptr<PostgresLease>, StorageError> open(const std::string& conninfo,
                                                                       LeaseOptions options);

    PostgresLease(const PostgresLease&) = delete;
    PostgresLease& operator=(const PostgresLease&) = delete;
    ~PostgresLease() = default;

    /// Registers the node, or takes its row over with the next incarnation (a restart, or a
    /// rejoin after the lease was lost), and releases, in the same transaction, every game the
    /// row's older incarnation still owned: any node may adopt them at once. The older
    /// process, if it still runs, fails its next heartbeat as `taken`.
    Expected<LeaseGrant, LeaseError> join();
    /// Moves the lease's end to the database's now + ttl. Fails `expired` when it had already
    /// ended (by the database's clock), `taken` when a newer incarnation holds the row,
    /// `unreachable` when the database did not answer; after expired or taken the node holds no
    /// lease until it joins again.
    Expected<LeaseGrant, LeaseError> heartbeat();
    /// A graceful stop: the lease ends now, so other nodes may adopt this node's games at once.
    /// Fails as heartbeat() does when the lease was not held; the node holds none after it.
    Expected<void, LeaseError> leave();

    const std::string& node_id() const noexcept { return options_.node_id; }
    const LeaseTiming& timing() const noexcept { return options_.timing; }
    /// The incarnation of the last join; 0 before the first.
    std::uint64_t incarnation() const;
    /// Whether the node may still write at `now` (lease_rules.hpp, may_write).
    bool may_write(LeaseClock::time_point now) const;
    /// What to do at `now` after `error` (lease_rules.hpp, action_after).
    LeaseAction action_after(const LeaseError& error, LeaseClock::time_point now) const;

  private:
    PostgresLease(LeaseOptions options, pg::Connection connection);

    /// The connection up again if it dropped; an `unreachable` error if it cannot be.
    Expected<void, LeaseError> reconnect();
    /// Why a statement that needed the lease held (`incarnation_`, unexpired) changed no row.
    LeaseError lost_lease(const std::string& doing);

    const LeaseOptions options_;
    mutable std::mutex mutex_;
    pg::Connection connection_;
    std::uint64_t incarnation_ = 0;
    std::optional<LeaseClock::time_point> granted_sent_at_;  ///< nullopt: no lease held
};

}  // namespace arbiter::server::storage
