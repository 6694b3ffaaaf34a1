#pragma once
/// \file
/// What goes into the table (table.hpp) and what comes out: the commands, a closed set, each
/// handled by one branch of an exhaustive visit; and the decision, or the refusal.

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/protocol/messages.hpp"
#include "common/rules/game.hpp"
#include "server/app/game_clock.hpp"
#include "server/storage/intents.hpp"

namespace arbiter::server::app {

/// The moment a command is decided: monotonic time for clocks and windows, Unix time for what is
/// stored.
struct Instant {
    std::chrono::steady_clock::time_point steady{};
    std::int64_t unix_ms = 0;
};

/// The seats a connection holds in a game, as the room knows them: the table knows seats, not
/// connections.
struct HeldSeats {
    bool first = false;
    bool second = false;

    /// Only `side`.
    static HeldSeats only(rules::Side side) noexcept {
        return side == rules::Side::first ? HeldSeats{true, false} : HeldSeats{false, true};
    }
    bool holds(rules::Side side) const noexcept {
        return side == rules::Side::first ? first : second;
    }
    /// A seat held, if any (the first when both are).
    std::optional<rules::Side> any() const noexcept {
        if (first) {
            return rules::Side::first;
        }
        return second ? std::optional<rules::Side>(rules::Side::second) : std::nullopt;
    }
    /// The seat a request acts for: `preferred` when held (a connection that holds both seats
    /// acts for either), else the one held, if any.
    std::optional<rules::Side> acting_for(rules::Side preferred) const noexcept {
        return holds(preferred) ? std::optional<rules::Side>(preferred) : any();
    }
};

/// The commands a table decides. A request carries the seats its connection holds and when it
/// arrived (a clock is charged up to then, not up to when the request was handled).
namespace command {

using TimePoint = std::chrono::steady_clock::time_point;

/// A new game's first write.
struct Create {};
/// A restored game resumes: its turn starts now, and an engine answers an offer that was made to
/// it before the stop.
struct Start {};
/// A person takes the open seat of a waiting game.
struct Join {
    std::string name;
    std::string token_hash;  ///< of the token the room issues for the seat
    HeldSeats held;
    /// The account the joiner is signed in as (issue 40); nullopt for a guest.
    std::optional<std::int64_t> user_id = std::nullopt;
    /// Its rating in the game's pool as it stands now (the room asks the rating book); set for
    /// a signed-in joiner of a rated game.
    std::optional<protocol::PlayerRating> rating = std::nullopt;
};
/// A move at `ply`, in wire or display notation.
struct Move {
    HeldSeats held;
    std::string text;
    std::uint32_t ply = 0;
    TimePoint received{};
    /// The round trip of the mover's connection as the server last measured it; nullopt when
    /// none was (an engine's move, a connection not measured yet): no lag is credited then.
    std::optional<std::chrono::milliseconds> round_trip = std::nullopt;
    /// The think time the client reports with the move (`move.think_ms`), if any.
    std::optional<std::int64_t> reported_think_ms = std::nullopt;
};
struct Resign {
    HeldSeats held;
    TimePoint received{};
};
/// An offer, or an answer to the opponent's, of a draw, a takeback or a rematch.
struct Offer {
    HeldSeats held;
    protocol::OfferKind kind = protocol::OfferKind::draw;
    protocol::OfferAction action = protocol::OfferAction::offer;
    TimePoint received{};
    /// For a rematch offered to an engine, which accepts at once: why the connection may have no
    /// more open games (the host knows), or nullopt when it may.
    std::optional<std::string> open_game_refusal;
    /// The id the rematch gets if this accepts one.
    std::string next_game;
};
struct Abort {
    HeldSeats held;
    TimePoint received{};
};
struct Claim {
    HeldSeats held;
    protocol::ClaimKind kind = protocol::ClaimKind::win;
    TimePoint received{};
};
/// A seat's connection went (connected false) or came back: the `presence` event, stored.
struct Presence {
    rules::Side side = rules::Side::first;
    bool connected = false;
};
/// The flag timer fired.
struct FlagFall {};
/// The abandon timer of a waiting game fired.
struct AbandonCheck {};
/// The engine's answer to the question asked at `ply`.
struct EngineMove {
    std::uint32_t ply = 0;
    std::string move;
};
/// A chat message to one of the game's rooms (its text checked by the decoder).
struct Chat {
    HeldSeats held;
    bool watching = false;  ///< the connection watches the game
    protocol::ChatRoom room = protocol::ChatRoom::players;
    std::string name;  ///< the connection's name: a spectator's `from` (a seat's is its own)
    std::string text;
};
/// The engine failed to move at `ply` (crashed, no answer in time, a move the rules refused).
struct EngineFailure {
    std::uint32_t ply = 0;
    std::string why;
};

}  // namespace command

/// Every command a table decides.
using TableCommand = std::variant<command::Create, command::Start, command::Join, command::Move,
                                  command::Resign, command::Offer, command::Abort, command::Claim,
                                  command::Presence, command::FlagFall, command::AbandonCheck,
                                  command::EngineMove, command::EngineFailure, command::Chat>;

/// A request refused: it changed nothing. The code and message are the player's `error`.
struct Refusal {
    protocol::ErrorCode code = protocol::ErrorCode::internal;
    std::string message;
    friend bool operator==(const Refusal&, const Refusal&) = default;
};

/// A chat message as the table keeps it: its line, and the seat that wrote it (nullopt: a
/// spectator), which mutes read.
struct TableChat {
    protocol::ChatLine line;
    std::optional<rules::Side> seat;
};

/// One played ply, beside its wire form in the rules game: what the table needs of it later.
struct PlyRecord {
    std::string notation;     ///< display notation
    Clocks clocks{};          ///< remaining per seat after it, the mover's increment included
    std::uint64_t seq = 0;    ///< the seq of its `moved` event
    std::int64_t lag_ms = 0;  ///< the lag credited to the mover's clock (included in clocks)
    /// The position after it, in the variant's FEN: a re-sent move is answered from it
    /// (Table::moved_event), not by replaying the game up to it.
    std::string position;
};

/// An engine seat failed to move; the room restarts the engine, then asks it again, or (when the
/// decision ends the game) closes it.
struct EngineTrouble {
    rules::Side side = rules::Side::first;
    std::uint32_t failures = 0;  ///< at this ply: 1, or 2 (the last)
    std::string why;
};

/// What a command decided.
class Decision {
  public:
    /// Set when the request itself is refused although the table decided something: its side's
    /// time ran out before it arrived, and the flag falls instead (the events answer nobody).
    std::optional<Refusal> refusal;
    /// The one change to store before anything is applied or sent; nullopt: nothing to store,
    /// apply at once.
    std::optional<storage::GameIntent> intent;
    /// The game events to send once applied, in order.
    std::vector<protocol::ServerBody> events;
    /// The first event is the direct answer to the request (it echoes the request's id).
    bool answers_request = false;
    /// A move re-sent at a past ply: answer with the `moved` event of the move that made this
    /// many plies, as first sent. Nothing changes.
    std::optional<std::uint32_t> resend;
    /// An engine failed (command::EngineFailure).
    std::optional<EngineTrouble> engine_trouble;
    /// Commands to queue once this decision is applied (an engine's answer to an offer, the
    /// creator's absence once a game starts).
    std::vector<TableCommand> then;

  private:
    friend class Table;

    // What apply() changes in the table.
    struct Unchanged {};
    struct TurnStarts {};  ///< a created or restored game: its turn starts
    struct Seated {
        rules::Side side;
        std::string name;
        std::string token_hash;
        std::optional<std::int64_t> user_id;
        std::optional<protocol::PlayerRating> rating;
    };
    struct Played {
        PlyRecord record;
        std::optional<storage::GameEnding> ending;
        /// The move was timed: the mover's lag quota takes the credit (and the round trip).
        bool timed = false;
        rules::Side mover = rules::Side::first;
        std::optional<std::int64_t> round_trip_ms;
    };
    struct Ended {
        storage::GameEnding ending;
        Clocks clocks{};
    };
    struct OffersChanged {
        std::vector<protocol::OpenOffer> offers;
    };
    struct TakenBack {
        std::uint32_t to_ply = 0;
        std::unique_ptr<rules::Game> game;
    };
    struct Rematched {
        std::string next;
    };
    struct EventOnly {};  ///< an event that changes no more than seq (presence)
    struct ChatPosted {
        TableChat chat;
    };
    using Change = std::variant<Unchanged, TurnStarts, Seated, Played, Ended, OffersChanged,
                                TakenBack, Rematched, EventOnly, ChatPosted>;

    Change change_;
    std::uint64_t seq_ = 0;  ///< the game's seq after it
    std::int64_t updated_ms_ = 0;
};

}  // namespace arbiter::server::app
