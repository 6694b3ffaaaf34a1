#pragma once
/// \file
/// ClusterNode: one node's end of the bus. It subscribes the node's inbox, reads every message
/// the bus brings, refuses (and counts) the malformed ones, and routes the rest: an Intent to the
/// Inbox, an Answer to the Forwarder, an Event to the Relay and the Forwarder. It gathers the
/// three parts' counters for /metrics.
///
/// Pure logic: not thread-safe, and time is a value. The server posts the bus's handlers to one
/// strand and calls these from there; tick() when next_deadline() comes.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "server/bus/bus.hpp"
#include "server/cluster/forwarder.hpp"
#include "server/cluster/inbox.hpp"
#include "server/cluster/ownership.hpp"
#include "server/cluster/relay.hpp"

namespace arbiter::server::cluster {

/// Every cluster counter of one node, for /metrics.
struct ClusterCounters {
    ForwarderCounters forwarder;
    RelayCounters relay;
    InboxCounters inbox;
    std::uint64_t malformed = 0;  ///< bus messages refused: bad bytes, or the wrong channel
};

/// What a node's cluster logic needs from the rest of the server.
struct ClusterNodeParts {
    std::string self_node;
    bus::Bus& bus;
    OwnershipLookup& ownership;
    CatchUp& catch_up;
    /// Hands an encoded ServerMessage to a local connection (answers and relayed events).
    std::function<void(ConnectionId connection, const std::string& message)> deliver;
    Inbox::Handler room;  ///< forwarded requests for the games this node owns
    ForwarderLimits forwarder_limits = {};
    RelayLimits relay_limits = {};
    std::uint64_t first_attempt = 1;  ///< see Forwarder
};

/// One node's end of the bus. See the file comment.
class ClusterNode {
  public:
    /// Subscribes `inbox:<self_node>`.
    explicit ClusterNode(ClusterNodeParts parts);

    /// The bus's on_message.
    void on_bus_message(std::string_view channel, std::string_view bytes, TimePoint now);
    /// The bus's on_state.
    void on_bus_state(bus::BusState state, TimePoint now);
    /// The bus's on_subscribed.
    void on_subscribed(std::string_view channel, TimePoint now);
    /// The Forwarder's and the Relay's timers.
    void tick(TimePoint now);
    /// The earlier of the Forwarder's and the Relay's deadlines.
    std::optional<TimePoint> next_deadline() const;

    Forwarder& forwarder() noexcept { return forwarder_; }
    Relay& relay() noexcept { return relay_; }
    Inbox& inbox() noexcept { return inbox_; }
    const std::string& self() const noexcept { return self_; }
    ClusterCounters counters() const;

  private:
    std::string self_;
    std::string inbox_channel_;
    Forwarder forwarder_;
    Relay relay_;
    Inbox inbox_;
    std::uint64_t malformed_ = 0;
};

}  // namespace arbiter::server::cluster
