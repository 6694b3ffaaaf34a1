#pragma once
/// \file
/// Who asked for a game's `replay` (issue 42): they get the `analysis` progress messages of that
/// game (schema/protocol.md, "Analysis"). Bounded: a connection follows the last
/// kMaxReplaysPerConnection games it replayed, and is forgotten when it closes. Thread-safe: the
/// analysis pool's threads send while the hub's network threads add and forget.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "server/net/peer.hpp"

namespace arbiter::server::app {

class ReplayWatchers {
  public:
    /// The games one connection follows at most; replaying one more forgets its oldest.
    static constexpr std::size_t kMaxReplaysPerConnection = 8;

    /// `peer` asked for the replay of `game`.
    void watch(const std::shared_ptr<net::Peer>& peer, const std::string& game);
    /// The connection `peer_id` closed.
    void forget(std::uint64_t peer_id);
    /// Sends `text` to every connection following `game`; returns how many it was sent to.
    std::size_t send(const std::string& game, const std::shared_ptr<const std::string>& text);
    /// Connections following `game` (tests).
    std::size_t watchers_of(const std::string& game) const;

  private:
    struct Follower {
        std::weak_ptr<net::Peer> peer;
        std::deque<std::string> games;  ///< oldest first
    };
    void drop(std::uint64_t peer_id, const std::string& game);  ///< under the lock

    mutable std::mutex mutex_;
    std::map<std::uint64_t, Follower> followers_;                ///< by connection id
    std::map<std::string, std::vector<std::uint64_t>> by_game_;  ///< connection ids by game
};

}  // namespace arbiter::server::app
