#pragma once
/// \file
/// The games a cluster node owns on PostgreSQL, and how it comes to own them (issue 43;
/// postgres_lease.hpp has the design): the epoch it holds of each game, adoption of the games
/// of nodes whose lease expired, and the handover at a graceful stop. PostgresRepository, opened
/// with a NodeIdentity, holds one; the node id and the types below are its public face.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/core/expected.hpp"
#include "server/storage/intents.hpp"
#include "server/storage/pg.hpp"
#include "server/storage/postgres_intents.hpp"
#include "server/storage/stored_game.hpp"

namespace arbiter::server::storage {

/// Who a PostgresRepository writes as, in a cluster: the node id and the incarnation its lease
/// was granted under (PostgresLease::join).
struct NodeIdentity {
    std::string node_id;
    std::uint64_t incarnation = 0;
    /// PostgreSQL ends a transaction of this node's that stays idle this long. A frozen node's
    /// open transaction would otherwise keep its games' rows locked, and adoption (which skips
    /// locked rows) would pass them by after its lease ended. The lease's ttl is right.
    std::chrono::milliseconds stalled_transaction_timeout{3000};
};

/// Whether `identity` can write: a valid node id, an incarnation (1 or more), a positive
/// timeout. The error says why not.
Expected<void, StorageError> check_node_identity(const NodeIdentity& identity);

/// Who owns a stored game, as the database says now.
struct GameOwner {
    std::string node;  ///< "" when no node owns it (a single node's game, or handed over)
    std::uint64_t epoch = 0;
    /// The owner holds a live lease now (the database's clock); false with no owner.
    bool live = false;
};

/// A node whose lease is live now (the database's clock), under its current incarnation.
struct LiveNode {
    std::string node;
    std::uint64_t incarnation = 0;
    friend bool operator==(const LiveNode&, const LiveNode&) = default;
};

/// A game this node adopted: as stored when it was adopted, to rebuild its room from, and the
/// epoch that fences its writes now.
struct AdoptedGame {
    StoredGame game;
    std::uint64_t epoch = 0;
};

namespace detail {

/// The epoch of each game this node owns, and the statements that change ownership, on a
/// connection of their own. Thread-safe.
class GameOwnership {
  public:
    /// Checks the identity and connects (the schema is the repository's to migrate).
    static Expected<std::unique_ptr<GameOwnership>, StorageError> open(const std::string& conninfo,
                                                                       NodeIdentity identity);

    const std::string& node_id() const noexcept { return identity_.node_id; }
    /// The incarnation acquisitions are made under now.
    std::uint64_t incarnation() const;
    /// The session settings every connection that writes games as this node needs.
    std::string session_settings() const;

    /// The fence `intent` is written under: CreateGame the lease's incarnation, any other
    /// intent the epoch held of its game; nullopt for PruneAborted (no game). A `fenced` error,
    /// asking nothing of the database, when this node holds no epoch of the game.
    Expected<std::optional<OwnerFence>, StorageError> fence_for(const GameIntent& intent) const;
    /// `intent`, written under `fence`, applied: a game it created is owned at epoch 1 (unless
    /// the node joined again meanwhile).
    void applied(const GameIntent& intent, const OwnerFence& fence);
    /// This node holds `game` no more: a create whose transaction did not commit, or a game that
    /// left memory (its next write would have to adopt it again).
    void forget(const std::string& game);
    /// The epoch this node holds of `game`, if it owns it.
    std::optional<std::uint64_t> epoch_of(const std::string& game) const;
    /// How many games this node holds an epoch of.
    std::size_t owned() const;
    /// The owner the games table names for `game`, and whether its lease is live; nullopt when
    /// the game is not stored.
    Expected<std::optional<GameOwner>, StorageError> owner_of(const std::string& game);
    /// Every node with a live lease now, this one included if its lease is.
    Expected<std::vector<LiveNode>, StorageError> live_nodes();

    /// Adopts at most `limit` unfinished games, oldest first, that have no owner or whose
    /// owner's lease expired, with each one's stored state.
    Expected<std::vector<AdoptedGame>, StorageError> adopt_expired(std::size_t limit);
    /// Adopts `game`, whatever its status, if it has no owner or its owner's lease expired;
    /// nullopt when it is not stored, is owned by a live node, or another node is adopting it.
    Expected<std::optional<AdoptedGame>, StorageError> adopt(const std::string& game);
    /// The start of a handover: every game is forgotten (writes of them fail `fenced` from now
    /// on, before the database), and the node acquires nothing more (creates and adoptions fail
    /// `fenced`) until it rejoins.
    void hand_over();
    /// In the database: every game owned by this node id gets no owner. How many.
    Expected<std::size_t, StorageError> release_all();
    /// The node joined again under `incarnation` (its lease was lost, or it handed over): it owns
    /// nothing now, and acquires under `incarnation`.
    void rejoin(std::uint64_t incarnation);

  private:
    GameOwnership(NodeIdentity identity, pg::Connection connection);

    /// Runs the adopting UPDATE `sql` ($1 this node) in one transaction that first finds this
    /// node's lease live and then reads each adopted game.
    Expected<std::vector<AdoptedGame>, StorageError> adopt_where(const std::string& sql,
                                                                 const pg::Params& params);
    Expected<void, StorageError> ready_connection();
    /// The `fenced` error of an acquisition during a handover: "it `what` until it joins again".
    StorageError handing_over_error(const std::string& what) const;

    const NodeIdentity identity_;  ///< its incarnation as opened: incarnation_ is the current one

    mutable std::mutex epochs_mutex_;
    std::uint64_t incarnation_;
    bool handing_over_ = false;
    std::unordered_map<std::string, std::uint64_t> epochs_;

    std::mutex connection_mutex_;
    pg::Connection connection_;
    bool connection_ready_ = false;
};

}  // namespace detail
}  // namespace arbiter::server::storage
