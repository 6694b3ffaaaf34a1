#pragma once
/// \file
/// The lobby: the open public games (waiting for an opponent), newest first, and the connections
/// that follow them (`lobby`). Rooms report each change of their listing; followers get the
/// whole list again after each change that touches it.
///
/// On a cluster (issue 43) the lobby also lists other nodes' open games, as their broadcasts
/// tell (cluster_fanout.hpp): each such listing remembers its node, so that a node gone takes
/// its listings with it. What a stranger on the bus could add is bounded: kMaxRemoteNodes nodes
/// of kMaxListingsPerNode listings each (the oldest of a node goes first).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/protocol/codec.hpp"
#include "common/protocol/messages.hpp"
#include "server/net/peer.hpp"

namespace arbiter::server::app {

/// The open games and their followers. Thread-safe.
class Lobby {
  public:
    /// Other nodes whose listings are held at most.
    static constexpr std::size_t kMaxRemoteNodes = 32;
    /// Listings held of one other node at most; also the most a node sends in a ListingsOf.
    static constexpr std::size_t kMaxListingsPerNode = 1024;

    /// What a local change did to the listing of `game`: listed (or changed) as `summary`, or
    /// unlisted (nullopt).
    using LocalChange =
        std::function<void(const std::string& game, const std::optional<protocol::GameSummary>&)>;

    /// `size`: the open games listed at most (the newest).
    explicit Lobby(std::size_t size) : size_(size) {}

    /// Who is told of each change of this node's listings (changed(), removed()), outside the
    /// lock but in the call that made it (so a room's changes are told in their order). Set
    /// once, before the lobby is shared.
    void on_local_change(LocalChange listener);

    /// `peer` follows the lobby: it gets the list now, answering `id`, then again (without an id)
    /// after each change, until unsubscribe().
    void subscribe(const std::shared_ptr<net::Peer>& peer, const std::optional<std::string>& id);
    /// One page of the open games, newest first: at most `limit`, from the one after `after` (from
    /// the newest without it), with `next` set when more follow. Nullopt when `after` is not
    /// listed (it started, or was aborted, since the page that named it).
    std::optional<protocol::LobbyList> page(std::size_t limit,
                                            const std::optional<std::string>& after) const;
    /// The connection `peer_id` stops following (it closed).
    void unsubscribe(std::uint64_t peer_id);
    /// A game's listing changed (created, seat taken, started, ended): it is listed while it is
    /// public and waiting. Followers hear of it when the list changed.
    void changed(const protocol::GameSummary& summary, bool is_private);
    /// The game left memory: it is no longer listed (a waiting game whose abort could not be
    /// stored has nobody in it to play). Followers hear of it when it was listed.
    void removed(const std::string& game);
    // Other nodes' listings (a cluster).
    /// `node` listed `summary` (open: waiting), or unlisted `game` (nullopt). A game this node
    /// lists itself is left as it is. False when refused: a summary that is not an open listing
    /// of `game`, or a node past kMaxRemoteNodes.
    bool remote_changed(const std::string& node, const std::string& game,
                        const std::optional<protocol::GameSummary>& summary);
    /// Everything `node` lists now: replaces what was held of it (at most kMaxListingsPerNode,
    /// the newest). False when refused, as remote_changed.
    bool remote_replaced(const std::string& node, const std::vector<protocol::GameSummary>& games);
    /// Drops the listings of every node not in `live`.
    void keep_nodes(const std::vector<std::string>& live);
    /// This node's own listings, newest first, at most `limit`.
    std::vector<protocol::GameSummary> local_listings(std::size_t limit) const;
    /// Listings held of other nodes (for tests and gauges).
    std::size_t remote_count() const;

    /// The connections that follow the lobby (for /metrics).
    std::set<std::uint64_t> subscribers() const;
    /// Forgets every game and follower (at shutdown).
    void clear();

  private:
    /// The list as followers get it, encoded once per change; a subscriber's first copy carries
    /// its request id without a second encoding (under mutex_).
    const protocol::SharedMessage& snapshot();
    /// Sends the list, rebuilt, to every follower (under mutex_).
    void publish();
    /// Takes `game` off the list; false when it was not on it (under mutex_).
    bool unlist(const std::string& game);
    /// Lists `summary` as `node`'s, taking the place of any listing of its game (under mutex_).
    void list_remote(const std::string& node, const protocol::GameSummary& summary);
    /// Whether `node`'s listings may be held: known, or room for one more node (under mutex_).
    bool node_fits(const std::string& node) const;
    /// Up to `limit` open games from `from` on, in list order, and `next` when more follow
    /// (under mutex_).
    template <typename Iterator>
    protocol::LobbyList list_from(Iterator from, std::size_t limit) const;

    const std::size_t size_;
    /// Guards everything below. Held while the list is sent: a peer's send() only queues the
    /// frame (it never calls back into the hub), and sending under the lock that made the list
    /// is what keeps a follower from getting two lists in the reverse order of their changes.
    mutable std::mutex mutex_;
    std::map<std::string, protocol::GameSummary> open_games_;  ///< by game id
    /// The open games in list order, newest first (then by id): kept as games come and go, so
    /// that a list reads its first `size_` games and no change sorts them all (8,600 waiting
    /// games made every create and join pay for a copy and a sort of all of them).
    struct Newest {
        bool operator()(const std::pair<std::int64_t, std::string>& a,
                        const std::pair<std::int64_t, std::string>& b) const noexcept {
            return a.first != b.first ? a.first > b.first : a.second < b.second;
        }
    };
    std::set<std::pair<std::int64_t, std::string>, Newest> newest_first_;
    std::optional<protocol::SharedMessage> snapshot_;  ///< empty: not built since the last change
    /// Other nodes' listings: the node of each such game, and each node's games, oldest first.
    std::map<std::string, std::string> remote_node_of_;
    std::map<std::string, std::set<std::pair<std::int64_t, std::string>>> remote_games_;
    LocalChange listener_;
    std::map<std::uint64_t, std::weak_ptr<net::Peer>> subscribers_;
};

}  // namespace arbiter::server::app
