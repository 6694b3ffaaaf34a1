#include "server/cluster/cluster_node.hpp"

#include <utility>

#include "common/core/overloaded.hpp"

namespace arbiter::server::cluster {

ClusterNode::ClusterNode(ClusterNodeParts parts)
    : self_(parts.self_node),
      inbox_channel_(inbox_channel(parts.self_node)),
      forwarder_(parts.self_node, parts.bus, parts.ownership, parts.deliver, parts.forwarder_limits,
                 parts.first_attempt),
      relay_(parts.bus, parts.catch_up, parts.deliver, parts.relay_limits),
      inbox_(parts.self_node, parts.bus, parts.ownership, std::move(parts.room)) {
    parts.bus.subscribe(inbox_channel_);
}

void ClusterNode::on_bus_message(std::string_view channel, std::string_view bytes, TimePoint now) {
    auto envelope = decode(bytes);
    if (!envelope) {
        ++malformed_;
        return;
    }
    const bool on_inbox = channel == inbox_channel_;
    const auto channel_game = game_of_channel(channel);
    // Each kind has one channel; anything else is a bug or a stranger on the bus, and is counted
    // rather than acted on.
    const bool routed = std::visit(Overloaded{
                                       [&](const Intent& intent) {
                                           if (!on_inbox) {
                                               return false;
                                           }
                                           inbox_.on_intent(intent);
                                           return true;
                                       },
                                       [&](const Answer& answer) {
                                           if (!on_inbox) {
                                               return false;
                                           }
                                           forwarder_.on_answer(answer, now);
                                           return true;
                                       },
                                       [&](const Event& event) {
                                           if (channel_game.empty() || channel_game != event.game) {
                                               return false;
                                           }
                                           forwarder_.on_event(event, now);
                                           relay_.on_event(event, now);
                                           return true;
                                       },
                                   },
                                   envelope.value());
    if (!routed) {
        ++malformed_;
    }
}

void ClusterNode::on_bus_state(bus::BusState state, TimePoint now) {
    relay_.on_bus_state(state, now);
    if (state == bus::BusState::reconnected) {
        forwarder_.on_reconnected(now);
    }
}

void ClusterNode::on_subscribed(std::string_view channel, TimePoint now) {
    if (const auto game = game_of_channel(channel); !game.empty()) {
        relay_.on_subscribed(game, now);
    }
}

void ClusterNode::tick(TimePoint now) {
    forwarder_.tick(now);
    relay_.tick(now);
}

std::optional<TimePoint> ClusterNode::next_deadline() const {
    auto forwarder = forwarder_.next_deadline();
    auto relay = relay_.next_deadline();
    if (forwarder && relay) {
        return std::min(*forwarder, *relay);
    }
    return forwarder ? forwarder : relay;
}

ClusterCounters ClusterNode::counters() const {
    return {forwarder_.counters(), relay_.counters(), inbox_.counters(), malformed_};
}

}  // namespace arbiter::server::cluster
