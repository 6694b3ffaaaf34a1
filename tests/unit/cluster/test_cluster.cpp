#include "test_cluster.hpp"

#include <chrono>
#include <stdexcept>

#include "common/protocol/codec.hpp"

namespace arbiter::server::cluster::testing {

namespace {
constexpr std::string_view kFence = "fence";
constexpr std::size_t kCatchUpPage = 50;
}  // namespace

std::uint64_t seq_of(const std::string& message) {
    const auto at = message.find("\"seq\":");
    if (at == std::string::npos) {
        return 0;
    }
    return std::stoull(message.substr(at + 6));
}

std::string moved_text(const std::string& game, std::uint64_t seq, std::uint32_t ply_after,
                       const std::string& move) {
    protocol::Moved moved;
    moved.game = game;
    moved.seq = seq;
    moved.ply = ply_after;
    moved.move = move;
    moved.notation = move;
    moved.position = "8/8/8/8/8/8/8/8 w - - 0 1";
    return protocol::encode(protocol::ServerMessage{moved, std::nullopt});
}

protocol::ClientMessage move_request(const std::string& game, std::uint32_t ply,
                                     const std::string& move, const std::string& id) {
    return protocol::ClientMessage{id, protocol::MoveRequest{game, move, ply}};
}

class TestCluster::NodeBus final : public bus::Bus {
  public:
    NodeBus(TestCluster& cluster, Node& node) : cluster_(cluster), node_(node) {}

    void publish(std::string channel, std::string bytes) override {
        {
            const std::lock_guard lock(cluster_.mutex_);
            if (cluster_.drop_rule_) {
                if (auto envelope = decode(bytes);
                    envelope && cluster_.drop_rule_(node_.name, channel, envelope.value())) {
                    return;
                }
            }
        }
        cluster_.loopback_->publish(std::move(channel), std::move(bytes));
    }
    void subscribe(std::string channel) override {
        {
            const std::lock_guard lock(cluster_.mutex_);
            if (node_.channels.insert(channel).second) {
                ++cluster_.subscribers_[channel];
            }
        }
        // Every node's subscribe reaches the broker, so that each one hears on_subscribed.
        cluster_.loopback_->subscribe(std::move(channel));
    }
    void unsubscribe(std::string channel) override {
        {
            const std::lock_guard lock(cluster_.mutex_);
            if (node_.channels.erase(channel) == 0 || --cluster_.subscribers_[channel] > 0) {
                return;
            }
            cluster_.subscribers_.erase(channel);
        }
        cluster_.loopback_->unsubscribe(std::move(channel));
    }
    bus::BusCounters counters() const override { return cluster_.loopback_->counters(); }

  private:
    TestCluster& cluster_;
    Node& node_;
};

TestCluster::TestCluster(std::vector<std::string> node_names, ForwarderLimits forwarder_limits,
                         RelayLimits relay_limits) {
    loopback_ = std::make_unique<bus::LoopbackBus>(
        bus::BusHandlers{[this](std::string_view channel, std::string_view bytes) {
                             on_loopback_message(channel, bytes);
                         },
                         [this](bus::BusState state) { on_loopback_state(state); },
                         [this](std::string_view channel) { on_loopback_subscribed(channel); }});
    loopback_->subscribe(std::string(kFence));
    for (auto& name : node_names) {
        auto node = std::make_unique<Node>();
        node->name = name;
        node->bus = std::make_unique<NodeBus>(*this, *node);
        Node* raw = node.get();
        nodes_[name] = std::move(node);
        raw->cluster = std::make_unique<ClusterNode>(ClusterNodeParts{
            name, *raw->bus, raw->ownership, raw->catch_up,
            [raw](ConnectionId connection, const std::string& message) {
                raw->delivered[connection].push_back(message);
            },
            [this, raw](ForwardedRequest request) { room(*raw, std::move(request)); },
            forwarder_limits, relay_limits});
    }
    pump();
}

TestCluster::~TestCluster() {
    // The bus's thread stops first: no handler may run into a node being destroyed.
    loopback_.reset();
}

ClusterNode& TestCluster::node(const std::string& name) {
    return *nodes_.at(name)->cluster;
}

std::vector<std::string>& TestCluster::delivered(const std::string& node, ConnectionId connection) {
    return nodes_.at(node)->delivered[connection];
}

std::vector<std::uint64_t> TestCluster::seqs(const std::string& node, ConnectionId connection) {
    std::vector<std::uint64_t> out;
    for (const auto& message : delivered(node, connection)) {
        out.push_back(seq_of(message));
    }
    return out;
}

void TestCluster::set_owner(const std::string& game, Owner owner) {
    for (auto& [name, node] : nodes_) {
        node->ownership.owners[game] = owner;
    }
}

void TestCluster::set_owner_seen_by(const std::string& node, const std::string& game, Owner owner) {
    nodes_.at(node)->ownership.owners[game] = std::move(owner);
}

void TestCluster::set_drop_rule(DropRule rule) {
    const std::lock_guard lock(mutex_);
    drop_rule_ = std::move(rule);
}

void TestCluster::publish_raw(std::string channel, std::string bytes) {
    loopback_->publish(std::move(channel), std::move(bytes));
}

void TestCluster::play_local(const std::string& game, const std::string& move) {
    for (auto& [name, node] : nodes_) {
        const auto owner = node->ownership.owner_of(game);
        if (owner && owner->node == name) {
            commit(*node, game, move, nullptr);
            return;
        }
    }
    throw std::logic_error("no node owns " + game);
}

Expected<std::uint64_t, ForwardError> TestCluster::forward_move(
    const std::string& node, ConnectionId connection, const std::string& game, std::uint32_t ply,
    const std::string& move, const std::string& id) {
    return this->node(node).forwarder().forward(move_request(game, ply, move, id), game, connection,
                                                now_);
}

std::string TestCluster::commit(Node& owner, const std::string& game, const std::string& move,
                                const ForwardedRequest* cause) {
    auto& record = games_[game];
    ++record.plies;
    const auto seq = record.events.size() + 1;
    const auto epoch = owner.ownership.owners.at(game).epoch;
    auto text = moved_text(game, seq, record.plies, move);
    record.events.push_back({seq, epoch, owner.name, text, record.plies, move});
    ++record.applied[record.plies];
    owner.cluster->inbox().publish_event(game, seq, epoch, text, cause);
    return text;
}

void TestCluster::room(Node& node, ForwardedRequest request) {
    const auto* move = std::get_if<protocol::MoveRequest>(&request.message.body);
    const auto& id = request.message.id;
    auto reply_error = [&](protocol::ErrorCode code, std::string_view text) {
        node.cluster->inbox().answer(request, {protocol::encode_error(code, text, id)});
    };
    if (move == nullptr) {
        return reply_error(protocol::ErrorCode::not_allowed, "the fake room plays moves only");
    }
    auto& record = games_[request.game];
    if (move->ply == record.plies) {
        const auto text = commit(node, request.game, move->move, &request);
        node.cluster->inbox().answer(request, {id ? protocol::requester_copy(text, *id) : text});
        return;
    }
    for (const auto& stored : record.events) {
        // A re-send of a move already played is answered as the first time.
        if (stored.ply_after == move->ply + 1 && stored.move == move->move) {
            node.cluster->inbox().answer(
                request, {id ? protocol::requester_copy(stored.message, *id) : stored.message});
            return;
        }
    }
    reply_error(protocol::ErrorCode::stale_ply, "the game is at another ply");
}

void TestCluster::on_loopback_message(std::string_view channel, std::string_view bytes) {
    const std::lock_guard lock(mutex_);
    if (channel == kFence) {
        fence_seen_ = std::stoull(std::string(bytes));
        fenced_.notify_all();
        return;
    }
    for (auto& [name, node] : nodes_) {
        if (node->channels.contains(std::string(channel))) {
            node->mailbox.push_back(
                {Mail::Kind::message, std::string(channel), std::string(bytes)});
        }
    }
}

void TestCluster::on_loopback_state(bus::BusState state) {
    const std::lock_guard lock(mutex_);
    for (auto& [name, node] : nodes_) {
        node->mailbox.push_back({Mail::Kind::state, {}, {}, state});
    }
    ++states_seen_;
    fenced_.notify_all();
}

void TestCluster::on_loopback_subscribed(std::string_view channel) {
    const std::lock_guard lock(mutex_);
    for (auto& [name, node] : nodes_) {
        if (node->channels.contains(std::string(channel))) {
            node->mailbox.push_back({Mail::Kind::subscribed, std::string(channel), {}});
        }
    }
}

bool TestCluster::fence() {
    if (!broker_up_) {
        return false;
    }
    const auto fence = ++fence_sent_;
    loopback_->publish(std::string(kFence), std::to_string(fence));
    std::unique_lock lock(mutex_);
    if (!fenced_.wait_for(lock, std::chrono::seconds(5), [&] { return fence_seen_ >= fence; })) {
        throw std::runtime_error("the loopback bus did not deliver a fence");
    }
    return true;
}

bool TestCluster::drain_once() {
    bool moved = false;
    for (auto& [name, node] : nodes_) {
        std::deque<Mail> mail;
        {
            const std::lock_guard lock(mutex_);
            mail.swap(node->mailbox);
        }
        for (auto& item : mail) {
            moved = true;
            switch (item.kind) {
                case Mail::Kind::message:
                    node->cluster->on_bus_message(item.channel, item.bytes, now_);
                    break;
                case Mail::Kind::state:
                    node->cluster->on_bus_state(item.state, now_);
                    break;
                case Mail::Kind::subscribed:
                    node->cluster->on_subscribed(item.channel, now_);
                    break;
            }
        }
        auto requests = std::exchange(node->catch_up.requests, {});
        for (const auto& [game, after] : requests) {
            moved = true;
            if (!database_up_) {
                node->cluster->relay().on_catch_up(game, unexpected(std::string("database down")),
                                                   now_);
                continue;
            }
            std::vector<Event> events;
            for (const auto& stored : games_[game].events) {
                if (stored.seq > after && events.size() < kCatchUpPage) {
                    events.push_back(
                        {game, stored.seq, stored.owner, stored.epoch, stored.message, {}, 0});
                }
            }
            node->cluster->relay().on_catch_up(game, std::move(events), now_);
        }
    }
    return moved;
}

void TestCluster::pump() {
    for (int round = 0; round < 10000; ++round) {
        fence();
        if (!drain_once()) {
            return;
        }
    }
    throw std::runtime_error("the cluster did not settle");
}

void TestCluster::advance(Millis step, Millis slice) {
    while (step.count() > 0) {
        const auto next = std::min(step, slice);
        step -= next;
        now_ += next;
        for (auto& [name, node] : nodes_) {
            node->cluster->tick(now_);
        }
        pump();
    }
}

void TestCluster::set_broker_up(bool up) {
    std::uint64_t states_before = 0;
    {
        const std::lock_guard lock(mutex_);
        states_before = states_seen_;
    }
    loopback_->set_broker_up(up);
    broker_up_ = up;
    {
        std::unique_lock lock(mutex_);
        if (!fenced_.wait_for(lock, std::chrono::seconds(5),
                              [&] { return states_seen_ > states_before; })) {
            throw std::runtime_error("the loopback bus did not report its state");
        }
    }
    pump();
}

}  // namespace arbiter::server::cluster::testing
