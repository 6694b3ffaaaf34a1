#pragma once
/// \file
/// ClusterNode: a server running as one node of a cluster on PostgreSQL (issue 43; README.md,
/// "Several nodes"). It holds the node's lease and keeps it by heartbeats, adopts the games of
/// nodes whose lease ended, and decides, for a game not in memory, whether this node serves it
/// (it owns it, or adopts it because no live node does) or forwards to the node that owns it
/// (GameClaims, through the ClusterLink). postgres_lease.hpp has the ownership design.
///
/// Two threads of its own: the heartbeat (never held up by anything else, so that a busy sweep
/// cannot cost the lease) and the sweeper. When a heartbeat finds the lease lost, every room
/// leaves memory at once and its members are closed (1012): another node adopts the games, and
/// the fencing epoch makes sure this one can acknowledge nothing of them any more. Then the node
/// joins again and serves on. When another process took the node id over, this one stops.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "common/core/expected.hpp"
#include "server/app/cluster_link.hpp"
#include "server/app/room_registry.hpp"
#include "server/bus/bus.hpp"
#include "server/storage/lease_rules.hpp"
#include "server/storage/postgres_lease.hpp"
#include "server/storage/postgres_repository.hpp"

namespace arbiter::server::app {

class Hub;

/// A node's settings (config.hpp's ClusterConfig, less the bus).
struct ClusterNodeOptions {
    std::string node_id;
    storage::LeaseTiming lease;
    std::chrono::milliseconds sweep_interval{1000};
    /// Games adopted at most in one sweep (the next sweep follows at once when it took as many).
    std::size_t adopt_batch = 64;
};

/// What /healthz and /metrics show of the node.
struct ClusterNodeStatus {
    bool lease_held = false;
    bool stopped_for_good = false;  ///< another process took the node id over
    std::uint64_t incarnation = 0;
    std::uint64_t heartbeats = 0;
    std::uint64_t heartbeat_failures = 0;
    std::uint64_t rejoins = 0;        ///< times the lease was lost and joined again
    std::uint64_t adopted = 0;        ///< games adopted by sweeps and by requests
    std::uint64_t rooms_evicted = 0;  ///< rooms dropped when the lease was lost
    std::uint64_t sweeps = 0;
    std::uint64_t sweep_failures = 0;
    std::size_t live_nodes = 0;  ///< as the last sweep saw them
};

/// The cluster's series for /metrics: the lease, ownership (adoptions, evictions), forwarding
/// between nodes and the bus.
std::string render_cluster_metrics(const ClusterNodeStatus& node, const ClusterLinkCounters& link,
                                   const bus::BusCounters& bus);

/// One node's lease, sweeper and claims. See the file comment.
class ClusterNode final : public GameClaims {
  public:
    /// Opens the lease's connection and joins: the incarnation the repository must write under.
    static Expected<std::unique_ptr<ClusterNode>, std::string> join(const std::string& conninfo,
                                                                    ClusterNodeOptions options);
    ~ClusterNode() override;
    ClusterNode(const ClusterNode&) = delete;
    ClusterNode& operator=(const ClusterNode&) = delete;
    ClusterNode(ClusterNode&&) = delete;
    ClusterNode& operator=(ClusterNode&&) = delete;

    /// The incarnation of the first join: this run of the node.
    std::uint64_t incarnation() const noexcept { return first_incarnation_; }
    const std::string& node_id() const noexcept { return options_.node_id; }

    /// Starts the heartbeat and the sweeper. `repository` writes as this node; `hub` gets the
    /// games adopted and evicts its rooms when the lease is lost; `link` forwards. `stop_server`
    /// is called (once, from the heartbeat thread) when another process took the node id over.
    void start(storage::PostgresRepository& repository, Hub& hub, ClusterLink& link,
               std::function<void()> stop_server);
    /// A graceful stop: the games are handed over (any node adopts them at once), the lease
    /// ends, and both threads stop. The number of games handed over, or why not.
    Expected<std::size_t, std::string> hand_over();
    /// Stops both threads (after hand_over, or without one when the server failed to start).
    void stop();

    ClusterNodeStatus status() const;

    // GameClaims
    Expected<Claim, storage::StorageError> claim(const std::string& game) override;
    bool forward_known(RoomRequest& request) override;
    void forward(RoomRequest request, const std::string& owner) override;

  private:
    ClusterNode(ClusterNodeOptions options, std::unique_ptr<storage::PostgresLease> lease,
                std::uint64_t incarnation);

    void heartbeats();
    void sweeps();
    /// One heartbeat and what follows a failure (lease_rules.hpp, action_after).
    void beat();
    /// One sweep: the live nodes to the link, the games of dead nodes adopted; whether it took a
    /// whole batch (another sweep should follow at once).
    bool sweep();
    /// Waits until `until` or stop(); false when stopping.
    bool wait_until(std::chrono::steady_clock::time_point until);

    const ClusterNodeOptions options_;
    const std::unique_ptr<storage::PostgresLease> lease_;
    const std::uint64_t first_incarnation_;

    storage::PostgresRepository* repository_ = nullptr;
    Hub* hub_ = nullptr;
    ClusterLink* link_ = nullptr;
    std::function<void()> stop_server_;

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    ClusterNodeStatus status_;
    std::thread heartbeat_thread_;
    std::thread sweep_thread_;
};

}  // namespace arbiter::server::app
