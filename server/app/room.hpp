#pragma once
/// \file
/// GameRoom: the one owner of one game. Sessions post requests; the room runs them one at a time
/// on its own executor, validates with the rules, makes every change durable through the
/// repository, and only after the commit applies it and tells players and spectators.

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

#include "common/protocol/messages.hpp"
#include "common/rules/game.hpp"
#include "server/app/game_clock.hpp"
#include "server/app/seat_agent.hpp"
#include "server/net/peer.hpp"
#include "server/net/runtime.hpp"
#include "server/storage/repository.hpp"

namespace arbiter::server::app {

class Metrics;

/// `text` (an encoded server message, a JSON object) with `"id": <id>` as its first member: the
/// requester's copy of a broadcast event.
std::string with_request_id(const std::string& text, const std::string& id);

/// Whether a game status is "ended" or "aborted": the game is over and takes no more moves.
inline bool is_finished(std::string_view status) noexcept {
    return status == "ended" || status == "aborted";
}

/// Settings shared by every room.
struct RoomConfig {
    /// After a player leaves: before the opponent may claim, before a waiting game whose creator
    /// left is aborted, and before an untimed game nobody is in leaves memory.
    std::chrono::milliseconds disconnect_timeout{60'000};
    std::size_t event_history = 256;  ///< events kept for `since` replays
    std::size_t max_pending = 256;    ///< requests queued behind a commit before refusing
};

/// A request from a connection, as the hub hands it to a room.
struct RoomRequest {
    std::shared_ptr<net::Peer> peer;
    std::optional<std::string> id;  ///< echoed by the direct reply
    protocol::ClientBody body;
    std::string player_name;  ///< from `hello`, or a default
    std::chrono::steady_clock::time_point received;
};

/// What a reply reads of a request: who asked, the id it echoes, when it arrived, and whether it
/// was a move (for the refusal counters). A write's callback keeps this, not the whole request
/// (its body and name, moved along each hand-off of the commit). Converts from the request, so
/// that persist_then() takes either.
struct RequestOrigin {
    RequestOrigin(const RoomRequest& request);  // NOLINT(google-explicit-constructor)

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
    /// it did. Storage has all of it; the next request for the game brings it back.
    virtual bool unload_room(const std::string& game, const GameRoom* room) = 0;
    /// A request that reached a room after it was unloaded: route it again.
    virtual void reroute(RoomRequest request) = 0;
};

/// Everything a room uses, shared by all rooms.
struct RoomContext {
    storage::GameRepository& repository;
    const TimeSource& time;
    RoomHost& host;
    Metrics& metrics;
    RoomConfig config;
    EngineDirectory* engines = nullptr;  ///< nullptr: no engine seats (they fall to nobody)
};

class GameRoom : public std::enable_shared_from_this<GameRoom> {
  public:
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
    /// The status ("waiting", "playing", "ended", "aborted") and variant last listed; any
    /// thread may read them (for /metrics).
    std::string_view listed_status() const noexcept;
    rules::Variant variant() const noexcept { return variant_; }
    /// Whether each seat has a connection (or an engine) at the moment; any thread may ask (for
    /// `games` and `replay`, which read the rest from storage).
    std::array<bool, 2> seats_present() const noexcept;

    /// Drops queued work, members and timers, so that nothing the room holds keeps it (or the
    /// network) alive. Only for shutdown, once no thread runs the room's executor any more.
    void detach();
    /// At a clean shutdown, before detach(): stores the clocks as they stand, so that the time
    /// the side to move used before the stop is charged after the restart. Nothing for a game
    /// without a running clock, or with a write in flight or queued (its header is not settled;
    /// that turn is then not charged, as after a crash).
    void store_clocks_at_stop();

    GameRoom(RoomContext& context, std::shared_ptr<Executor> executor, storage::GameRow header,
             std::unique_ptr<rules::Game> game);

  private:
    /// create()'s first write, until begin_creation() starts it.
    std::function<void()> creation_;

    struct Member {
        std::shared_ptr<net::Peer> peer;
        std::optional<rules::Side> seat;  ///< nullopt: spectator
    };
    struct SeatState {
        std::optional<std::chrono::steady_clock::time_point> disconnected_since;
    };
    struct Offer {
        protocol::OfferKind kind;
        rules::Side by;
    };
    /// The open offers: header_.offers, stored with the game, is their only copy.
    std::vector<Offer> open_offers() const;
    /// `offers` in the stored form of GameRow::offers.
    static std::string stored_offers(const std::vector<Offer>& offers);
    using Task = std::function<void()>;

    // Queueing: one request at a time; a request that writes holds the queue until its commit.
    void enqueue(Task task);
    void run_next();
    /// Stores `change`, then runs `apply` on the room's strand; when the write fails, runs
    /// `undo` instead and answers the requester with `unavailable`.
    void persist_then(storage::GameWrite change, std::optional<RequestOrigin> requester, Task apply,
                      Task undo = {});
    /// The game replayed from its start position through its first `plies` moves; null when
    /// the stored moves no longer replay.
    std::shared_ptr<rules::Game> replayed(std::uint32_t plies) const;
    /// Sets `header.clock_ms` to the clocks as they stand while they run. Every event's header
    /// carries them (not only a move's), so a restart charges the side to move up to the last
    /// event stored: at a clean stop, each seat's going away is one.
    void stamp_clocks(storage::GameRow& header) const;

    void handle(RoomRequest& request);
    void on_join(RoomRequest& request, const protocol::Join& join);
    void on_resume(RoomRequest& request, const protocol::Resume& resume);
    void on_watch(RoomRequest& request, const protocol::Watch& watch);
    void on_move(RoomRequest& request, const protocol::MoveRequest& move);
    /// Whether `text`, a move as a client writes it (wire or display notation), is the move
    /// played at index `ply` (0-based), so that sending it again at `ply` is a re-send.
    bool played_at(std::uint32_t ply, const std::string& text) const;
    void on_resign(RoomRequest& request);
    void on_offer(RoomRequest& request, const protocol::OfferRequest& offer);
    void on_abort(RoomRequest& request);
    void on_claim(RoomRequest& request, const protocol::Claim& claim);
    /// When the side to move's time ran out before `request` arrived: refuses it (game_over) and
    /// ends the game on time, as the flag timer would have; true then.
    bool flag_fell_before(const RoomRequest& request);
    /// The side to move's time has run out: the game ends by timeout, lost for that side, or
    /// drawn if the opponent cannot win (FIDE 6.9). The move check, the other requests' check and
    /// the flag timer all end a game so.
    void end_on_time();
    /// Removes the peer's member entries: all of them, or only its spectator entry.
    void on_leave(const std::shared_ptr<net::Peer>& peer, bool seats_too);
    /// Nobody is in the room: a finished game leaves memory now, one in play after the
    /// disconnect timeout (arm_unload_timer).
    void release_if_empty();
    void on_flag_timer(std::uint32_t ply);
    /// A waiting game's creator has left: unless they are back within the disconnect timeout,
    /// the game is aborted (reason abandoned), leaves the lobby and memory.
    void arm_abandon_timer();
    void on_abandon_timer();
    void cancel_timers();
    /// Asks the host to drop this room from memory (see RoomHost::unload_room); if it did, the
    /// room is marked unloaded: requests still arriving are routed again, the rest is dropped.
    /// Not while a request is queued here or on its way (those are served first, in order). On
    /// the room's strand, with no commit in flight.
    bool leave_memory();
    /// (Re)arms `timer` to run `handler` through the room's queue after `delay`, unless the room
    /// is gone by then.
    void arm_timer(std::shared_ptr<Timer>& timer, std::chrono::milliseconds delay,
                   std::function<void(GameRoom&)> handler);
    /// Nobody is in an unfinished game: unless someone comes within the disconnect timeout, it
    /// leaves memory (an untimed game could otherwise stay for good; a timed one ends by flag).
    void arm_unload_timer();
    void on_unload_timer();
    void on_created(std::array<std::optional<SeatSpec>, 2> seats, std::optional<std::string> id);
    /// After the creation: a seat whose connections closed before the game was stored is away
    /// (presence, and the abandon or claim window from now); a room nobody is in is released.
    void settle_absent_seats();

    // Endings and events.
    void finish(storage::GameRow& header, rules::Outcome outcome, std::string_view reason,
                std::string_view status = "ended");
    void end_game(std::optional<RoomRequest> requester, rules::Outcome outcome, std::string reason,
                  std::string status = "ended");
    void accept_takeback(RoomRequest& request, rules::Side offered_by);
    void accept_rematch(RoomRequest& request);
    /// Encodes a game event once, keeps it in the history, and sends it to every member; the
    /// requester's copy carries its request id.
    void emit(const protocol::ServerBody& event,
              const std::shared_ptr<net::Peer>& requester = nullptr,
              const std::optional<std::string>& id = std::nullopt);
    /// Sends the events after `since` (the first answers `id`) if the history has them all and
    /// there is at least one; false otherwise (the caller sends a state).
    bool replay_since(const std::shared_ptr<net::Peer>& peer, std::optional<std::uint64_t> since,
                      const std::optional<std::string>& id);
    void after_change();
    /// Counts and logs the end of the game (header_ holds the result).
    void note_ended();
    /// The request that arrived at `received` has its reply or broadcast queued: message
    /// latency for /metrics.
    void answered(std::chrono::steady_clock::time_point received);

    // Engine seats (room_engine.cpp).
    void make_agents();
    /// Asks the engine for a move if the game is on and an engine is to move.
    void ask_engine();
    void on_engine_answer(std::uint32_t ply, MoveAnswer answer);
    /// The engine's move request at `ply` was refused (illegal, or not stored).
    void on_engine_refused(std::uint32_t ply, const std::string& why);
    /// One failure of the engine to move: restart and ask again once, then end the game.
    void engine_trouble(const std::string& why);
    /// The engine answers an offer just made to it (declines draws and takebacks, accepts a
    /// rematch).
    void engine_reply_to(const protocol::OfferEvent& offer);
    void close_agents();

    // Views.
    std::optional<rules::Side> seat_of(const net::Peer& peer) const;
    /// The seat `peer` acts for: `preferred` when it holds that one (a connection that resumed
    /// both seats acts for either), else the seat it holds, if any.
    std::optional<rules::Side> seat_of(const net::Peer& peer, rules::Side preferred) const;
    bool seat_connected(rules::Side side) const;
    /// For a player who is away: how long until the opponent may claim (zero once it may);
    /// nullopt while the player is connected, or never left.
    std::optional<std::chrono::milliseconds> claim_opens_in(rules::Side side) const;
    std::uint32_t spectator_count() const;
    protocol::State state_for(std::optional<rules::Side> you) const;
    std::optional<protocol::ClockState> clock_now() const;
    /// The clocks as stored at the start of the turn that just began (events carry these).
    std::optional<protocol::ClockState> clock_reading() const;
    protocol::GameSummary summary() const;
    std::vector<std::string> legal_now() const;
    /// The `moved` event of the last move of `after` (a game of this room, notation_ filled up to
    /// it), whose position is `position` (the caller has it already: the move's stored row):
    /// what on_move sends and what a re-send gets again.
    protocol::Moved moved_event(const rules::Game& after, std::string position, std::uint64_t seq,
                                bool playing, std::optional<protocol::ClockState> clock) const;
    /// The `moved` event of the move that made `ply` plies, as first sent, answering `id`;
    /// nullptr if that move no longer replays.
    std::shared_ptr<const std::string> moved_again(std::uint32_t ply,
                                                   const std::optional<std::string>& id) const;
    std::optional<protocol::PlayerInfo> player(rules::Side side) const;

    // Sending.
    void send(const std::shared_ptr<net::Peer>& peer, protocol::ServerBody body,
              std::optional<std::string> id = std::nullopt);
    void send_state(const std::shared_ptr<net::Peer>& peer, std::optional<std::string> id);
    void reply_error(const RequestOrigin& request, protocol::ErrorCode code, std::string message);
    /// Tells every member the new number of watchers, once per burst of watches and leaves.
    void broadcast_spectators();
    void send_spectator_count();
    /// Makes the peer a member (in `seat`, or a spectator) unless it is one already; false when
    /// its connection has closed meanwhile (then it is not added).
    bool add_member(const std::shared_ptr<net::Peer>& peer, std::optional<rules::Side> seat);
    /// Stores which seats have a connection (or an engine), for readers on other threads.
    void publish_presence();
    /// Calls visit(peer) once for each connection among the members, seat holders first.
    void for_each_connection(
        const std::function<void(const std::shared_ptr<net::Peer>&)>& visit) const;
    void set_presence(rules::Side side, bool connected);
    void arm_flag_timer();
    void start_turn();

    RoomContext& context_;
    std::shared_ptr<Executor> executor_;
    std::string id_;
    storage::GameRow header_;
    std::shared_ptr<rules::Game> game_;
    std::optional<GameClock> clock_;
    std::vector<Clocks> clock_history_;    ///< remaining at the start of each ply
    std::vector<std::string> notation_;    ///< display notation of each move
    std::vector<std::uint64_t> move_seq_;  ///< the seq of the `moved` event of each move
    std::vector<Member> members_;
    std::array<SeatState, 2> seats_;
    /// One game event, encoded once, kept for `since` replays and idempotent move resends.
    struct Event {
        std::uint64_t seq = 0;
        std::uint32_t moved_ply = 0;  ///< for a `moved` event: plies played after it; else 0
        std::shared_ptr<const std::string> text;
    };
    std::deque<Event> history_;  ///< front = oldest
    /// A request from a connection, or the room's own work (a leave, a timer, an engine answer).
    using Queued = std::variant<Task, RoomRequest>;
    std::deque<Queued> pending_;
    std::atomic<std::size_t> requests_in_flight_{0};  ///< see requests_in_flight()
    bool busy_ = false;
    bool spectator_count_posted_ = false;     ///< a send_spectator_count() is on the strand
    std::uint32_t spectator_count_sent_ = 0;  ///< the count last broadcast
    std::shared_ptr<Timer> flag_timer_;
    std::shared_ptr<Timer> abandon_timer_;
    std::shared_ptr<Timer> unload_timer_;
    /// Asks the engine again after its move could not be stored (on_engine_refused).
    std::shared_ptr<Timer> engine_retry_timer_;
    static constexpr std::chrono::milliseconds engine_retry_delay{1000};
    /// Out of the host's memory: requests that still reach it are routed again, other work is
    /// dropped (storage has the game; the room that serves it next is a new one).
    bool unloaded_ = false;
    /// The agents of engine seats (nullptr for a person's seat), and the peer that stands for
    /// them in requests, so that an engine's move goes through on_move like anyone's.
    std::array<std::shared_ptr<SeatAgent>, 2> agents_;
    std::shared_ptr<net::Peer> engine_peer_;
    std::uint32_t engine_failures_ = 0;  ///< failures at engine_failure_ply_
    std::uint32_t engine_failure_ply_ = 0;
    std::optional<std::uint32_t> engine_move_ply_;  ///< the ply of the engine move in flight
    const rules::Variant variant_;
    const std::string rematch_of_;  ///< the game this one is a rematch of ("" if none)
    std::atomic<std::uint8_t> listed_status_{0};  ///< index into the status names
    /// Bit i: seat i has a connection or an engine (publish_presence).
    std::atomic<std::uint8_t> seats_present_{0};
};

}  // namespace arbiter::server::app
