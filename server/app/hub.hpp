#pragma once
/// \file
/// The Hub receives every WebSocket connection's messages, decodes them, answers what needs no
/// game (hello, ping, lobby, games, replay, create) and routes the rest to the game's room.
/// It owns the registry of rooms and the lobby of open games.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "server/app/log.hpp"
#include "server/app/metrics.hpp"
#include "server/app/read_worker.hpp"
#include "server/app/room.hpp"
#include "server/app/stored_views.hpp"
#include "server/net/peer.hpp"
#include "server/net/runtime.hpp"
#include "server/storage/repository.hpp"

namespace arbiter::server::app {

/// Per-connection limits the hub enforces.
struct HubConfig {
    double messages_per_second = 20;  ///< sustained rate per connection
    double message_burst = 60;        ///< bucket size
    /// Refused messages in a row (rate-limited) before the connection is closed (1008).
    unsigned max_refused_in_row = 200;
    std::size_t lobby_size = 100;  ///< open games listed at most
    /// Games one connection may have created and not finished, waiting for an opponent or against
    /// an engine; `create` beyond is refused (not_allowed), so that no client can fill memory and
    /// the lobby with games.
    std::size_t max_open_games_per_connection = 8;
    std::string server_name = "arbiter/0.1.0";
    RoomConfig room;
};

class Hub final : public net::PeerHandler, public RoomHost {
  public:
    using ExecutorFactory = std::function<std::shared_ptr<Executor>()>;

    /// `reads`: where reads of stored games run (bringing a game back, replay, games), off the
    /// network threads. `engines`: the engine opponents offered (nullptr: none; create.opponent
    /// is refused).
    Hub(HubConfig config, storage::GameRepository& repository, const TimeSource& time,
        Metrics& metrics, ExecutorFactory make_executor, ReadWorker& reads,
        EngineDirectory* engines = nullptr);

    /// What restore_games() brought back.
    struct Restored {
        std::size_t games = 0;
        /// Stored games that do not replay (a move the rules refuse, a position that does not
        /// parse): each is logged as `game_not_restored` and left in storage as it is; a request
        /// for it is refused as `unavailable`, as when it is read later. The others go on.
        std::size_t not_restored = 0;
    };
    /// Loads every unfinished game from storage, or returns the storage error.
    Expected<Restored, std::string> restore_games();

    // net::PeerHandler
    void on_open(const std::shared_ptr<net::Peer>& peer) override;
    void on_message(const std::shared_ptr<net::Peer>& peer, std::string_view text) override;
    void on_too_large(const std::shared_ptr<net::Peer>& peer) override;
    void on_close(const std::shared_ptr<net::Peer>& peer) override;

    // RoomHost
    void listing_changed(const protocol::GameSummary& summary, bool is_private) override;
    void start_rematch(const storage::GameRow& finished, const std::string& id,
                       std::array<SeatSpec, 2> seats) override;
    /// Also forgets the games `peer` created that are no longer open.
    std::optional<std::string> open_game_refusal(const std::shared_ptr<net::Peer>& peer) override;
    /// Also leaves the finished games the peer was in, but `rematch_of` (see leave_finished).
    bool member_joined(const std::shared_ptr<net::Peer>& peer, const std::string& game, bool seated,
                       const std::string& rematch_of) override;
    void member_left(const std::shared_ptr<net::Peer>& peer, const std::string& game,
                     bool still_seated, bool still_member) override;
    bool unload_room(const std::string& game, const GameRoom* room) override;
    void reroute(RoomRequest request) override;

    /// After the network has stopped, before close(): every game in play stores its clocks as
    /// they stand (GameRoom::store_clocks_at_stop).
    void store_clocks_at_stop();
    /// Drops every room and subscription, after the network has stopped: rooms hold their
    /// members' connections, and those hold the network's state, which holds this hub.
    void close();

    /// Rooms in memory, and connections that are players or spectators (for /metrics).
    std::size_t room_count() const;
    std::size_t connection_count() const;
    /// WebSocket connections by role, and rooms in memory by (status, variant), for /metrics.
    ConnectionRoles connection_roles() const;
    std::map<std::pair<std::string, std::string>, std::size_t> games_in_memory() const;

  private:
    struct PeerState {
        std::string name = "Anonymous";
        double tokens = 0;
        std::chrono::steady_clock::time_point refilled{};
        unsigned refused_in_row = 0;
        std::set<std::string> rooms;
        std::set<std::string> seated_in;  ///< the rooms where it holds a seat
        /// Games it created, as long as they may still be open: game id -> against an engine
        /// (open until it ends) or not (open while it waits for a person).
        std::map<std::string, bool> created_open;
    };

    bool admit(const std::shared_ptr<net::Peer>& peer, std::string_view text);
    void reply(const std::shared_ptr<net::Peer>& peer, protocol::ServerBody body,
               const std::optional<std::string>& id);
    void refuse(const std::shared_ptr<net::Peer>& peer, protocol::ErrorCode code,
                std::string message, const std::optional<std::string>& id);
    void on_create(const std::shared_ptr<net::Peer>& peer, const protocol::Create& create,
                   const std::optional<std::string>& id);
    /// Hands a request to its game's room, or refuses it with unknown_game; a game not in memory
    /// is brought back from storage first, on the reader thread. Says whether the request went
    /// (or is to go) to a room.
    bool route(RoomRequest request);
    /// route() for a game not in memory: the request waits for the game's read, with any other
    /// request for it that arrives meanwhile, in arrival order.
    bool route_after_load(const std::string& game, RoomRequest request);
    /// On the reader thread: reads `game` and hands it the requests waiting for it.
    void bring_back(const std::string& game);
    /// Leaves the game now, or after the watch that is bringing it back into memory.
    void unwatch(RoomRequest request);
    /// `peer` stops watching `room` (a seat it holds there stays its own).
    void stop_watching(const std::shared_ptr<net::Peer>& peer, GameRoom& room);
    /// Which seats of `game` have a connection now (none when it is not in memory).
    std::array<bool, 2> seats_present(const std::string& game) const;
    /// Refuses a request because too many reads wait (unavailable), logging a flood of them once
    /// a second rather than each.
    void refuse_busy(const std::shared_ptr<net::Peer>& peer, const std::optional<std::string>& id);
    /// Runs `read` on the reader thread, or refuses the request when too many reads wait.
    void read_stored(const std::shared_ptr<net::Peer>& peer, const std::optional<std::string>& id,
                     std::function<void()> read);
    void on_games(const std::shared_ptr<net::Peer>& peer, const protocol::GamesQuery& query,
                  const std::optional<std::string>& id);
    void on_replay(const std::shared_ptr<net::Peer>& peer, const std::string& game,
                   const std::optional<std::string>& id);
    /// The room of a game if it is in memory; nullptr otherwise (never reads storage).
    std::shared_ptr<GameRoom> room_in_memory(const std::string& game) const;
    /// `peer` entered `entered`: it leaves every finished game among `rooms` (its rooms before),
    /// except `keep`.
    void leave_finished(const std::shared_ptr<net::Peer>& peer, const std::string& entered,
                        const std::string& keep, const std::set<std::string>& rooms);
    std::shared_ptr<const std::string> lobby_text() const;  // under lobby_mutex_
    std::string peer_name(const net::Peer& peer);

    HubConfig config_;
    storage::GameRepository& repository_;
    const TimeSource& time_;
    Metrics& metrics_;
    ExecutorFactory make_executor_;
    ReadWorker& reads_;
    RoomContext room_context_;

    std::atomic<bool> closed_{false};  ///< after close(): connections closing late are ignored
    mutable std::mutex rooms_mutex_;
    std::unordered_map<std::string, std::shared_ptr<GameRoom>> rooms_;
    /// Rooms dropped from memory so far (bring_back: was a read from storage current?).
    std::uint64_t rooms_dropped_ = 0;
    /// Reads of a game from storage without the locks before bring_back reads under them.
    static constexpr int max_unlocked_loads = 3;
    /// Taken before rooms_mutex_ (and that before peers_mutex_) when both are held.
    std::mutex loads_mutex_;
    /// Games being read from storage -> the requests (and unwatches) waiting for them, in
    /// arrival order.
    std::unordered_map<std::string, std::vector<RoomRequest>> loading_;
    /// refuse_busy's log line, at most one a second.
    OncePerSecond busy_log_;

    mutable std::mutex peers_mutex_;
    std::unordered_map<std::uint64_t, PeerState> peers_;

    mutable std::mutex lobby_mutex_;
    std::map<std::string, protocol::GameSummary> open_games_;
    std::map<std::uint64_t, std::weak_ptr<net::Peer>> lobby_subscribers_;
};

}  // namespace arbiter::server::app
