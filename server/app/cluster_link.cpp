#include "server/app/cluster_link.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <utility>

#include "common/core/assert.hpp"
#include "common/core/overloaded.hpp"
#include "common/protocol/codec.hpp"
#include "server/app/log.hpp"

namespace arbiter::server::app {

namespace {

/// The game a request is about; empty for a request no room takes.
std::string game_of(const protocol::ClientBody& body) {
    return std::visit(
        Overloaded{
            [](const OneOf<protocol::Join, protocol::Resume, protocol::Watch, protocol::Unwatch,
                           protocol::MoveRequest, protocol::Resign, protocol::OfferRequest,
                           protocol::Abort, protocol::Claim, protocol::ChatRequest,
                           protocol::ChatMute> auto& request) { return request.game; },
            [](const OneOf<protocol::Hello, protocol::Create, protocol::LobbySubscribe,
                           protocol::GamesQuery, protocol::Ping, protocol::ReplayRequest> auto&) {
                return std::string();
            },
        },
        body);
}

}  // namespace

/// Another node's connection, as the rooms here see it: what is sent to it goes to its holder.
class ClusterLink::RemotePeer final : public net::Peer,
                                      public std::enable_shared_from_this<RemotePeer> {
  public:
    RemotePeer(std::uint64_t id, cluster::Holder holder, std::weak_ptr<ClusterLink> link)
        : id_(id),
          holder_(std::move(holder)),
          address_(holder_.node + "#" + std::to_string(holder_.connection)),
          link_(std::move(link)) {}

    std::uint64_t id() const noexcept override { return id_; }
    const std::string& address() const noexcept override { return address_; }
    /// As the holder measured it, at the connection's last request.
    std::optional<std::chrono::milliseconds> round_trip() const noexcept override {
        const auto micros = round_trip_us_.load(std::memory_order_relaxed);
        if (micros == 0) {
            return std::nullopt;
        }
        return std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::microseconds(micros));
    }
    bool responsive() const noexcept override {
        return responsive_.load(std::memory_order_relaxed);
    }
    /// What the holder said of the connection with its latest request.
    void heard(std::uint64_t round_trip_us, bool responsive) noexcept {
        round_trip_us_.store(round_trip_us, std::memory_order_relaxed);
        responsive_.store(responsive, std::memory_order_relaxed);
    }
    bool send(std::shared_ptr<const std::string> text) override {
        if (closed_.load(std::memory_order_acquire)) {
            return false;
        }
        if (auto link = link_.lock()) {
            link->deliver(holder_, *text);
        }
        return true;
    }
    void close(net::CloseCode code, std::string_view reason) override {
        if (auto link = link_.lock()) {
            link->hang_up(shared_from_this(), static_cast<std::uint64_t>(code), reason);
        }
    }

    const cluster::Holder& holder() const noexcept { return holder_; }
    /// Marks it closed; true for the first call only (the host hears of a close once).
    bool mark_closed() noexcept { return !closed_.exchange(true, std::memory_order_acq_rel); }

  private:
    const std::uint64_t id_;
    const cluster::Holder holder_;
    const std::string address_;
    const std::weak_ptr<ClusterLink> link_;
    std::atomic<bool> closed_{false};
    std::atomic<std::uint64_t> round_trip_us_{0};
    std::atomic<bool> responsive_{true};
};

ClusterLink::ClusterLink(std::string self_node, std::uint64_t incarnation, ClusterHost& host,
                         std::shared_ptr<Executor> executor)
    : self_(std::move(self_node)),
      host_(host),
      incarnation_(incarnation),
      executor_(std::move(executor)) {}

void ClusterLink::listen(BroadcastListener& listener) {
    std::lock_guard lock(mutex_);
    listener_ = &listener;
}

void ClusterLink::attach(bus::Bus& bus) {
    {
        std::lock_guard lock(mutex_);
        bus_ = &bus;
    }
    bus.subscribe(cluster::inbox_channel(self_));
    bus.subscribe(std::string(cluster::broadcast_channel()));
}

void ClusterLink::close() {
    end_all("the server is stopping");
    std::lock_guard lock(mutex_);
    closed_ = true;
    bus_ = nullptr;
    executor_.reset();
}

void ClusterLink::rejoined(std::uint64_t incarnation) {
    const std::string_view reason = "this node lost its games; reconnect and resume";
    // Its rooms are gone: the holders of their remote members are told (unlike after a bus
    // drop, which they see themselves), so that they close those clients, which resume.
    hang_up_all(reason);
    {
        std::lock_guard lock(mutex_);
        incarnation_ = incarnation;
    }
    end_all(reason);
}

void ClusterLink::hang_up_all(std::string_view reason) {
    std::vector<std::shared_ptr<RemotePeer>> remotes;
    {
        std::lock_guard lock(mutex_);
        for (const auto& [holder, remote] : remotes_) {
            remotes.push_back(remote);
        }
    }
    for (const auto& remote : remotes) {
        remote->close(net::CloseCode::service_restart, reason);
    }
}

bool ClusterLink::is_remote(const net::Peer& peer) noexcept {
    return peer.id() >= kFirstRemotePeerId;
}

bool ClusterLink::publish(const std::string& node, const cluster::Envelope& envelope) {
    bus::Bus* bus = nullptr;
    {
        std::lock_guard lock(mutex_);
        if (!bus_up_ || closed_ || bus_ == nullptr) {
            return false;
        }
        bus = bus_;
    }
    // The bus outlives every publish: close() comes before it is destroyed, and a publish
    // already past the check only queues.
    bus->publish(cluster::inbox_channel(node), cluster::encode(envelope));
    return true;
}

bool ClusterLink::broadcast(const cluster::Envelope& envelope) {
    ARBITER_ASSERT(cluster::broadcast_sender(envelope) == self_);
    bus::Bus* bus = nullptr;
    {
        std::lock_guard lock(mutex_);
        if (!bus_up_ || closed_) {
            return false;
        }
        bus = bus_;
        ++counters_.broadcasts_sent;
    }
    bus->publish(std::string(cluster::broadcast_channel()), cluster::encode(envelope));
    return true;
}

// ---- the bus --------------------------------------------------------------------------------

void ClusterLink::on_bus_message(std::string_view channel, std::string_view bytes) {
    if (channel == cluster::broadcast_channel()) {
        return on_broadcast(bytes);
    }
    auto envelope = cluster::decode(bytes);
    if (!envelope || channel != cluster::inbox_channel(self_) || cluster::is_broadcast(*envelope)) {
        std::lock_guard lock(mutex_);
        ++counters_.malformed;
        return;
    }
    std::visit(Overloaded{
                   [&](cluster::Intent& intent) { on_intent(std::move(intent)); },
                   [&](cluster::Delivery& delivery) { on_delivery(delivery); },
                   [&](const cluster::NotOwner& refused) { on_not_owner(refused); },
                   [&](cluster::Hangup& hangup) { on_hangup(hangup); },
                   [](const OneOf<cluster::AccountChanged, cluster::RatingChanged,
                                  cluster::ListingChanged, cluster::ListingsOf> auto&) {
                       // Refused above: a broadcast on an inbox.
                   },
               },
               *envelope);
}

void ClusterLink::on_broadcast(std::string_view bytes) {
    auto envelope = cluster::decode(bytes);
    BroadcastListener* listener = nullptr;
    {
        std::lock_guard lock(mutex_);
        if (!envelope || !cluster::is_broadcast(*envelope)) {
            ++counters_.malformed;
            return;
        }
        if (cluster::broadcast_sender(*envelope) == self_ || closed_) {
            return;  // this node's own: it applied the change itself before it sent it
        }
        ++counters_.broadcasts;
        listener = listener_;
    }
    if (listener != nullptr) {
        listener->on_broadcast(std::move(*envelope));
    }
}

void ClusterLink::on_bus_state(bus::BusState state) {
    BroadcastListener* listener = nullptr;
    switch (state) {
        case bus::BusState::connected:
        case bus::BusState::reconnected: {
            std::lock_guard lock(mutex_);
            bus_up_ = true;
            if (!closed_) {
                listener = listener_;
            }
            break;
        }
        case bus::BusState::disconnected: {
            std::lock_guard lock(mutex_);
            bus_up_ = false;
        }
            // What was in flight is lost either way: every connection starts over from the
            // database, through a resume.
            end_all("the cluster's bus is down; reconnect and resume");
            break;
    }
    log_event(state == bus::BusState::disconnected ? LogLevel::warn : LogLevel::info, "cluster_bus",
              {{"state", state == bus::BusState::connected     ? "connected"
                         : state == bus::BusState::reconnected ? "reconnected"
                                                               : "disconnected"}});
    if (listener != nullptr) {
        listener->on_bus_up();
    }
}

void ClusterLink::end_all(std::string_view reason) {
    std::map<cluster::Holder, std::shared_ptr<RemotePeer>> remotes;
    std::vector<std::shared_ptr<net::Peer>> local;
    {
        std::lock_guard lock(mutex_);
        remotes.swap(remotes_);
        for (auto& [id, forwarded] : forwarded_) {
            if (auto peer = forwarded.peer.lock()) {
                local.push_back(std::move(peer));
            }
        }
        forwarded_.clear();
        owners_.clear();
        counters_.hangups += remotes.size();
    }
    for (auto& [holder, remote] : remotes) {
        if (remote->mark_closed()) {
            host_.remote_closed(remote);
        }
    }
    for (auto& peer : local) {
        peer->close(net::CloseCode::service_restart, reason);
    }
}

// ---- the owner's side -----------------------------------------------------------------------

void ClusterLink::on_intent(cluster::Intent intent) {
    auto decoded = protocol::decode(intent.message);
    std::shared_ptr<RemotePeer> peer;
    bool opened = false;
    bool dead_run = false;
    {
        std::lock_guard lock(mutex_);
        if (closed_) {
            return;
        }
        dead_run =
            std::find(dead_runs_.begin(), dead_runs_.end(),
                      std::pair(intent.from.node, intent.from.incarnation)) != dead_runs_.end();
    }
    if (dead_run) {
        // Its connection was ended here with its run: served now, it would hold no seat.
        {
            std::lock_guard lock(mutex_);
            ++counters_.hangups;
        }
        publish(intent.from.node,
                cluster::Hangup{self_, intent.from, false,
                                static_cast<std::uint64_t>(net::CloseCode::service_restart),
                                "this node lost its games; reconnect and resume"});
        return;
    }
    {
        std::lock_guard lock(mutex_);
        if (closed_) {
            return;
        }
        ++counters_.intents;
        auto& entry = remotes_[intent.from];
        if (!entry) {
            entry = std::make_shared<RemotePeer>(next_remote_id_++, intent.from, weak_from_this());
            opened = true;
        }
        peer = entry;
    }
    peer->heard(intent.round_trip_us, intent.responsive);
    if (opened) {
        host_.remote_opened(peer);
    }
    if (!decoded) {
        // The holder decoded it before it sent it: only a stranger on the bus gets here.
        peer->send(std::make_shared<const std::string>(protocol::encode_error(
            decoded.error().code, decoded.error().message, decoded.error().id)));
        return;
    }
    std::optional<AccountUser> user;
    if (intent.user_id != 0) {
        user = AccountUser{static_cast<std::int64_t>(intent.user_id), intent.username};
    }
    host_.remote_request(peer, std::move(*decoded), std::move(intent.player_name), std::move(user),
                         intent.hops);
}

void ClusterLink::deliver(const cluster::Holder& holder, const std::string& message) {
    {
        std::lock_guard lock(mutex_);
        ++counters_.deliveries_sent;
    }
    publish(holder.node, cluster::Delivery{self_, holder.connection, message});
}

void ClusterLink::hang_up(const std::shared_ptr<RemotePeer>& peer, std::uint64_t code,
                          std::string_view reason) {
    if (!peer->mark_closed()) {
        return;
    }
    {
        std::lock_guard lock(mutex_);
        if (auto it = remotes_.find(peer->holder()); it != remotes_.end() && it->second == peer) {
            remotes_.erase(it);
        }
        ++counters_.hangups;
    }
    publish(peer->holder().node,
            cluster::Hangup{self_, peer->holder(), false, code, std::string(reason)});
    // As the network reports a close: later, never inside the call that closed it (after
    // close(), nobody is told: the hub is closing too).
    std::shared_ptr<Executor> executor;
    {
        std::lock_guard lock(mutex_);
        executor = executor_;
    }
    if (executor) {
        executor->post([self = shared_from_this(), peer] { self->host_.remote_closed(peer); });
    }
}

// ---- the holder's side ----------------------------------------------------------------------

bool ClusterLink::forward_known(RoomRequest& request) {
    const std::string game = game_of(request.body);
    std::string owner;
    {
        std::lock_guard lock(mutex_);
        auto it = owners_.find(game);
        if (it == owners_.end()) {
            return false;
        }
        owner = it->second;
    }
    forward(std::move(request), owner);
    return true;
}

void ClusterLink::refuse(const RoomRequest& request, const std::string& why) {
    {
        std::lock_guard lock(mutex_);
        ++counters_.refused;
    }
    if (!std::holds_alternative<protocol::Unwatch>(request.body)) {
        request.peer->send(std::make_shared<const std::string>(
            protocol::encode_error(protocol::ErrorCode::unavailable, why, request.id)));
    }
}

void ClusterLink::forward(RoomRequest request, const std::string& owner) {
    const std::string game = game_of(request.body);
    if (is_remote(*request.peer)) {
        // Another node's connection: that node asks the database again, and routes it itself.
        const auto* remote = static_cast<const RemotePeer*>(request.peer.get());
        {
            std::lock_guard lock(mutex_);
            ++counters_.not_owner;
        }
        publish(remote->holder().node,
                cluster::NotOwner{self_, remote->holder().connection, game, request.hops,
                                  protocol::encode(protocol::ClientMessage{
                                      std::move(request.id), std::move(request.body)})});
        return;
    }
    const bool unwatch = std::holds_alternative<protocol::Unwatch>(request.body);
    std::uint64_t incarnation = 0;
    {
        std::lock_guard lock(mutex_);
        incarnation = incarnation_;
        if (bus_up_ && !closed_) {
            if (owners_.size() >= kMaxRememberedOwners) {
                owners_.clear();
            }
            owners_[game] = owner;
            auto& forwarded = forwarded_[request.peer->id()];
            forwarded.peer = request.peer;
            forwarded.owners.insert(owner);
            // Every request but an unwatch is answered: one that is not in time was lost.
            if (!unwatch && !forwarded.unanswered_since) {
                forwarded.unanswered_since = std::chrono::steady_clock::now();
            }
            ++counters_.forwarded;
        }
    }
    const auto round_trip = request.peer->round_trip();
    cluster::Intent intent{
        {self_, incarnation, request.peer->id()},
        game,
        request.hops,
        request.player_name,
        request.user ? static_cast<std::uint64_t>(request.user->id) : 0U,
        request.user ? request.user->username : std::string(),
        round_trip ? static_cast<std::uint64_t>(
                         std::chrono::duration_cast<std::chrono::microseconds>(*round_trip).count())
                   : 0U,
        request.peer->responsive(),
        {}};
    intent.message = protocol::encode(protocol::ClientMessage{request.id, request.body});
    if (!publish(owner, intent)) {
        refuse(request, "the node that plays this game cannot be reached now; try again");
    }
}

void ClusterLink::on_delivery(const cluster::Delivery& delivery) {
    std::shared_ptr<net::Peer> peer;
    {
        std::lock_guard lock(mutex_);
        auto it = forwarded_.find(delivery.connection);
        if (it == forwarded_.end()) {
            return;  // closed meanwhile: its owners hear of it
        }
        peer = it->second.peer.lock();
        it->second.unanswered_since.reset();
        ++counters_.deliveries;
    }
    if (peer) {
        peer->send(std::make_shared<const std::string>(delivery.message));
    }
}

void ClusterLink::on_not_owner(const cluster::NotOwner& refused) {
    std::shared_ptr<net::Peer> peer;
    {
        std::lock_guard lock(mutex_);
        if (auto owner = owners_.find(refused.game);
            owner != owners_.end() && owner->second == refused.from_node) {
            owners_.erase(owner);
        }
        auto it = forwarded_.find(refused.connection);
        if (it == forwarded_.end()) {
            return;
        }
        peer = it->second.peer.lock();
    }
    auto decoded = protocol::decode(refused.message);
    if (!peer || !decoded) {
        return;
    }
    if (refused.hops + 1 > cluster::kMaxHops) {
        std::lock_guard lock(mutex_);
        ++counters_.refused;
        if (!std::holds_alternative<protocol::Unwatch>(decoded->body)) {
            peer->send(std::make_shared<const std::string>(protocol::encode_error(
                protocol::ErrorCode::unavailable,
                "the game is changing nodes; try again in a moment", decoded->id)));
        }
        return;
    }
    // Only a request that makes the connection a member (join, resume, watch) may go to the
    // game's new owner as it is: any other relies on a membership the old owner held (a seat),
    // which the new one does not know. That connection starts over (1012), and resumes.
    const bool enters =
        std::visit(Overloaded{
                       [](const OneOf<protocol::Join, protocol::Resume, protocol::Watch,
                                      protocol::Unwatch> auto&) { return true; },
                       [](const auto&) { return false; },
                   },
                   decoded->body);
    if (!enters) {
        {
            std::lock_guard lock(mutex_);
            ++counters_.lost_owner;
        }
        peer->close(net::CloseCode::service_restart,
                    "your game moved to another node; reconnect and resume");
        return;
    }
    {
        std::lock_guard lock(mutex_);
        ++counters_.rerouted;
    }
    host_.request_again(peer, std::move(*decoded), refused.hops + 1);
}

void ClusterLink::on_hangup(const cluster::Hangup& hangup) {
    if (hangup.closed_by_holder) {
        std::shared_ptr<RemotePeer> peer;
        {
            std::lock_guard lock(mutex_);
            auto it = remotes_.find(hangup.connection);
            if (it == remotes_.end()) {
                return;
            }
            peer = it->second;
            remotes_.erase(it);
            ++counters_.hangups;
        }
        if (peer->mark_closed()) {
            host_.remote_closed(peer);
        }
        return;
    }
    std::shared_ptr<net::Peer> peer;
    {
        std::lock_guard lock(mutex_);
        if (hangup.connection.node != self_ || hangup.connection.incarnation != incarnation_) {
            return;  // meant for an earlier run of this node
        }
        auto it = forwarded_.find(hangup.connection.connection);
        if (it == forwarded_.end()) {
            return;
        }
        peer = it->second.peer.lock();
        ++counters_.hangups;
    }
    if (peer) {
        peer->close(static_cast<net::CloseCode>(hangup.code), hangup.reason);
    }
}

void ClusterLink::connection_closed(const net::Peer& peer) {
    std::set<std::string> owners;
    std::uint64_t incarnation = 0;
    {
        std::lock_guard lock(mutex_);
        incarnation = incarnation_;
        auto it = forwarded_.find(peer.id());
        if (it == forwarded_.end()) {
            return;
        }
        owners = std::move(it->second.owners);
        forwarded_.erase(it);
    }
    for (const auto& owner : owners) {
        publish(owner, cluster::Hangup{self_, {self_, incarnation, peer.id()}, true, 1000, ""});
    }
}

void ClusterLink::nodes_live(const std::vector<std::pair<std::string, std::uint64_t>>& live,
                             std::chrono::steady_clock::time_point now) {
    // A message the bus dropped while it stayed up (its queue was full) may have been any
    // delivery or hangup: every forwarded connection starts over, as after a disconnection.
    bool lost_messages = false;
    {
        std::lock_guard lock(mutex_);
        if (bus_ != nullptr) {
            const auto dropped = bus_->counters().dropped;
            lost_messages = dropped > bus_dropped_;
            bus_dropped_ = dropped;
        }
    }
    if (lost_messages) {
        end_all("the cluster's bus lost messages; reconnect and resume");
    }
    const auto is_live_node = [&](const std::string& node) {
        for (const auto& [name, incarnation] : live) {
            if (name == node) {
                return true;
            }
        }
        return false;
    };
    const auto is_live_run = [&](const cluster::Holder& holder) {
        for (const auto& [name, incarnation] : live) {
            if (name == holder.node && incarnation == holder.incarnation) {
                return true;
            }
        }
        return false;
    };
    std::vector<std::shared_ptr<RemotePeer>> ended;
    std::vector<std::shared_ptr<net::Peer>> lost;
    {
        std::lock_guard lock(mutex_);
        for (auto it = remotes_.begin(); it != remotes_.end();) {
            if (is_live_run(it->first)) {
                ++it;
                continue;
            }
            const std::pair run(it->first.node, it->first.incarnation);
            if (std::find(dead_runs_.begin(), dead_runs_.end(), run) == dead_runs_.end()) {
                dead_runs_.push_back(run);
                if (dead_runs_.size() > kMaxDeadRuns) {
                    dead_runs_.pop_front();
                }
            }
            ended.push_back(it->second);
            it = remotes_.erase(it);
        }
        for (auto it = owners_.begin(); it != owners_.end();) {
            it = is_live_node(it->second) ? std::next(it) : owners_.erase(it);
        }
        for (auto it = forwarded_.begin(); it != forwarded_.end();) {
            auto& owners = it->second.owners;
            const bool gone =
                std::any_of(owners.begin(), owners.end(),
                            [&](const auto& owner) { return !is_live_node(owner); }) ||
                (it->second.unanswered_since &&
                 now - *it->second.unanswered_since >= kAnswerTimeout);
            if (!gone) {
                ++it;
                continue;
            }
            if (auto peer = it->second.peer.lock()) {
                lost.push_back(std::move(peer));
            }
            // Closed once: the owners gone need no hangup, the others hear of the close
            // (connection_closed) when it comes.
            std::erase_if(owners, [&](const auto& owner) { return !is_live_node(owner); });
            it->second.unanswered_since.reset();
            ++it;
        }
        counters_.hangups += ended.size();
        counters_.lost_owner += lost.size();
    }
    for (auto& peer : ended) {
        if (peer->mark_closed()) {
            host_.remote_closed(peer);
        }
    }
    for (auto& peer : lost) {
        peer->close(net::CloseCode::service_restart,
                    "the node that plays your game stopped or did not answer; reconnect and "
                    "resume");
    }
    BroadcastListener* listener = nullptr;
    {
        std::lock_guard lock(mutex_);
        listener = closed_ ? nullptr : listener_;
    }
    if (listener != nullptr) {
        std::vector<std::string> nodes;
        nodes.reserve(live.size());
        for (const auto& [name, incarnation] : live) {
            nodes.push_back(name);
        }
        listener->on_nodes_live(nodes);
    }
}

ClusterLinkCounters ClusterLink::counters() const {
    std::lock_guard lock(mutex_);
    auto counters = counters_;
    counters.remote_connections = remotes_.size();
    counters.forwarded_connections = forwarded_.size();
    return counters;
}

}  // namespace arbiter::server::app
