#pragma once
/// \file
/// The table: one game's decisions as a value. It holds the rules game, the seats, the clocks as
/// numbers, the open offers and the game's status, result and reason; it takes a command and the
/// time, and answers either a refusal (the error code and message the player gets) or a decision:
/// the one storage intent to commit and the events to send once it is committed. It has no
/// executor, timer, connection, JSON or I/O: the room (room.hpp) queues commands, commits the
/// intent, then applies the decision and sends its events, and arms the timers the table names
/// (flag_falls_at, abandon_at); a timer firing is one more command.
///
/// A decision is applied (apply) after its commit, or discarded (discard) when the commit fails;
/// no other command is decided in between. A move is validated and played once, on the table's
/// own game, in decide(): discard() replays the game without it (O(plies), paid only on a failed
/// commit).

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/core/expected.hpp"
#include "common/protocol/messages.hpp"
#include "common/rules/game.hpp"
#include "server/app/chat_rules.hpp"
#include "server/app/game_clock.hpp"
#include "server/app/lag_tracker.hpp"
#include "server/app/table_commands.hpp"
#include "server/storage/intents.hpp"
#include "server/storage/repository.hpp"

namespace arbiter::server::app {

/// Settings of every table.
struct TableConfig {
    /// After a player leaves: the longest wait before the opponent may claim (a faster time
    /// control waits less: claim_window.hpp), and the wait before a waiting game whose creator
    /// left is aborted.
    std::chrono::milliseconds disconnect_timeout{60'000};
    /// Engine seats are played (the server has engines); without, an engine seat is nobody's.
    bool engines = true;
    /// Watchers may write to the spectators' room (--no-spectator-chat turns it off).
    bool spectator_chat = true;
    /// The operator's word list (--chat-words); nullptr: none.
    std::shared_ptr<const ChatWords> chat_words;
};

/// One seat of the table.
struct TableSeat {
    std::string name;        ///< "" while the seat is open
    std::string token_hash;  ///< "" while the seat is open
    std::string engine;      ///< the engine playing it; "" for a person
    int engine_level = 0;
    bool connected = false;  ///< a connection holds it now (the room says so: set_seat_connected)
    /// Since when its player is away, as announced (a `presence` event, or a restart); nullopt
    /// while connected or never gone.
    std::optional<std::chrono::steady_clock::time_point> away_since;
    /// The account playing it (issue 40); nullopt for a guest, an engine or an open seat.
    std::optional<std::int64_t> user_id = std::nullopt;
    /// In a rated game: the account's rating in the game's pool when it sat down.
    std::optional<protocol::PlayerRating> rating = std::nullopt;

    /// Someone holds the seat (a person or an engine).
    bool taken() const noexcept { return !token_hash.empty(); }
};

/// An engine is to be asked for the move at `ply`.
struct EngineTurn {
    rules::Side side = rules::Side::first;
    std::uint32_t ply = 0;
    friend bool operator==(const EngineTurn&, const EngineTurn&) = default;
};

class Table {
  public:
    using TimePoint = std::chrono::steady_clock::time_point;

    /// A new game from its header (seats filled, seq 1) and its rules game at the start position.
    static Table open(const storage::GameRow& header, std::unique_ptr<rules::Game> game,
                      TableConfig config);
    /// A stored game brought back: its moves replayed, its clocks as stored; players not back
    /// yet count as away from `now`. A game that left memory with its clock running
    /// (clocks_to_park) is charged the time since: the side to move has until its stored flag
    /// deadline, and none left once that passed. Fails when the stored moves do not replay.
    static Expected<Table, std::string> restore(storage::StoredGame stored, TableConfig config,
                                                Instant now);

    /// What `command` decides at `now`: a refusal that changed nothing, or a decision to apply
    /// after its intent (if any) is committed, or to discard when that commit fails.
    Expected<Decision, Refusal> decide(TableCommand command, Instant now);
    /// The decision's intent was committed (or it had none): the table takes its changes; a turn
    /// that begins starts at `now`.
    void apply(Decision& decision, Instant now);
    /// The decision's commit failed: the table is as before it (a move played is taken off).
    void discard(Decision& decision);

    /// The room's word on whether a connection holds `side` now. Takes effect at once; the
    /// `presence` event and the away time follow with command::Presence.
    void set_seat_connected(rules::Side side, bool connected) noexcept;

    // ---- what the game is ----------------------------------------------------------------
    const std::string& id() const noexcept { return id_; }
    rules::Variant variant() const noexcept { return variant_; }
    protocol::GameStatus status() const noexcept { return status_; }
    rules::Outcome result() const noexcept { return result_; }
    protocol::EndReason reason() const noexcept { return reason_; }
    bool is_private() const noexcept { return is_private_; }
    /// The game moves both players' ratings when it ends (not when aborted).
    bool rated() const noexcept { return rated_; }
    const std::optional<protocol::RatingRange>& rating_range() const noexcept {
        return rating_range_;
    }
    /// The start position, as stored.
    const std::string& initial_position() const noexcept { return initial_position_; }
    std::uint64_t seq() const noexcept { return seq_; }
    std::uint32_t ply() const noexcept { return static_cast<std::uint32_t>(plies_.size()); }
    rules::Side turn() const noexcept { return game_->turn(); }
    const rules::Game& game() const noexcept { return *game_; }
    const std::vector<PlyRecord>& plies() const noexcept { return plies_; }
    /// A seat's lag quota (protocol.md, Lag compensation); one of no quota when untimed.
    const LagTracker& lag(rules::Side side) const noexcept;
    const TableSeat& seat(rules::Side side) const noexcept;
    /// A connection holds the seat, or an engine plays it (an engine never disconnects).
    bool seat_connected(rules::Side side) const noexcept;
    /// An engine plays the seat here.
    bool engine_plays(rules::Side side) const noexcept;
    const std::vector<protocol::OpenOffer>& offers() const noexcept { return offers_; }
    const std::optional<protocol::ClockSpec>& time_control() const noexcept { return control_; }
    const std::optional<std::string>& rematch_of() const noexcept { return rematch_of_; }
    const std::optional<std::string>& rematch_next() const noexcept { return rematch_next_; }
    /// The game's header as a storage row (for a new game's CreateGame, and the rematch).
    storage::GameRow row() const;

    // ---- what the room must arm ----------------------------------------------------------
    /// The remaining times at `now`, the running turn counted; zeros when untimed.
    Clocks clocks_at(TimePoint now) const;
    /// When the side to move's time runs out, while its clock runs.
    std::optional<TimePoint> flag_falls_at() const;
    /// When a game nobody plays is aborted (AbandonCheck): a waiting game whose creator is away,
    /// unless they come back; a game between two people whose side to move has not made its
    /// first move (ply 0 or 1) within first_move_time() of its turn's start.
    std::optional<TimePoint> abandon_at() const;
    /// For a player who is away: how long until the opponent may claim (zero once it may);
    /// nullopt while the player is connected, or never left.
    std::optional<std::chrono::milliseconds> claim_opens_in(rules::Side side, TimePoint now) const;
    /// The engine to ask for a move, while the game is on and an engine is to move.
    std::optional<EngineTurn> engine_turn() const;
    /// At a clean stop: the clocks to store while one runs (nothing otherwise).
    std::optional<storage::StoreClocks> clocks_to_store(Instant now) const;
    /// As the game leaves memory while a clock runs: the clocks, and the Unix ms its flag falls
    /// (the clock keeps running in storage; restore() charges it). Nothing otherwise.
    std::optional<storage::StoreClocks> clocks_to_park(Instant now) const;

    // ---- what members see ----------------------------------------------------------------
    /// The `state` for seat `you` (nullopt: a spectator).
    protocol::State state(std::optional<rules::Side> you, std::uint32_t spectators,
                          TimePoint now) const;
    /// The game as listed (lobby, games).
    protocol::GameSummary summary() const;
    /// A seat as others see it; nullopt while open.
    std::optional<protocol::PlayerInfo> player(rules::Side side) const;
    /// The `moved` event of the move that made `ply` plies, as it was first sent (its legal moves
    /// perhaps in another order), rebuilt from its record (O(1) in the game's length); nullopt
    /// when there is no such move.
    std::optional<protocol::Moved> moved_event(std::uint32_t ply) const;
    /// The chat messages kept (the last kKeptChat), oldest first.
    const std::deque<TableChat>& chat() const noexcept { return chat_; }
    /// The last protocol::kStateChatLines messages `reader` may read (may_read_chat), oldest
    /// first: a `state`'s chat.
    std::vector<protocol::ChatLine> chat_for(const ChatMember& reader,
                                             const std::array<bool, 2>& muted) const;
    /// The messages kept in memory: enough for any reader's state once mutes skip some.
    static constexpr std::size_t kKeptChat = storage::kLoadedChat;

  private:
    Table(const storage::GameRow& header, std::unique_ptr<rules::Game> game, TableConfig config);

    using Verdict = Expected<Decision, Refusal>;

    // table_play.cpp
    static Verdict refuse(protocol::ErrorCode code, std::string message);
    Verdict on_move(const command::Move& move, Instant now);
    Verdict play(rules::Side seat, const command::Move& move, Instant now);
    bool played_at(std::uint32_t ply, const std::string& text) const;
    Verdict on_resign(const command::Resign& resign, Instant now);
    Verdict on_abort(const command::Abort& abort, Instant now);
    Verdict on_claim(const command::Claim& claim, Instant now);
    Verdict on_flag_fall(Instant now);
    /// When the side to move's time ran out before `received`: the flag falls (the request is
    /// refused, as in Decision::refusal).
    std::optional<Decision> flag_fell_before(TimePoint received, Instant now) const;
    /// The side to move's time has run out: lost, or drawn if the opponent cannot win (FIDE 6.9).
    Decision end_on_time(Instant now) const;
    /// The game ends: the clocks stop at `stopped` (a request's arrival, or now).
    Decision end_game(rules::Outcome outcome, protocol::EndReason reason, TimePoint stopped,
                      Instant now, protocol::GameStatus status = protocol::GameStatus::ended) const;
    /// The `moved` event of the move `wire` that made `ply` plies, from the game `after` it.
    protocol::Moved moved_event_after(const rules::Game& after, std::uint32_t ply,
                                      const std::string& wire, const PlyRecord& record,
                                      bool playing, std::optional<protocol::ClockState> clock,
                                      rules::MoveRoute route) const;
    /// A game at the position after the first `plies` moves, made from the position their
    /// record keeps (O(1) in the game's length), without the history before it: for what the
    /// position alone decides (the side to move, legal moves, check, reading a move's text).
    /// Null when the position no longer parses.
    std::unique_ptr<rules::Game> position_after(std::uint32_t plies) const;

    // table_chat.cpp
    Verdict on_chat(const command::Chat& chat, Instant now);

    // table_offers.cpp
    Verdict on_offer(const command::Offer& offer, Instant now);
    Verdict accept_takeback(rules::Side offered_by, Instant now);
    Verdict accept_rematch(rules::Side accepter, const command::Offer& offer);

    // table_seats.cpp
    Verdict on_create();
    Verdict on_start(Instant now);
    Verdict on_join(const command::Join& join, Instant now);
    Verdict on_presence(const command::Presence& presence, Instant now);
    Verdict on_abandon_check(Instant now);
    /// When a game between two people is aborted for want of a first move (abandon_at).
    std::optional<TimePoint> first_move_due_at() const;
    Verdict on_engine_move(const command::EngineMove& move, Instant now);
    Verdict on_engine_failure(const command::EngineFailure& failure, Instant now);
    /// The engine's answer to an offer just made to it (none for a person's seat).
    std::optional<TableCommand> engine_reply(protocol::OfferKind kind, rules::Side offered_by,
                                             TimePoint now) const;

    // table.cpp
    /// The clocks at the start of ply `ply` (0: the start).
    Clocks clocks_before(std::uint32_t ply) const;
    /// `clocks` as an event carries them; nullopt when untimed.
    std::optional<protocol::ClockState> reading(const Clocks& clocks, bool running) const;
    void start_turn(TimePoint now);
    /// How long past the side to move's clock reading 0 its flag falls (LagTracker).
    std::int64_t flag_grace_ms() const;
    /// The lag trackers from the credits of the moves played (after a restore or a takeback).
    void rebuild_lag();
    /// The game replayed from its start through its first `plies` moves; null when the moves no
    /// longer replay.
    std::unique_ptr<rules::Game> replayed(std::uint32_t plies) const;

    TableConfig config_;
    std::string id_;
    rules::Variant variant_;
    std::string initial_position_;
    bool is_private_ = false;
    bool rated_ = false;
    std::optional<protocol::RatingRange> rating_range_;
    std::optional<protocol::ClockSpec> control_;
    std::int64_t created_ms_ = 0;
    std::int64_t updated_ms_ = 0;
    std::optional<std::string> rematch_of_;
    std::optional<std::string> rematch_next_;
    protocol::GameStatus status_ = protocol::GameStatus::waiting;
    rules::Outcome result_ = rules::Outcome::ongoing;
    protocol::EndReason reason_ = protocol::EndReason::none;
    std::array<TableSeat, 2> seats_;
    std::uint64_t seq_ = 0;
    std::unique_ptr<rules::Game> game_;
    std::vector<PlyRecord> plies_;
    std::optional<GameClock> clock_;
    /// When the turn under way started (start_turn), timed or not.
    std::optional<TimePoint> turn_since_;
    std::array<LagTracker, 2> lag_{};  ///< per seat, [first, second]
    std::vector<protocol::OpenOffer> offers_;
    std::deque<TableChat> chat_;         ///< the last kKeptChat messages, oldest first
    std::uint32_t engine_failures_ = 0;  ///< failures at engine_failure_ply_
    std::uint32_t engine_failure_ply_ = 0;
    /// A decision is out, neither applied nor discarded: nothing else may be decided.
    bool pending_ = false;
};

}  // namespace arbiter::server::app
