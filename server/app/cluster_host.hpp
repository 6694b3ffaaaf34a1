#pragma once
/// \file
/// What a cluster node's link (cluster_link.hpp) asks of the hub: apart, so that the hub, which
/// implements it, does not include the link, its bus and its envelopes.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/protocol/messages.hpp"
#include "server/app/connections.hpp"
#include "server/net/peer.hpp"

namespace arbiter::server::app {

/// What the link asks of the hub.
class ClusterHost {
  public:
    ClusterHost() = default;
    ClusterHost(const ClusterHost&) = delete;
    ClusterHost& operator=(const ClusterHost&) = delete;
    ClusterHost(ClusterHost&&) = delete;
    ClusterHost& operator=(ClusterHost&&) = delete;
    virtual ~ClusterHost() = default;

    /// A connection of another node sent its first request here: opened as a local one is.
    virtual void remote_opened(const std::shared_ptr<net::Peer>& peer) = 0;
    /// That connection ended: it leaves every game here, as a local one that closed.
    virtual void remote_closed(const std::shared_ptr<net::Peer>& peer) = 0;
    /// A game request forwarded here by its holder, as the connection named `name` and signed in
    /// as `user` (both as the holder knows them; empty: not given with this request).
    virtual void remote_request(const std::shared_ptr<net::Peer>& peer,
                                protocol::ClientMessage message, std::string name,
                                std::optional<AccountUser> user, std::uint64_t hops) = 0;
    /// A local connection's request came back: the node it went to does not own the game. Route
    /// it again (`hops` times so far).
    virtual void request_again(const std::shared_ptr<net::Peer>& peer,
                               protocol::ClientMessage message, std::uint64_t hops) = 0;
};

}  // namespace arbiter::server::app
