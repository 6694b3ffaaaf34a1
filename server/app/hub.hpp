#pragma once
/// \file
/// The Hub receives every WebSocket connection's messages: it holds each to the client's limits,
/// decodes it, answers what needs no room (hello, ping, lobby, games, replay, create, unwatch)
/// and routes game requests to the room registry. It is also what the rooms see of the rest of
/// the server (RoomHost), and passes each of their reports to the part it concerns.
///
/// Its parts, each thread-safe with one lock of its own: ClientLimits (rates, refusals in a row,
/// open games), Connections (names, and the games each connection is in), Lobby (the open games
/// and their followers) and RoomRegistry (the rooms in memory, bringing stored games back). No two
/// of these locks are ever held together, and none is held while calling another part: there is
/// no lock order to keep. Two are held while handing work on, to keep its order: the registry's
/// while a request is posted to a room's strand, the lobby's while a list is queued to a peer;
/// both calls only queue, and never call back into the hub.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/protocol/messages.hpp"
#include "server/app/aborted_pruner.hpp"
#include "server/app/account_directory.hpp"
#include "server/app/client_limits.hpp"
#include "server/app/cluster_host.hpp"
#include "server/app/connections.hpp"
#include "server/app/lobby.hpp"
#include "server/app/metrics.hpp"
#include "server/app/read_worker.hpp"
#include "server/app/replay_watchers.hpp"
#include "server/app/replies.hpp"
#include "server/app/request_rates.hpp"
#include "server/app/room.hpp"
#include "server/app/room_registry.hpp"
#include "server/net/peer.hpp"
#include "server/net/runtime.hpp"
#include "server/storage/repository.hpp"

namespace arbiter::server::app {

class ClusterLink;

/// The hub's settings, from the command line.
struct HubConfig {
    double messages_per_second = 20;  ///< sustained rate per client (address)
    double message_burst = 60;        ///< bucket size
    /// Refused messages in a row (rate-limited) before the connection is closed (1008).
    unsigned max_refused_in_row = 200;
    std::size_t lobby_size = 100;  ///< open games listed at most
    /// Games one client (address) may have created and not finished, waiting for an opponent or
    /// against an engine; `create` beyond is refused (not_allowed), so that no client can fill
    /// memory and the lobby with games.
    std::size_t max_open_games = 8;
    /// Games one client may create a minute; `create` beyond is refused (rate_limited), so that
    /// no client can fill the database with games it aborts.
    unsigned max_creates_per_minute = 20;
    /// Aborted games nobody played are deleted from storage this long after their abort (zero:
    /// never), so that created and abandoned games do not stay for good (AbortedPruner).
    std::chrono::seconds prune_aborted_after{86'400};
    std::string server_name = "arbiter/0.1.0";
    RoomConfig room;
    /// The chat budget of one connection (protocol.md, Chat): `chat_burst` messages at once, then
    /// `chat_per_second`; a message beyond is refused (rate_limited) with when to try again.
    double chat_per_second = 0.5;
    double chat_burst = 5;
};

/// Dispatch of every connection's messages, and the rooms' host.
class Hub final : public net::PeerHandler, public RoomHost, public ClusterHost {
  public:
    using ExecutorFactory = std::function<std::shared_ptr<Executor>()>;

    /// `make_executor`: a new strand for each room. `reads`: where reads of stored games run
    /// (bringing a game back, replay, games), off the network threads. `engines`: the engine
    /// opponents offered (nullptr: none; create.opponent is refused).
    /// `ratings`: the rating book rated games read and settle (nullptr: no game is rated).
    /// `accounts`: the sessions and registered names that sign connections in and keep guests
    /// off registered names (nullptr: no accounts; every connection is a guest).
    Hub(HubConfig config, storage::GameRepository& repository, const TimeSource& time,
        Metrics& metrics, ExecutorFactory make_executor, ReadQueue& reads,
        EngineDirectory* engines = nullptr, RatingBook* ratings = nullptr,
        const AccountDirectory* accounts = nullptr);

    /// The analysis of `game` moved on: tells the connections that asked for its `replay`
    /// (schema/protocol.md, "Analysis"). Thread-safe: called from the analysis pool's threads.
    void analysis_progress(const protocol::AnalysisProgress& progress);

    using Restored = RoomRegistry::Restored;
    /// Loads every unfinished game from storage, or returns the storage error.
    Expected<Restored, std::string> restore_games();
    /// What restore_games() starts, without loading any game: a cluster node serves only what
    /// it creates and adopts.
    Expected<Restored, std::string> start_without_restore();

    // net::PeerHandler
    void on_open(const std::shared_ptr<net::Peer>& peer) override;
    void on_message(const std::shared_ptr<net::Peer>& peer, std::string_view text) override;
    void on_too_large(const std::shared_ptr<net::Peer>& peer) override;
    void on_close(const std::shared_ptr<net::Peer>& peer) override;

    // RoomHost
    void listing_changed(const protocol::GameSummary& summary, bool is_private) override;
    void start_rematch(const storage::GameRow& finished, const std::string& id,
                       std::array<SeatSpec, 2> seats) override;
    std::optional<std::string> open_game_refusal(const std::shared_ptr<net::Peer>& peer) override;
    /// Also leaves the finished games the peer was in, but `rematch_of` (see leave_finished).
    bool member_joined(const std::shared_ptr<net::Peer>& peer, const std::string& game, bool seated,
                       const std::string& rematch_of) override;
    void member_left(const std::shared_ptr<net::Peer>& peer, const std::string& game,
                     bool still_seated, bool still_member) override;
    bool unload_room(const std::string& game, const GameRoom* room,
                     std::optional<std::chrono::steady_clock::time_point> flag_at) override;
    void reroute(RoomRequest request) override;
    void disown_room(const std::string& game, const GameRoom* room) override;

    // A cluster node (cluster_link.hpp, cluster_node.hpp).
    /// Before the network starts: games not in memory are served through `claims`, and closes
    /// of local connections reach `link`. Both outlive the hub's use of them (close()).
    void set_cluster(GameClaims* claims, ClusterLink* link);
    /// A game the node adopted: its room is rebuilt (RoomRegistry::adopt).
    bool adopt(storage::StoredGame game);
    /// The node owns none of its games any more: every room leaves memory, its members closed
    /// with 1012 (RoomRegistry::evict_all). How many.
    std::size_t evict_all(const std::string& reason);
    /// A graceful stop hands the games over: the rooms stay until the network closes their
    /// members with 1001 (RoomRegistry::keep_rooms_until_stop).
    void keep_rooms_until_stop();
    // ClusterHost
    void remote_opened(const std::shared_ptr<net::Peer>& peer) override;
    void remote_closed(const std::shared_ptr<net::Peer>& peer) override;
    void remote_request(const std::shared_ptr<net::Peer>& peer, protocol::ClientMessage message,
                        std::string name, std::optional<AccountUser> user,
                        std::uint64_t hops) override;
    void request_again(const std::shared_ptr<net::Peer>& peer, protocol::ClientMessage message,
                       std::uint64_t hops) override;

    /// After the network has stopped, before close(): every game in play stores its clocks as
    /// they stand (GameRoom::store_clocks_at_stop).
    void store_clocks_at_stop();
    /// Drops every room and subscription, after the network has stopped: rooms hold their
    /// members' connections, and those hold the network's state, which holds this hub.
    void close();

    /// The lobby, for a cluster node's fan-out (cluster_fanout.hpp): its changes go to the other
    /// nodes, and theirs come in.
    Lobby& lobby() noexcept { return lobby_; }

    /// Rooms in memory, and open WebSocket connections (for /metrics).
    std::size_t room_count() const;
    std::size_t connection_count() const;
    /// WebSocket connections by role, and rooms in memory by (status, variant), for /metrics.
    ConnectionRoles connection_roles() const;
    std::map<std::pair<std::string, std::string>, std::size_t> games_in_memory() const;

  private:
    /// Whom `peer`'s limits count against: its client's address, or the connection itself for a
    /// client on this machine (net::ClientAddress::local).
    static ClientKey client_of(const net::Peer& peer);
    /// Takes a token for the message `text`; refuses it (rate_limited) or closes the connection
    /// (a flood) when there is none.
    bool admit(const std::shared_ptr<net::Peer>& peer, std::string_view text);
    /// Answers `hello`: signs the connection in, names a guest, or refuses (hello_identity.hpp).
    void on_hello(const std::shared_ptr<net::Peer>& peer, const protocol::Hello& hello,
                  const std::optional<std::string>& id);
    /// A connection signed in as an account deleted since becomes a guest.
    void drop_deleted_account(const net::Peer& peer);
    /// Sends the decoded `message` where its type goes; says whether a room took it (the room
    /// then times its answer).
    /// `hops`: RoomRequest::hops of the requests it makes.
    bool dispatch(const std::shared_ptr<net::Peer>& peer, protocol::ClientMessage message,
                  std::chrono::steady_clock::time_point received, std::uint64_t hops = 0);

    // Games (hub_games.cpp).
    void on_create(const std::shared_ptr<net::Peer>& peer, const protocol::Create& create,
                   const std::optional<std::string>& id);
    void on_games(const std::shared_ptr<net::Peer>& peer, const protocol::GamesQuery& query,
                  const std::optional<std::string>& id);
    /// `lobby`: follows the lobby, or answers one page of it (LobbySubscribe::paged).
    void on_lobby(const std::shared_ptr<net::Peer>& peer, const protocol::LobbySubscribe& lobby,
                  const std::optional<std::string>& id);
    void on_replay(const std::shared_ptr<net::Peer>& peer, const std::string& game,
                   const std::optional<std::string>& id);
    /// `chat`: within the connection's chat budget, routed to its game with the connection's
    /// name; beyond it refused (rate_limited) with when to try again. True when routed.
    bool on_chat(const std::shared_ptr<net::Peer>& peer, protocol::ChatRequest& chat,
                 const std::optional<std::string>& id,
                 std::chrono::steady_clock::time_point received, std::uint64_t hops);
    /// Runs `read` on the reader thread, or refuses the request when too many reads wait.
    void read_stored(const std::shared_ptr<net::Peer>& peer, const std::optional<std::string>& id,
                     std::function<void()> read);
    /// Whether a game counted among a client's open games still is (ClientLimits::StillOpen): a
    /// game no longer in memory is over, or nobody is in it (unloaded, or its creation was never
    /// stored), and costs nothing.
    bool still_open(const std::string& game, bool against_engine) const;
    /// `peer` entered `entered`: it leaves every finished game among `games` (its games before),
    /// except `keep`.
    void leave_finished(const std::shared_ptr<net::Peer>& peer, const std::string& entered,
                        const std::string& keep, const std::vector<std::string>& games);

    HubConfig config_;
    const TimeSource& time_;
    Metrics& metrics_;
    ExecutorFactory make_executor_;
    ReadQueue& reads_;
    const AccountDirectory* accounts_;
    RoomContext room_context_;
    Replies replies_;
    ClientLimits limits_;
    /// Chat budgets, by connection id (HubConfig::chat_per_second).
    RequestRates chat_rates_;
    Connections connections_;
    Lobby lobby_;
    /// Who replayed which game: they hear of its analysis.
    ReplayWatchers replay_watchers_;
    RoomRegistry registry_;
    AbortedPruner pruner_;
    ClusterLink* link_ = nullptr;      ///< a cluster node's (set_cluster); nullptr on a single node
    std::atomic<bool> closed_{false};  ///< after close(): connections closing late are ignored
};

}  // namespace arbiter::server::app
