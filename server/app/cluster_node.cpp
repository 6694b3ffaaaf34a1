#include "server/app/cluster_node.hpp"

#include <pthread.h>

#include <utility>
#include <vector>

#include "server/app/hub.hpp"
#include "server/app/log.hpp"
#include "server/app/metrics.hpp"

namespace arbiter::server::app {

namespace {

using Clock = std::chrono::steady_clock;

const char* failure_name(storage::LeaseFailure failure) {
    switch (failure) {
        case storage::LeaseFailure::unreachable:
            return "unreachable";
        case storage::LeaseFailure::expired:
            return "expired";
        case storage::LeaseFailure::taken:
            return "taken";
    }
    return "unknown";
}

}  // namespace

Expected<std::unique_ptr<ClusterNode>, std::string> ClusterNode::join(const std::string& conninfo,
                                                                      ClusterNodeOptions options) {
    auto lease = storage::PostgresLease::open(
        conninfo, storage::LeaseOptions{options.node_id, options.lease});
    if (!lease) {
        return unexpected("the lease: " + lease.error().message);
    }
    auto joined = (*lease)->join();
    if (!joined) {
        return unexpected("joining the cluster: " + joined.error().message);
    }
    return std::unique_ptr<ClusterNode>(
        new ClusterNode(std::move(options), std::move(*lease), joined->incarnation));
}

ClusterNode::ClusterNode(ClusterNodeOptions options, std::unique_ptr<storage::PostgresLease> lease,
                         std::uint64_t incarnation)
    : options_(std::move(options)), lease_(std::move(lease)), first_incarnation_(incarnation) {
    status_.lease_held = true;
    status_.incarnation = incarnation;
}

ClusterNode::~ClusterNode() {
    stop();
}

void ClusterNode::start(storage::PostgresRepository& repository, Hub& hub, ClusterLink& link,
                        std::function<void()> stop_server) {
    repository_ = &repository;
    hub_ = &hub;
    link_ = &link;
    stop_server_ = std::move(stop_server);
    heartbeat_thread_ = std::thread([this] {
        pthread_setname_np(pthread_self(), "arbiter-lease");
        heartbeats();
    });
    sweep_thread_ = std::thread([this] {
        pthread_setname_np(pthread_self(), "arbiter-sweep");
        sweeps();
    });
}

void ClusterNode::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (heartbeat_thread_.joinable()) {
        heartbeat_thread_.join();
    }
    if (sweep_thread_.joinable()) {
        sweep_thread_.join();
    }
}

Expected<std::size_t, std::string> ClusterNode::hand_over() {
    stop();
    {
        std::lock_guard lock(mutex_);
        if (status_.stopped_for_good) {
            // The id is another process's now: its games are not this one's to release.
            return std::size_t{0};
        }
    }
    // The writes that fail from now on are this handover's: their rooms stay for the stop's
    // going-away close.
    hub_->keep_rooms_until_stop();
    auto released = repository_->release_games();
    if (!released) {
        return unexpected("handing the games over: " + released.error().message);
    }
    if (auto left = lease_->leave(); !left) {
        log_event(LogLevel::warn, "cluster_leave_failed", {{"error", left.error().message}});
    }
    std::lock_guard lock(mutex_);
    status_.lease_held = false;
    return *released;
}

bool ClusterNode::wait_until(Clock::time_point until) {
    std::unique_lock lock(mutex_);
    wake_.wait_until(lock, until, [this] { return stopping_; });
    return !stopping_;
}

// ---- the heartbeat --------------------------------------------------------------------------

void ClusterNode::heartbeats() {
    auto last_sent = Clock::now();  // the join's (join() ran just before)
    while (wait_until(storage::next_heartbeat_at(last_sent, options_.lease))) {
        last_sent = Clock::now();
        beat();
        std::lock_guard lock(mutex_);
        if (status_.stopped_for_good) {
            return;
        }
    }
}

void ClusterNode::beat() {
    auto granted = lease_->heartbeat();
    if (granted) {
        std::lock_guard lock(mutex_);
        ++status_.heartbeats;
        status_.lease_held = true;
        return;
    }
    const auto action = lease_->action_after(granted.error(), Clock::now());
    {
        std::lock_guard lock(mutex_);
        ++status_.heartbeat_failures;
        status_.lease_held = action == storage::LeaseAction::keep_writing;
    }
    log_event(LogLevel::warn, "cluster_heartbeat_failed",
              {{"node", options_.node_id},
               {"failure", failure_name(granted.error().failure)},
               {"error", granted.error().message}});
    switch (action) {
        case storage::LeaseAction::keep_writing:
        case storage::LeaseAction::stop_writing:
            // The epochs fence every write of a game another node adopts meanwhile: nothing
            // more is needed until the database answers again.
            return;
        case storage::LeaseAction::drop_and_rejoin: {
            // Its games are, or soon will be, another node's: their rooms go now, and their
            // members resume there. Then the node joins again with nothing, and serves on.
            // Owning nothing comes first: a claim under way then finds the eviction after it and
            // claims again (RoomRegistry::bring_back), rather than bring a game back into a
            // room that could commit nothing.
            repository_->forget_games();
            const auto evicted = hub_->evict_all("this node lost its games; reconnect and resume");
            auto joined = lease_->join();
            if (!joined) {
                log_event(LogLevel::error, "cluster_rejoin_failed",
                          {{"node", options_.node_id}, {"error", joined.error().message}});
                std::lock_guard lock(mutex_);
                status_.rooms_evicted += evicted;
                return;  // the next heartbeat fails too, and tries again
            }
            repository_->rejoin(joined->incarnation);
            // The other nodes end the connections of this node's earlier run: its clients
            // start over, as the new run.
            link_->rejoined(joined->incarnation);
            log_event(LogLevel::warn, "cluster_rejoined",
                      {{"node", options_.node_id},
                       {"incarnation", joined->incarnation},
                       {"rooms_dropped", evicted}});
            std::lock_guard lock(mutex_);
            status_.rooms_evicted += evicted;
            ++status_.rejoins;
            status_.lease_held = true;
            status_.incarnation = joined->incarnation;
            return;
        }
        case storage::LeaseAction::stop_for_good: {
            repository_->forget_games();
            const auto evicted = hub_->evict_all("this node was replaced; reconnect and resume");
            log_event(LogLevel::error, "cluster_node_replaced",
                      {{"node", options_.node_id},
                       {"rooms_dropped", evicted},
                       {"effect", "another process runs as this node now: this one stops"}});
            {
                std::lock_guard lock(mutex_);
                status_.rooms_evicted += evicted;
                status_.stopped_for_good = true;
            }
            if (stop_server_) {
                stop_server_();
            }
            return;
        }
    }
}

// ---- the sweeper ----------------------------------------------------------------------------

void ClusterNode::sweeps() {
    auto next = Clock::now();
    while (wait_until(next)) {
        const bool full = sweep();
        next = full ? Clock::now() : Clock::now() + options_.sweep_interval;
    }
}

bool ClusterNode::sweep() {
    {
        std::lock_guard lock(mutex_);
        ++status_.sweeps;
        if (!status_.lease_held) {
            return false;  // adopting needs a live lease; the heartbeat is on it
        }
    }
    auto live = repository_->live_nodes();
    if (!live) {
        std::lock_guard lock(mutex_);
        ++status_.sweep_failures;
        return false;
    }
    std::vector<std::pair<std::string, std::uint64_t>> nodes;
    nodes.reserve(live->size());
    for (auto& node : *live) {
        nodes.emplace_back(std::move(node.node), node.incarnation);
    }
    link_->nodes_live(nodes);
    auto adopted = repository_->adopt_expired(options_.adopt_batch);
    if (!adopted) {
        // `fenced`: this node's own lease is not live (the heartbeat deals with it).
        std::lock_guard lock(mutex_);
        ++status_.sweep_failures;
        status_.live_nodes = nodes.size();
        return false;
    }
    for (auto& game : *adopted) {
        const std::string id = game.game.header.id;
        const auto epoch = game.epoch;
        hub_->adopt(std::move(game.game));
        log_event(LogLevel::info, "game_adopted", {{"game", id}, {"epoch", epoch}});
    }
    std::lock_guard lock(mutex_);
    status_.live_nodes = nodes.size();
    status_.adopted += adopted->size();
    return adopted->size() >= options_.adopt_batch;
}

// ---- claims ---------------------------------------------------------------------------------

Expected<GameClaims::Claim, storage::StorageError> ClusterNode::claim(const std::string& game) {
    if (repository_->epoch_of(game)) {
        auto stored = repository_->load(game);
        if (!stored) {
            return unexpected(std::move(stored).error());
        }
        return Claim(std::move(*stored));
    }
    // Twice at most: an adoption that another node won (or a lease that just came back) is
    // settled when read again.
    for (int attempt = 0; attempt < 2; ++attempt) {
        auto owner = repository_->owner_of(game);
        if (!owner) {
            return unexpected(std::move(owner).error());
        }
        if (!*owner) {
            return Claim(std::optional<storage::StoredGame>());
        }
        if ((*owner)->live && (*owner)->node != options_.node_id) {
            return Claim(Elsewhere{(*owner)->node});
        }
        auto adopted = repository_->adopt(game);
        if (!adopted) {
            return unexpected(std::move(adopted).error());
        }
        if (*adopted) {
            log_event(LogLevel::info, "game_adopted",
                      {{"game", game}, {"epoch", (*adopted)->epoch}, {"on", "request"}});
            std::lock_guard lock(mutex_);
            ++status_.adopted;
            return Claim(std::optional(std::move((*adopted)->game)));
        }
    }
    return unexpected(storage::StorageError{"the game is changing nodes; try again"});
}

bool ClusterNode::forward_known(RoomRequest& request) {
    return link_->forward_known(request);
}

void ClusterNode::forward(RoomRequest request, const std::string& owner) {
    link_->forward(std::move(request), owner);
}

std::string render_cluster_metrics(const ClusterNodeStatus& node, const ClusterLinkCounters& link,
                                   const bus::BusCounters& bus) {
    std::string text;
    const auto series = [&text](const char* name, const char* type, const char* help,
                                std::uint64_t value) {
        render_series(text, name, type, help, static_cast<double>(value));
    };
    series("arbiter_cluster_lease_held", "gauge",
           "1 while this node holds its lease (it may own games).", node.lease_held ? 1 : 0);
    series("arbiter_cluster_incarnation", "gauge", "The incarnation this node's lease is under.",
           node.incarnation);
    series("arbiter_cluster_heartbeats_total", "counter", "Heartbeats the database granted.",
           node.heartbeats);
    series("arbiter_cluster_heartbeat_failures_total", "counter", "Heartbeats that failed.",
           node.heartbeat_failures);
    series("arbiter_cluster_rejoins_total", "counter",
           "Times this node lost its lease and joined again.", node.rejoins);
    series("arbiter_cluster_games_owned", "gauge",
           "Games this node owns now (it holds their fencing epoch).", node.games_owned);
    series("arbiter_cluster_games_adopted_total", "counter",
           "Games this node adopted from nodes gone (sweeps and requests).", node.adopted);
    series("arbiter_cluster_rooms_evicted_total", "counter",
           "Rooms dropped because this node lost its games.", node.rooms_evicted);
    series("arbiter_cluster_sweep_failures_total", "counter", "Sweeps that failed.",
           node.sweep_failures);
    series("arbiter_cluster_live_nodes", "gauge", "Nodes with a live lease, at the last sweep.",
           node.live_nodes);
    series("arbiter_cluster_forwarded_total", "counter",
           "Requests of local connections forwarded to the game's owner.", link.forwarded);
    series("arbiter_cluster_intents_total", "counter",
           "Requests other nodes forwarded to rooms here.", link.intents);
    series("arbiter_cluster_deliveries_sent_total", "counter",
           "Messages sent to connections held by other nodes.", link.deliveries_sent);
    series("arbiter_cluster_deliveries_total", "counter",
           "Messages from other nodes' rooms delivered to local connections.", link.deliveries);
    series("arbiter_cluster_not_owner_total", "counter",
           "Forwarded requests sent back: this node did not own the game.", link.not_owner);
    series("arbiter_cluster_rerouted_total", "counter",
           "Requests that came back and were routed again.", link.rerouted);
    series("arbiter_cluster_forward_refusals_total", "counter",
           "Requests refused: the bus down, or the game changing nodes.", link.refused);
    series("arbiter_cluster_lost_owner_total", "counter",
           "Local connections closed (1012) because their game's owner went.", link.lost_owner);
    series("arbiter_cluster_hangups_total", "counter", "Forwarded connections ended.",
           link.hangups);
    series("arbiter_cluster_malformed_total", "counter",
           "Bus messages refused as not envelopes for this node.", link.malformed);
    series("arbiter_cluster_remote_connections", "gauge",
           "Connections held by other nodes, in rooms here.", link.remote_connections);
    series("arbiter_cluster_forwarded_connections", "gauge",
           "Local connections in games other nodes own.", link.forwarded_connections);
    series("arbiter_bus_published_total", "counter", "Bus messages Redis accepted.", bus.published);
    series("arbiter_bus_received_total", "counter", "Bus messages received.", bus.received);
    series("arbiter_bus_dropped_total", "counter",
           "Bus messages dropped: Redis down, or the queue full.", bus.dropped);
    series("arbiter_bus_reconnects_total", "counter", "Times the bus came back.", bus.reconnects);
    return text;
}

ClusterNodeStatus ClusterNode::status() const {
    ClusterNodeStatus status;
    {
        std::lock_guard lock(mutex_);
        status = status_;
    }
    if (repository_ != nullptr) {
        status.games_owned = repository_->games_owned();
    }
    return status;
}

}  // namespace arbiter::server::app
