#pragma once
/// \file
/// ClusterLink: how a cluster node serves connections whose games another node owns, and games
/// whose players are connected to another node (issue 43; README.md, "Several nodes").
///
/// Any node accepts any socket. The node that holds a connection (its holder) routes each of its
/// game requests to the game's owner: locally when it owns the game, else as an Intent on the
/// owner's inbox. On the owner the connection becomes a RemotePeer: a net::Peer like any other,
/// a member of rooms, whose messages go back to the holder as Deliveries, in order, and which
/// the holder delivers to the socket. So a player on any node sees exactly what a player on the
/// owner sees: the same replies, events, chat rules and seat messages, from the one room.
///
/// The bus (Redis pub/sub) is only the fast path and loses messages by design. Nothing here
/// retries: whenever a message may have been lost, the connection is closed with 1012 (service
/// restart), and its client reconnects and resumes with `since`, from the truth in PostgreSQL
/// (protocol.md, "Reconnecting"). That happens when:
/// - the bus drops (both sides: every forwarded connection and every RemotePeer ends);
/// - the owner of a connection's game is gone (its lease ended: nodes_live());
/// - the holder of a RemotePeer is gone (the owner ends the RemotePeer, its seats go away);
/// - the owner drops a room (it lost its lease, or handed its games over): the room closes its
///   members, and a RemotePeer's close reaches the holder as a Hangup.
/// A move re-sent after the resume is safe: the room answers a ply already played as the first
/// time. Every acknowledgement comes from the owner's room after its commit, fenced by its epoch.
///
/// Besides the forwarding, the link carries the broadcasts (`cluster:all`, which it subscribes
/// with its inbox): what one node changed of the state every node keeps in memory (accounts'
/// sessions and names, ratings, the lobby). broadcast() sends one; another node's reach the
/// BroadcastListener (cluster_fanout.hpp), a node's own are ignored. These too may be lost: the
/// listener heals from PostgreSQL (reconnected, and now and then).
///
/// Thread-safe. Bus handlers (on_bus_message, on_bus_state) run on the bus's thread; the rest on
/// any thread. No lock is held while calling the host or a peer.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/protocol/messages.hpp"
#include "server/app/cluster_host.hpp"
#include "server/app/connections.hpp"
#include "server/app/room.hpp"
#include "server/bus/bus.hpp"
#include "server/cluster/envelope.hpp"
#include "server/net/peer.hpp"
#include "server/net/runtime.hpp"

namespace arbiter::server::app {

/// What the link hands on of the broadcasts. Called on the bus's thread (on_broadcast,
/// on_bus_up) or the sweeper's (on_nodes_live): quick, and never calling the link back
/// synchronously in a way that waits for the bus.
class BroadcastListener {
  public:
    BroadcastListener() = default;
    BroadcastListener(const BroadcastListener&) = delete;
    BroadcastListener& operator=(const BroadcastListener&) = delete;
    BroadcastListener(BroadcastListener&&) = delete;
    BroadcastListener& operator=(BroadcastListener&&) = delete;
    virtual ~BroadcastListener() = default;

    /// Another node's broadcast (is_broadcast), decoded strictly.
    virtual void on_broadcast(cluster::Envelope envelope) = 0;
    /// The bus is up (connected, or reconnected after a drop): whatever was broadcast before
    /// is lost to this node.
    virtual void on_bus_up() = 0;
    /// The nodes whose lease is live now (this one's included).
    virtual void on_nodes_live(const std::vector<std::string>& nodes) = 0;
};

/// Plain monotonic numbers (and two gauges) for /metrics.
struct ClusterLinkCounters {
    std::uint64_t forwarded = 0;         ///< requests sent to another node's room
    std::uint64_t intents = 0;           ///< requests taken from other nodes for a room here
    std::uint64_t deliveries_sent = 0;   ///< messages sent to connections on other nodes
    std::uint64_t deliveries = 0;        ///< messages from other nodes' rooms to local connections
    std::uint64_t not_owner = 0;         ///< requests sent back (a game this node does not own)
    std::uint64_t rerouted = 0;          ///< requests that came back and were routed again
    std::uint64_t hangups = 0;           ///< forwarded connections ended, either way
    std::uint64_t refused = 0;           ///< requests refused: the bus down, or too many hops
    std::uint64_t lost_owner = 0;        ///< local connections closed: their game's owner went
    std::uint64_t malformed = 0;         ///< bus messages that are not envelopes for this node
    std::uint64_t broadcasts_sent = 0;   ///< broadcasts published by this node
    std::uint64_t broadcasts = 0;        ///< other nodes' broadcasts handed to the listener
    std::size_t remote_connections = 0;  ///< other nodes' connections in rooms here (gauge)
    std::size_t forwarded_connections = 0;  ///< local connections in other nodes' games (gauge)
};

/// One node's end of the forwarding. See the file comment.
class ClusterLink : public std::enable_shared_from_this<ClusterLink> {
  public:
    /// Peer ids of RemotePeers start here: far above any local connection's id (the network
    /// counts from 1), so the two never meet in the hub's tables.
    static constexpr std::uint64_t kFirstRemotePeerId = std::uint64_t{1} << 62;
    /// Games whose owner the link remembers; past it, it forgets them all (each is read again).
    static constexpr std::size_t kMaxRememberedOwners = 1U << 17;
    /// A forwarded request with nothing at all back from its owner this long was lost.
    static constexpr std::chrono::seconds kAnswerTimeout{3};

    /// `incarnation`: this process's run of the node (its first lease), which tells a connection
    /// of this run from one of a run before. `executor`: where closes of RemotePeers are
    /// reported to the host, never inside the call that closed them.
    ClusterLink(std::string self_node, std::uint64_t incarnation, ClusterHost& host,
                std::shared_ptr<Executor> executor);

    /// Who hears of other nodes' broadcasts (at most one; before attach). It must outlive the
    /// link's use of the bus (until close()).
    void listen(BroadcastListener& listener);
    /// The bus, once it exists (its handlers call this link; it is made after the link). The
    /// link subscribes its inbox and the broadcast channel.
    void attach(bus::Bus& bus);
    /// Ends every forwarded connection and RemotePeer and stops using the bus (before the bus
    /// and the hub go away).
    void close();
    /// A graceful stop, after the games were handed over: every other node's connection in a
    /// room here ends, its holder told to close it with 1012 (`reason`), so that its client
    /// resumes on the game's new owner.
    void hang_up_all(std::string_view reason);
    /// The node lost its lease and joined again under `incarnation`: the other nodes end every
    /// connection of its earlier run (nodes_live), so every forwarded connection is closed
    /// (1012) and every RemotePeer ends here too, and what it forwards from now on goes as the
    /// new run.
    void rejoined(std::uint64_t incarnation);

    // The bus's handlers.
    void on_bus_message(std::string_view channel, std::string_view bytes);
    void on_bus_state(bus::BusState state);

    /// Publishes `envelope` (a broadcast kind, from this node) to every other node; false when
    /// there is no bus, or it is down (the change is then lost to them until they heal).
    bool broadcast(const cluster::Envelope& envelope);

    // The holder's side.
    /// Whether this node knows `game` to be another node's: the request then goes there (or
    /// is refused, the bus being down) and true is returned.
    bool forward_known(RoomRequest& request);
    /// `request` goes to `owner` (another node), which the database names for its game; the
    /// link remembers that owner. A request of a RemotePeer (another node's connection) is not
    /// forwarded again: it goes back to its holder (NotOwner), which asks the database again.
    void forward(RoomRequest request, const std::string& owner);
    /// A local connection closed: the owners it was forwarded to hear of it.
    void connection_closed(const net::Peer& peer);
    /// Whether `peer` is another node's connection (a RemotePeer of this link).
    static bool is_remote(const net::Peer& peer) noexcept;

    // Both sides.
    /// The nodes whose lease is live now: a local connection forwarded to a node not among them
    /// is closed (1012: its game will be adopted; reconnect and resume), a RemotePeer of a
    /// holder run not among them ends, and owners not among them are forgotten. Called at each
    /// sweep, it also ends every forwarded connection and RemotePeer when the bus dropped a
    /// message since the last call (a full queue): it may have been any of theirs.
    void nodes_live(const std::vector<std::pair<std::string, std::uint64_t>>& live,
                    std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());

    ClusterLinkCounters counters() const;
    const std::string& self() const noexcept { return self_; }

  private:
    class RemotePeer;
    friend class RemotePeer;
    /// A local connection with requests forwarded to other nodes.
    struct Forwarded {
        std::weak_ptr<net::Peer> peer;
        std::set<std::string> owners;
        /// Since when a request of it waits with nothing back (nullopt: none waits).
        std::optional<std::chrono::steady_clock::time_point> unanswered_since;
    };

    void on_intent(cluster::Intent intent);
    void on_delivery(const cluster::Delivery& delivery);
    void on_not_owner(const cluster::NotOwner& refused);
    void on_hangup(const cluster::Hangup& hangup);
    /// A message on the broadcast channel.
    void on_broadcast(std::string_view bytes);
    /// From a RemotePeer: a message for its connection, or its close.
    void deliver(const cluster::Holder& holder, const std::string& message);
    void hang_up(const std::shared_ptr<RemotePeer>& peer, std::uint64_t code,
                 std::string_view reason);
    /// Publishes `envelope` on `node`'s inbox; false when there is no bus, or it is down.
    bool publish(const std::string& node, const cluster::Envelope& envelope);
    /// Ends every RemotePeer and closes every forwarded connection (the bus dropped).
    void end_all(std::string_view reason);
    void refuse(const RoomRequest& request, const std::string& why);

    const std::string self_;
    ClusterHost& host_;

    mutable std::mutex mutex_;
    std::uint64_t incarnation_;  ///< this run of the node (rejoined() moves it on)
    /// Where a RemotePeer's close is reported; released at close(), before the network (whose
    /// strand it is) goes.
    std::shared_ptr<Executor> executor_;
    bus::Bus* bus_ = nullptr;
    BroadcastListener* listener_ = nullptr;
    bool bus_up_ = false;
    bool closed_ = false;
    std::uint64_t bus_dropped_ = 0;  ///< the bus's `dropped` at the last nodes_live()
    std::uint64_t next_remote_id_ = kFirstRemotePeerId;
    std::map<cluster::Holder, std::shared_ptr<RemotePeer>> remotes_;
    /// Holder runs (node, incarnation) whose lease this node saw end: their connections were
    /// ended here, and a request that still comes from one (sent before that node noticed) is
    /// answered with a hangup, never served without the membership it had. The most recent
    /// kMaxDeadRuns.
    std::deque<std::pair<std::string, std::uint64_t>> dead_runs_;
    static constexpr std::size_t kMaxDeadRuns = 1024;
    std::unordered_map<std::uint64_t, Forwarded> forwarded_;  ///< by local peer id
    std::unordered_map<std::string, std::string> owners_;     ///< game -> its owner node
    ClusterLinkCounters counters_;
};

}  // namespace arbiter::server::app
