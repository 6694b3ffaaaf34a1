#pragma once
/// \file
/// The WebSocket connections the hub serves: the name each gave in `hello`, and the games each is
/// in. Membership has one owner, the room: it decides who is in it (GameRoom's members) and
/// reports each change through RoomHost::member_joined and member_left, on its own strand. What
/// is kept here is that, indexed by connection, so that a close reaches every room it must; only
/// those reports change it, in each room's order, and a close drops the connection's entry whole.

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "server/app/metrics.hpp"
#include "server/net/peer.hpp"

namespace arbiter::server::app {

/// The account a connection is signed in as (issue 40): by the session cookie its WebSocket
/// upgrade carried, or by `hello {"name", "token"}`.
struct AccountUser {
    std::int64_t id = 0;   ///< users.id
    std::string username;  ///< as registered (shown)
    friend bool operator==(const AccountUser&, const AccountUser&) = default;
};

/// Every open connection, its name, its account and the games it is in. Thread-safe.
class Connections {
  public:
    /// A connection opened.
    void opened(std::uint64_t peer_id);
    /// The connection closed: it is forgotten, and the games it was in are returned (each is to
    /// be told that it left). Reports about it from now on change nothing.
    std::vector<std::string> closed(std::uint64_t peer_id);

    /// The name from its `hello`.
    void set_name(std::uint64_t peer_id, std::string name);
    /// Its name; "Anonymous" before a `hello` (or once closed).
    std::string name_of(std::uint64_t peer_id) const;
    /// Signs the connection in as `user` (its name becomes the username), or out (nullopt: a
    /// guest again, keeping the name).
    void set_user(std::uint64_t peer_id, std::optional<AccountUser> user);
    /// The account it is signed in as; nullopt for a guest (or once closed).
    std::optional<AccountUser> user_of(std::uint64_t peer_id) const;

    /// The room `game` made it a member, in a seat or watching. Returns the other games it was in
    /// before; nullopt when the connection has closed (the room must not keep it then).
    std::optional<std::vector<std::string>> joined(std::uint64_t peer_id, const std::string& game,
                                                   bool seated);
    /// The room `game` took a seat or its watching from it: what it still is there.
    void left(std::uint64_t peer_id, const std::string& game, bool still_seated, bool still_member);

    /// Tells `peer` whether it holds a seat in any game now (Peer::set_player: the outgoing
    /// memory budget closes players last). Under the lock, so that of two rooms reporting at once
    /// the later state is the one the peer keeps; set_player is an atomic store that never calls
    /// back.
    void mark_player(net::Peer& peer) const;

    /// Connections by role: a seat somewhere (player), else a game watched (spectator), else
    /// following `lobby`, else none of these.
    ConnectionRoles roles(const std::set<std::uint64_t>& lobby) const;
    std::size_t size() const;

  private:
    struct Connection {
        std::string name = "Anonymous";
        std::optional<AccountUser> user;
        std::map<std::string, bool> games;  ///< game id -> holds a seat there
    };

    /// Guards connections_. Never held while calling out.
    mutable std::mutex mutex_;
    std::unordered_map<std::uint64_t, Connection> connections_;
};

}  // namespace arbiter::server::app
