#pragma once
/// \file
/// GameRoom: the one owner of one game, a thin actor around its table (table.hpp). Sessions post
/// requests; the room runs them one at a time on its own executor, has the table decide each,
/// makes the decision's intent durable through the repository, and only after the commit applies
/// it and tells players and spectators. It keeps what the table does not know: the connections,
/// the encoded events, the timers and the engines.

#include <array>
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/protocol/codec.hpp"
#include "common/protocol/messages.hpp"
#include "common/rules/game.hpp"
#include "server/app/connections.hpp"
#include "server/app/rating_book.hpp"
#include "server/app/seat_agent.hpp"
#include "server/app/spectator_notices.hpp"
#include "server/app/table.hpp"
#include "server/net/peer.hpp"
#include "server/net/runtime.hpp"
#include "server/storage/repository.hpp"

namespace arbiter::server::app {

class Metrics;

/// Settings shared by every room.
struct RoomConfig {
    /// After a player leaves: the longest wait before the opponent may claim (claim_window.hpp),
    /// the wait before a waiting game whose creator left is aborted, and before a game
    /// nobody is in leaves memory.
    std::chrono::milliseconds disconnect_timeout{60'000};
    std::size_t event_history = 256;  ///< events kept for `since` replays
    std::size_t max_pending = 256;    ///< requests queued behind a commit before refusing
    /// The least time between two `spectators` counts to a game's members (SpectatorNotices).
    std::chrono::milliseconds spectator_interval{250};
    /// Watchers may write to the spectators' room (--no-spectator-chat turns it off).
    bool spectator_chat = true;
    /// The operator's word list (--chat-words); nullptr: none.
    std::shared_ptr<const ChatWords> chat_words = nullptr;
};

/// A request from a connection, as the hub hands it to a room.
struct RoomRequest {
    std::shared_ptr<net::Peer> peer;
    std::optional<std::string> id;  ///< echoed by the direct reply
    protocol::ClientBody body;
    std::string player_name;  ///< from `hello`, or a default
    std::chrono::steady_clock::time_point received;
    /// The account the connection is signed in as (for join, resume and watch; nullopt
    /// otherwise).
    std::optional<AccountUser> user = std::nullopt;
    /// In a cluster: how many times the request came back from a node that did not own its game
    /// (cluster_link.hpp); bounded, so that it cannot go round for good.
    std::uint64_t hops = 0;
};

/// What a reply reads of a request: who asked, the id it echoes, when it arrived, and whether it
/// was a move (for the refusal counters). A write's callback keeps this, not the whole request.
/// An engine's own commands have an origin without a peer: their refusals are counted, and told
/// to nobody.
struct RequestOrigin {
    RequestOrigin(const RoomRequest& request);  // NOLINT(google-explicit-constructor)
    RequestOrigin(std::chrono::steady_clock::time_point arrived, bool is_move)
        : received(arrived), move(is_move) {}

    std::shared_ptr<net::Peer> peer;
    std::optional<std::string> id;
    std::chrono::steady_clock::time_point received;
    bool move = false;
};

/// A seat of a game about to be created (new game or rematch).
struct SeatSpec {
    std::string name;
    std::string token;  ///< plain token: sent once to the seat's connections, stored hashed
    std::vector<std::shared_ptr<net::Peer>> peers;
    std::string engine;    ///< an engine seat: the engine's name (no peers then); "" for a person
    int engine_level = 0;  ///< 1..8 for an engine seat
    std::optional<std::int64_t> user_id = std::nullopt;  ///< the account playing it
    /// In a rated game: the account's rating in the game's pool now.
    std::optional<protocol::PlayerRating> rating = std::nullopt;
};

class GameRoom;

/// What rooms need from the rest of the server (the hub). A room calls it on its own strand; the
/// host never runs a room's work inside these calls.
class RoomHost {
  public:
    virtual ~RoomHost() = default;
    /// A game's listing changed (created, seat taken, started, ended).
    virtual void listing_changed(const protocol::GameSummary& summary, bool is_private) = 0;
    /// Both players agreed to a rematch, and the finished game names it: create and seat the
    /// new game `id`.
    virtual void start_rematch(const storage::GameRow& finished, const std::string& id,
                               std::array<SeatSpec, 2> seats) = 0;
    /// Why `peer` may not have one more open game (--max-open-games), or nullopt when it may: a
    /// rematch against an engine counts as one it created.
    virtual std::optional<std::string> open_game_refusal(
        const std::shared_ptr<net::Peer>& peer) = 0;
    /// `peer` became a member of room `game` (so that its close reaches the room), in a seat
    /// or as a spectator. `rematch_of`: the game that `game` is a rematch of ("" if none).
    /// False when the connection has closed already: its close went by without this room, so
    /// the room must not keep it as a member.
    virtual bool member_joined(const std::shared_ptr<net::Peer>& peer, const std::string& game,
                               bool seated, const std::string& rematch_of) = 0;
    /// `peer` is less of a member of `game` than it was: it lost its seat to another connection
    /// (resume), stopped watching (unwatch), or left (its connection closed, or it moved on from
    /// the finished game). It may still hold the other seat, or watch. The room is the one owner
    /// of who is in it: with member_joined, this is how the host learns of each change, in the
    /// room's order.
    virtual void member_left(const std::shared_ptr<net::Peer>& peer, const std::string& game,
                             bool still_seated, bool still_member) = 0;
    /// Nobody is in the room and nothing of it is in flight (the game is over, or nobody came for
    /// the disconnect timeout): the host drops `room` from memory if it still holds it for
    /// `game` and no request is on its way to it (GameRoom::requests_in_flight), and says whether
    /// it did. Storage has all of it; the next request for the game brings it back. `flag_at`:
    /// the game's clock runs, and storage has its flag deadline; the host brings the game back
    /// by then if no request did, so that the flag falls on time.
    virtual bool unload_room(const std::string& game, const GameRoom* room,
                             std::optional<std::chrono::steady_clock::time_point> flag_at) = 0;
    /// A request that reached a room after it was unloaded: route it again.
    virtual void reroute(RoomRequest request) = 0;
    /// A write of the room's game was fenced (a cluster node: another node owns the game now):
    /// the room leaves memory at once, its members closed with 1012 to resume at the owner.
    virtual void disown_room(const std::string& game, const GameRoom* room) = 0;
};

/// Everything a room uses, shared by all rooms.
struct RoomContext {
    storage::GameRepository& repository;
    const TimeSource& time;
    RoomHost& host;
    Metrics& metrics;
    RoomConfig config;
    EngineDirectory* engines = nullptr;  ///< nullptr: no engine seats (they fall to nobody)
    /// Where rated games' ratings are read and settled; nullptr: no game is rated (tests).
    RatingBook* ratings = nullptr;
};

class GameRoom : public std::enable_shared_from_this<GameRoom> {
  public:
    /// Writes of one rated end at most, when the players' ratings keep changing under it
    /// (another node rates them meanwhile: StorageError::stale).
    static constexpr int kRatingAttempts = 3;

    /// A new game with one or both seats filled. Inert until begin_creation(), which starts its
    /// first write; on commit each seated peer gets `created`/`joined` and a `state`.
    static std::shared_ptr<GameRoom> create(RoomContext& context,
                                            std::shared_ptr<Executor> executor,
                                            storage::GameRow header,
                                            std::unique_ptr<rules::Game> game,
                                            std::array<std::optional<SeatSpec>, 2> seats,
                                            std::optional<std::string> reply_id);
    /// Starts create()'s first write; once. The hub first makes the room findable and counts it
    /// among its creator's open games, so that no answer to the creation can outrun that.
    void begin_creation();
    /// A stored game brought back into memory (unfinished ones after a restart). Fails when the
    /// stored moves do not replay. Inert until start(): a room read and then found stale is
    /// dropped without having done anything.
    static Expected<std::shared_ptr<GameRoom>, std::string> restore(
        RoomContext& context, std::shared_ptr<Executor> executor, storage::StoredGame stored);
    /// Once the hub holds a restored room: its turn, timers and listing start, before any request
    /// submitted after this call.
    void start();

    /// Queues a request; it runs on the room's executor. The hub calls it under the lock that
    /// unload_room() takes, so that a room a request was handed to stays for it.
    void submit(RoomRequest request);
    /// Requests submitted and not yet in the room's queue. While there are any the room does not
    /// leave memory (RoomHost::unload_room): requests routed again from a room gone could fall
    /// behind a later request of the same connection that found the game out of memory.
    std::size_t requests_in_flight() const noexcept {
        return requests_in_flight_.load(std::memory_order_acquire);
    }
    /// The peer's connection closed, or it moved on from this finished game: it leaves its
    /// seats and stops watching.
    void leave(std::shared_ptr<net::Peer> peer);
    /// The peer stopped watching (`unwatch`); a seat it holds stays its own.
    void unwatch(std::shared_ptr<net::Peer> peer);

    const std::string& id() const noexcept { return id_; }
    /// The status last listed; any thread may read it (for /metrics and the hub's checks).
    protocol::GameStatus listed_status() const noexcept;
    rules::Variant variant() const noexcept { return variant_; }
    /// Whether each seat has a connection (or an engine) at the moment; any thread may ask (for
    /// `games` and `replay`, which read the rest from storage).
    std::array<bool, 2> seats_present() const noexcept;

    /// Drops queued work, members and timers, so that nothing the room holds keeps it (or the
    /// network) alive. Only for shutdown, once no thread runs the room's executor any more.
    void detach();
    /// A cluster node no longer owns this game (registry: evict_all): on the room's strand, its
    /// members' connections are closed with 1012 and `reason` (they reconnect and resume on the
    /// game's new owner), its timers and engines stop, and requests that still reach it are
    /// routed again. It writes nothing more.
    void evict(std::string reason);
    /// At a clean shutdown, before detach(): stores the clocks as they stand, so that the time
    /// the side to move used before the stop is charged after the restart. Nothing for a game
    /// without a running clock, or with a write in flight or queued (that turn is then not
    /// charged, as after a crash).
    void store_clocks_at_stop();

    GameRoom(RoomContext& context, std::shared_ptr<Executor> executor, Table table);

  private:
    struct Member {
        std::shared_ptr<net::Peer> peer;
        std::optional<rules::Side> seat;  ///< nullopt: spectator
        protocol::Watcher watcher = {};   ///< how a spectator is named in `spectators`
    };
    using Task = std::function<void()>;
    /// What runs once a decision is applied and its events are sent (a join's seat, a new game's
    /// first states).
    using Then = std::function<void()>;
    /// What runs instead of Then when the decision's commit failed; it gets the storage error.
    using Failed = std::function<void(const std::string& error)>;

    // The table's commands (room.cpp): decide, commit the intent, then apply and send.
    /// Decides `command`; a refusal is answered to `origin`; a decision is committed (the queue
    /// waits) and then applied, or applied at once when it stores nothing. `if_failed` runs when
    /// the commit fails, once the queue is free again.
    void run(TableCommand command, std::optional<RequestOrigin> origin, Then then = {},
             Failed if_failed = {});
    /// Stores the decision's intent; on commit applies and settles it, on failure discards it,
    /// answers `unavailable` and runs `if_failed`. The queue waits meanwhile.
    /// `attempt`: how many times this decision was written before (a rated end found stale is
    /// rated and written again, up to kRatingAttempts times in all).
    void commit(std::shared_ptr<Decision> decision, std::optional<RequestOrigin> origin, Then then,
                Failed if_failed, std::optional<std::uint32_t> engine_move, int attempt = 0);
    /// After apply(): the events go out, follow-up commands are queued, timers and the engine
    /// catch up with the table.
    void settle(Decision& decision, const std::optional<RequestOrigin>& origin, const Then& then);
    /// A seat's connection went or came back: its `presence`, after any write in flight.
    void presence(rules::Side side, bool connected);
    Instant instant() const;
    /// A decision that ends a rated game (not an abort): the book settles both ratings now, and
    /// the intent and the `ended` event carry them (the table decided the end; the room rates).
    std::optional<Settlement> settle_ratings(Decision& decision);
    /// The rating pool of this game, when it is rated.
    std::optional<Perf> perf() const;

    // Queueing: one command at a time; one whose decision writes holds the queue until its commit.
    void enqueue(Task task);
    void run_next();
    /// Asks the host to drop this room from memory (see RoomHost::unload_room; `flag_at` when
    /// its clock runs); if it did, the room is marked unloaded: requests still arriving are
    /// routed again, the rest is dropped. Not while a request is queued here or on its way
    /// (those are served first, in order). On the room's strand, with no commit in flight.
    bool leave_memory(std::optional<Table::TimePoint> flag_at = std::nullopt);

    // Requests (room_requests.cpp).
    void handle(RoomRequest& request);
    void on_join(RoomRequest& request);
    void on_resume(RoomRequest& request, const protocol::Resume& resume);
    void on_watch(RoomRequest& request, const protocol::Watch& watch);
    void on_move(RoomRequest& request, protocol::MoveRequest& move);
    void on_offer(RoomRequest& request, const protocol::OfferRequest& offer);
    void on_chat(RoomRequest& request, protocol::ChatRequest& chat);
    /// A seat holder mutes or unmutes its opponent's players'-room messages (for the seats it
    /// holds, for the life of the room); answered `chat_muted`.
    void on_chat_mute(RoomRequest& request, const protocol::ChatMute& mute);
    /// Answers a move re-sent at a past ply with the `moved` event of the move that made `ply`
    /// plies, as first sent.
    void answer_resend(const RequestOrigin& origin, std::uint32_t ply);
    void on_created(std::array<std::optional<SeatSpec>, 2> seats,
                    const std::optional<std::string>& id);
    /// The creation could not be stored: there is no such game. Its seats' connections are
    /// answered `unavailable` (the creator by its request's id), and the room leaves memory, so
    /// that nothing of it is found, listed or counted among its creator's open games.
    void on_creation_failed(const std::array<std::optional<SeatSpec>, 2>& seats,
                            const std::optional<std::string>& id, const std::string& error);
    /// The abort of a waiting game whose creator left could not be stored: the room leaves the
    /// lobby and memory rather than stay listed with nobody in it (storage still has the game
    /// waiting: the next request for it, or the next start, brings it back and aborts it then).
    void on_abort_failed();
    /// After the creation: a seat whose connections closed before the game was stored is away
    /// (presence, and the abandon or claim window from now); a room nobody is in is released.
    void settle_absent_seats();
    /// Removes the peer's member entries: all of them, or only its spectator entry.
    void on_leave(const std::shared_ptr<net::Peer>& peer, bool seats_too);
    /// Nobody is in the room: a finished game leaves memory now, one in play after the
    /// disconnect timeout (arm_unload_timer).
    void release_if_empty();
    /// Both players agreed to a rematch of this game: the host creates `next`.
    void start_rematch(const std::string& next);

    // Timers (room_timers.cpp): the deadlines the table names, and the room's own.
    /// Arms (or cancels) the flag and abandon timers for the table's deadlines as they stand.
    void arm_deadlines();
    /// (Re)arms `timer` to run `handler` through the room's queue after `delay`, unless the room
    /// is gone by then.
    void arm_timer(std::shared_ptr<Timer>& timer, std::chrono::milliseconds delay,
                   std::function<void(GameRoom&)> handler);
    /// Nobody is in an unfinished game: unless someone comes within the disconnect timeout, it
    /// leaves memory (a game could otherwise stay for good: an untimed one, or a timed one with
    /// a day on its clock).
    void arm_unload_timer();
    void on_unload_timer();
    /// on_unload_timer() for a game whose clock runs: its clocks and flag deadline are stored
    /// first (Table::clocks_to_park), then it leaves memory, and the host brings it back by the
    /// deadline.
    void park(storage::StoreClocks clocks);
    /// Just brought back: a flag deadline that passed while the game was out of memory falls
    /// now, before any request is served.
    void flag_if_due();
    void cancel_timers();

    // Engine seats (room_engine.cpp).
    void make_agents();
    /// Asks the engine for a move when the table says one is to move and it has not been asked
    /// at that ply (or `again`, after a failure).
    void ask_engine(bool again = false);
    void on_engine_answer(std::uint32_t ply, MoveAnswer answer);
    /// An engine failed (EngineTrouble): counted and logged, restarted, and closed at the last.
    void engine_trouble(const EngineTrouble& trouble);
    /// The engine's move at `ply` could not be stored: asked again a little later, as a person
    /// would send the move again.
    void retry_engine(std::uint32_t ply);
    void close_agents();

    // Views and sending (room_views.cpp).
    /// The seat `peer` is shown as (in its state): the first it took.
    std::optional<rules::Side> seat_of(const net::Peer& peer) const;
    /// Every seat `peer` holds, as the table's commands carry them.
    HeldSeats held_by(const net::Peer& peer) const;
    std::uint32_t spectator_count() const;
    void after_change();
    /// Counts and logs the end of the game.
    void note_ended();
    /// The request that arrived at `received` has its reply or broadcast queued: message
    /// latency for /metrics.
    void answered(const RequestOrigin& origin);
    void send(const std::shared_ptr<net::Peer>& peer, protocol::ServerBody body,
              std::optional<std::string> id = std::nullopt);
    void send_state(const std::shared_ptr<net::Peer>& peer, std::optional<std::string> id);
    void reply_error(const RequestOrigin& request, protocol::ErrorCode code,
                     const std::string& message);
    /// Encodes a game event once, keeps it in the history, and sends it to every member; the
    /// requester's copy carries its request id. A `chat` event is encoded twice, with its text
    /// and without, and each member gets the form it may read (may_read_chat).
    void emit(const protocol::ServerBody& event, const RequestOrigin* requester);
    /// The chat rules' view of `peer`: the seats it holds, and whether it watches.
    ChatMember chat_member(const net::Peer& peer) const;
    struct Event;
    /// emit() of a `chat` event kept as `entry`: each member gets the form it may read.
    void emit_chat(const Event& entry, const std::shared_ptr<net::Peer>& requester,
                   const std::optional<std::string>& id);
    /// Sends the events after `since` (the first answers `id`) if the history has them all and
    /// there is at least one; false otherwise (the caller sends a state).
    bool replay_since(const std::shared_ptr<net::Peer>& peer, std::optional<std::uint64_t> since,
                      const std::optional<std::string>& id);
    /// The number of watchers changed: every member is told the latest count, after the
    /// requests already queued and at most once per RoomConfig::spectator_interval.
    void broadcast_spectators();
    void send_spectator_count();
    /// The count and the watchers as `spectators` names them: the first kMaxListedWatchers in
    /// order of arrival (members_ keeps it), so a list changes least as watchers come and go.
    protocol::SpectatorCount spectator_list() const;
    /// Makes the peer a member (in `seat`, or a spectator) unless it is one already; false when
    /// its connection has closed meanwhile (then it is not added).
    bool add_member(const std::shared_ptr<net::Peer>& peer, std::optional<rules::Side> seat,
                    protocol::Watcher watcher = {});
    /// Tells the table which seats have a connection, and stores it for readers on other threads.
    void publish_presence();
    /// Calls visit(peer) once for each connection among the members, seat holders first.
    void for_each_connection(
        const std::function<void(const std::shared_ptr<net::Peer>&)>& visit) const;

    RoomContext& context_;
    std::shared_ptr<Executor> executor_;
    std::string id_;
    Table table_;
    /// create()'s first write, until begin_creation() starts it.
    std::function<void()> creation_;
    std::vector<Member> members_;
    /// One game event, encoded once, kept for `since` replays and idempotent move resends.
    struct Event {
        std::uint64_t seq = 0;
        std::uint32_t moved_ply = 0;  ///< for a `moved` event: plies played after it; else 0
        protocol::SharedMessage message;
        /// A `chat` event: its form with `text: null`, for members who may not read it.
        struct Chat {
            protocol::SharedMessage hidden;
            protocol::ChatRoom room = protocol::ChatRoom::players;
            std::optional<rules::Side> seat;  ///< the author's; nullopt: a spectator
        };
        std::optional<Chat> chat = std::nullopt;
        /// The form `reader` gets: the text, or (chat it may not read) the hidden one.
        const protocol::SharedMessage& for_reader(const ChatMember& reader,
                                                  protocol::GameStatus status,
                                                  const std::array<bool, 2>& muted) const;
    };
    std::deque<Event> history_;  ///< front = oldest
    /// Seat i muted its opponent's players'-room messages (chat_mute), for the life of the room.
    std::array<bool, 2> chat_muted_{};
    /// A request from a connection, or the room's own work (a leave, a timer, an engine answer).
    using Queued = std::variant<Task, RoomRequest>;
    std::deque<Queued> pending_;
    std::atomic<std::size_t> requests_in_flight_{0};  ///< see requests_in_flight()
    bool busy_ = false;                               ///< a commit is in flight
    SpectatorNotices spectator_notices_;              ///< when the next count goes out
    std::shared_ptr<Timer> spectator_timer_;          ///< a count due later (broadcast_spectators)
    std::shared_ptr<Timer> flag_timer_;
    std::shared_ptr<Timer> abandon_timer_;
    std::optional<Table::TimePoint> flag_armed_;     ///< the deadline flag_timer_ is armed for
    std::optional<Table::TimePoint> abandon_armed_;  ///< the deadline abandon_timer_ is armed for
    std::shared_ptr<Timer> unload_timer_;
    /// Asks the engine again after its move could not be stored (retry_engine).
    std::shared_ptr<Timer> engine_retry_timer_;
    static constexpr std::chrono::milliseconds kEngineRetryDelay{1000};
    /// Out of the host's memory: requests that still reach it are routed again, other work is
    /// dropped (storage has the game; the room that serves it next is a new one).
    bool unloaded_ = false;
    /// Its creation failed to commit: storage has no such game. Requests that still reach the room
    /// are refused `unknown_game`, its own work is dropped, and it leaves memory
    /// (on_creation_failed).
    bool never_stored_ = false;
    /// After a failed abort (on_abort_failed), before the abandon check runs again.
    static constexpr std::chrono::milliseconds kAbortRetryDelay{1000};
    /// The agents of engine seats (nullptr for a person's seat).
    std::array<std::shared_ptr<SeatAgent>, 2> agents_;
    std::optional<EngineTurn> engine_asked_;  ///< the turn the engine was last asked for
    const rules::Variant variant_;
    const std::string rematch_of_;  ///< the game this one is a rematch of ("" if none)
    std::atomic<std::uint8_t> listed_status_{0};  ///< a protocol::GameStatus
    /// Bit i: seat i has a connection or an engine (publish_presence).
    std::atomic<std::uint8_t> seats_present_{0};
};

}  // namespace arbiter::server::app
