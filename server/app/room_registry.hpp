#pragma once
/// \file
/// The rooms in memory, by game id. A request for a game that is not in memory brings it back
/// from storage, on the reader thread, and waits for it with any other request for it that
/// arrives meanwhile; a room with nobody in it leaves memory, and a request that reaches it after
/// that is routed again. Through all of it a connection's requests reach their room in the order
/// they were sent (protocol.md, Transport). A game that left memory with its clock running is
/// brought back when its flag falls, by one timer for all of them, and flags as it loads.

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "common/core/expected.hpp"
#include "server/app/flag_deadlines.hpp"
#include "server/app/read_worker.hpp"
#include "server/app/replies.hpp"
#include "server/app/room.hpp"

namespace arbiter::server::app {

/// How a cluster node serves a game that is not in its memory (cluster_node.hpp): it may own it,
/// adopt it, or forward requests to the node that owns it. A single node has none.
class GameClaims {
  public:
    /// Another node owns the game, with a live lease.
    struct Elsewhere {
        std::string node;
    };
    /// The game, stored and now this node's (nullopt: not stored), or the node that owns it.
    using Claim = std::variant<std::optional<storage::StoredGame>, Elsewhere>;

    GameClaims() = default;
    GameClaims(const GameClaims&) = delete;
    GameClaims& operator=(const GameClaims&) = delete;
    GameClaims(GameClaims&&) = delete;
    GameClaims& operator=(GameClaims&&) = delete;
    virtual ~GameClaims() = default;

    /// On the reader thread: reads `game` if this node owns it, adopts it if no live node does,
    /// or names its owner.
    virtual Expected<Claim, storage::StorageError> claim(const std::string& game) = 0;
    /// Under the registry's lock, for a game not in memory: sends `request` on to the owner this
    /// node knows of (without reading the database) and says so; false when it knows none.
    virtual bool forward_known(RoomRequest& request) = 0;
    /// Under the registry's lock: sends `request` on to `owner`, as claim() named it.
    virtual void forward(RoomRequest request, const std::string& owner) = 0;
};

/// The rooms in memory. Thread-safe.
class RoomRegistry {
  public:
    /// Makes the executor (strand) of each room brought back.
    using ExecutorFactory = std::function<std::shared_ptr<Executor>()>;

    /// `context`: what the rooms brought back are made with. `reads`: where storage is read.
    RoomRegistry(RoomContext& context, ExecutorFactory make_executor, ReadQueue& reads,
                 Replies& replies);

    /// What restore_unfinished() brought back.
    struct Restored {
        std::size_t games = 0;
        /// Stored games that do not replay (a move the rules refuse, a position that does not
        /// parse): each is logged as `game_not_restored` and left in storage as it is; a request
        /// for it is refused as `unavailable`, as when it is read later. The others go on.
        std::size_t not_restored = 0;
    };
    /// Loads every unfinished game from storage (at start), or returns the storage error.
    Expected<Restored, std::string> restore_unfinished();

    /// A cluster node's claims (before any request): games not in memory are served through
    /// them. Never set on a single node.
    void set_claims(GameClaims* claims) noexcept { claims_ = claims; }
    /// A game this node adopted (a cluster node's sweep): its room is rebuilt and started, unless
    /// the game is in memory or on its way there already. False when it does not replay.
    bool adopt(storage::StoredGame game);
    /// Every room leaves memory at once, its members' connections closed with 1012 (`reason`):
    /// this node no longer owns its games (its lease was lost, or it handed them over). The ids of
    /// the games dropped.
    std::vector<std::string> evict_all(const std::string& reason);
    /// `room` leaves memory the same way, if it is still `game`'s: a write of it was fenced, so
    /// another node owns the game now. False when it had left already.
    bool evict(const std::string& game, const GameRoom* room, const std::string& reason);
    /// A graceful stop: the node hands its games over and its network closes every connection
    /// with 1001 (going away) next. From now on evict() keeps the room: its members hear that
    /// close, not 1012.
    void keep_rooms_until_stop();

    /// A new game's room (create, rematch): findable from now on. Before its begin_creation(), so
    /// that no answer to the creation can outrun it.
    void add(const std::shared_ptr<GameRoom>& room);
    /// Hands a game request to its room, bringing the game back from storage first when it is not
    /// in memory; refuses it (unknown_game, unavailable) otherwise. Says whether it went (or is to
    /// go) to a room.
    bool route(RoomRequest request);
    /// An `unwatch`: the connection leaves the game now, or after the request that is bringing
    /// it back into memory. A game not in memory has nobody in it: nothing to leave.
    void unwatch(RoomRequest request);
    /// Drops `room` from memory if it is the one held for `game` and no request is on its way to
    /// it (RoomHost::unload_room); says whether it did. With `flag_at`, the game is brought back
    /// then (if nothing brought it back before), so that its flag falls on time.
    bool unload(const std::string& game, const GameRoom* room,
                std::optional<FlagDeadlines::TimePoint> flag_at = std::nullopt);
    /// Games out of memory whose clock runs (waiting for their flag deadline), for /metrics.
    std::size_t parked() const;

    /// The room of a game if it is in memory; nullptr otherwise (never reads storage).
    std::shared_ptr<GameRoom> find(const std::string& game) const;
    /// Which seats of `game` have a connection now (none when it is not in memory).
    std::array<bool, 2> seats_present(const std::string& game) const;
    /// Rooms in memory, in all and by (status, variant), for /metrics.
    std::size_t size() const;
    std::map<std::pair<std::string, std::string>, std::size_t> by_status_and_variant() const;

    /// After the network has stopped: every game in play stores its clocks as they stand.
    void store_clocks_at_stop();
    /// Drops every room, after the network has stopped (GameRoom::detach).
    void close();
    ~RoomRegistry();
    RoomRegistry(const RoomRegistry&) = delete;
    RoomRegistry& operator=(const RoomRegistry&) = delete;

  private:
    /// route() for a game not in memory: the request waits for the game's read, with any other
    /// request for it that arrives meanwhile, in arrival order.
    bool route_after_load(const std::string& game, RoomRequest request);
    /// On the reader thread: reads `game` and hands it the requests waiting for it.
    void bring_back(const std::string& game);
    /// The stored game (a single node), or what the claims make of it (a cluster node).
    Expected<GameClaims::Claim, storage::StorageError> read_or_claim(const std::string& game);
    /// Hands the requests that waited for `game` to `room`, in arrival order (under mutex_).
    static void hand_over(GameRoom& room, std::vector<RoomRequest> waiting);
    /// (Re)arms the deadline timer for the earliest parked deadline, if it is not armed for it
    /// already (under mutex_).
    void arm_deadline_timer();
    /// The deadline timer fired: brings back every parked game whose flag fell.
    void on_deadline_timer();

    RoomContext& context_;
    ExecutorFactory make_executor_;
    ReadQueue& reads_;
    Replies& replies_;
    GameClaims* claims_ = nullptr;

    /// Reads of a game from storage without the lock before bring_back reads under it.
    static constexpr int kMaxUnlockedLoads = 3;

    /// Guards rooms_, loading_ and departures_. Held while a request is handed to a room
    /// (GameRoom::submit, start, unwatch and leave only post to the room's executor, never run
    /// it inline, and never call back into the hub from there), so that a room found for a
    /// request cannot leave memory before the request is on its way to it. Never held while
    /// calling another part of the hub.
    mutable std::mutex mutex_;
    std::unordered_map<std::string, std::shared_ptr<GameRoom>> rooms_;
    /// Games being read from storage -> the requests (and unwatches) waiting for them, in
    /// arrival order.
    std::unordered_map<std::string, std::vector<RoomRequest>> loading_;
    /// Counts each room that left memory, and each eviction (even of no room: what this node
    /// owns changed), so that bring_back knows whether a read from storage, or a claim, that
    /// began before is still current.
    std::uint64_t departures_ = 0;
    /// The games out of memory whose clock runs, by flag deadline.
    FlagDeadlines parked_;
    /// Runs the one deadline timer for all parked games; made at the first deadline.
    std::shared_ptr<Executor> timer_executor_;
    std::shared_ptr<Timer> deadline_timer_;
    std::optional<FlagDeadlines::TimePoint> timer_due_;  ///< what deadline_timer_ is armed for
    bool closed_ = false;
    bool keep_rooms_ = false;  ///< keep_rooms_until_stop()
    /// A parked game that could not be brought back (the reader is full) is tried again after.
    static constexpr std::chrono::milliseconds kDeadlineRetry{1000};
};

}  // namespace arbiter::server::app
