#pragma once
/// \file
/// What a game's writes mean. Each write to storage says what happened to the game (a move was
/// appended, the game ended, an offer was made ...), with exactly the columns that event
/// changes: the store never compares headers to guess. One intent is one atomic change, and
/// every engine (SQLite today, PostgreSQL later) implements the same set.
///
/// `seq` is the game's last event number after the change; `clock_ms` the remaining time per
/// seat [first, second] as it stands after it (the running turn counted up to the event).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/protocol/messages.hpp"
#include "common/rules/game.hpp"
#include "server/storage/stored_game.hpp"

namespace arbiter::server::storage {

/// How a game ended: status ended (with a result) or aborted (result ongoing).
struct GameEnding {
    protocol::GameStatus status = protocol::GameStatus::ended;
    rules::Outcome result = rules::Outcome::ongoing;
    protocol::EndReason reason = protocol::EndReason::none;
    friend bool operator==(const GameEnding&, const GameEnding&) = default;
};

/// One player's rating after a rated game ended (issue 40).
struct RatingUpdate {
    std::int64_t user_id = 0;
    double rating = 1500.0;
    double deviation = 350.0;
    double volatility = 0.06;
    int diff = 0;             ///< rounded after minus rounded before: games.<seat>_rating_diff
    bool provisional = true;  ///< of the new rating: games.<seat>_rating_after_provisional
    /// The rated games the player's row counted when this was computed (0: no row). The write
    /// is refused `stale` when the row counts another number by then.
    std::int64_t games_before = 0;
    friend bool operator==(const RatingUpdate&, const RatingUpdate&) = default;
};

/// A rated game's end moved both players' ratings in its pool (variant and speed). Written in the
/// same transaction as the end: the `ratings` rows (one more game each, updated at `at_ms`), one
/// `rating_history` row per player, and the game's rating changes.
struct RatingsSettled {
    rules::Variant variant = rules::Variant::chess;
    std::string speed;  ///< "bullet", "blitz", "rapid", "classical"
    std::int64_t at_ms = 0;
    std::array<RatingUpdate, 2> seats{};  ///< [first, second]
    friend bool operator==(const RatingsSettled&, const RatingsSettled&) = default;
};

/// A new game: its whole row, inserted. Its moves come later, one AppendMove each.
struct CreateGame {
    GameRow header;
};

/// A player took the open seat `side`: the game is now playing.
struct SeatPlayer {
    std::string game;
    rules::Side side = rules::Side::first;
    SeatRow seat;
    std::uint64_t seq = 0;
    std::int64_t updated_ms = 0;
};

/// A move was played: `move` is the next ply (move.ply == plies before + 1), the game's ply
/// becomes move.ply, every open offer lapses (protocol.md), the clocks are `clock_ms`,
/// updated_ms is move.played_ms. When the move ended the game (checkmate, a draw by rule),
/// `ending` says how, in the same change; `seq` is then the `ended` event's number (one past
/// move.seq), else move.seq.
struct AppendMove {
    std::string game;
    MoveRow move;
    std::array<std::int64_t, 2> clock_ms{};
    std::uint64_t seq = 0;
    std::optional<GameEnding> ending;
    /// The move ended a rated game: its players' new ratings, stored with it.
    std::optional<RatingsSettled> ratings = std::nullopt;
};

/// Moves were taken back on agreement: every move after `to_ply` is deleted, the game's ply
/// becomes `to_ply`, its offers lapse, and the clocks are those at the start of that ply.
struct TakeBack {
    std::string game;
    std::uint32_t to_ply = 0;
    std::array<std::int64_t, 2> clock_ms{};
    std::uint64_t seq = 0;
    std::int64_t updated_ms = 0;
};

/// An offer was made or declined: `offers` are the open ones now, in the order they were made.
struct SetOffers {
    std::string game;
    std::vector<protocol::OpenOffer> offers;
    std::array<std::int64_t, 2> clock_ms{};
    std::uint64_t seq = 0;
};

/// An event that changes no column but the game's last event number and the clocks as they
/// stand (a seat's `presence`): a restart then charges the side to move up to this event.
struct RecordEvent {
    std::string game;
    std::array<std::int64_t, 2> clock_ms{};
    std::uint64_t seq = 0;
};

/// A chat message was posted (a `chat` event): its row is inserted, and the game's last event
/// number and clocks are `seq` and `clock_ms`, as for RecordEvent.
struct PostChat {
    std::string game;
    ChatRow message;
    std::array<std::int64_t, 2> clock_ms{};
    std::uint64_t seq = 0;
};

/// The game ended other than by a move (resignation, agreement, timeout, claim, abort, engine
/// failure): its offers lapse (a rematch may be offered from here on).
struct EndGame {
    std::string game;
    GameEnding ending;
    std::array<std::int64_t, 2> clock_ms{};
    std::uint64_t seq = 0;
    std::int64_t updated_ms = 0;
    /// A rated game ended (not aborted): its players' new ratings, stored with the end.
    std::optional<RatingsSettled> ratings = std::nullopt;
};

/// Both players agreed to a rematch: the finished game names the new one; its offers lapse.
struct LinkRematch {
    std::string game;
    std::string next;
    std::uint64_t seq = 0;
};

/// The clocks as they stand, no event: at a clean stop, so that the time the side to move used
/// before the stop is charged after the restart (no `parked_flag`); or as a game whose clock runs
/// leaves memory, with the moment its flag falls (the clock keeps running in storage).
struct StoreClocks {
    std::string game;
    std::array<std::int64_t, 2> clock_ms{};
    std::int64_t updated_ms = 0;
    std::optional<ParkedFlag> parked_flag = std::nullopt;  ///< an initializer: left out at a stop
};

/// Housekeeping, not a game's change: deletes every game aborted (its updated_ms) and created
/// before `before_ms` (Unix ms) that has no move, stored or journaled: games nobody played,
/// which would otherwise stay for good (one client can create thousands). A game with a move is
/// never deleted, whatever its status.
struct PruneAborted {
    std::int64_t before_ms = 0;
};

/// One atomic change to one game (or PruneAborted).
using GameIntent =
    std::variant<CreateGame, SeatPlayer, AppendMove, TakeBack, SetOffers, RecordEvent, EndGame,
                 LinkRematch, StoreClocks, PruneAborted, PostChat>;

/// Where an intent that ends a game keeps the ratings it settles (AppendMove with an ending,
/// EndGame); nullptr for any other intent.
/// (Inline: the app reads intents without linking the storage engines.)
inline std::optional<RatingsSettled>* ratings_of(GameIntent& intent) noexcept {
    if (auto* append = std::get_if<AppendMove>(&intent); append && append->ending) {
        return &append->ratings;
    }
    if (auto* end = std::get_if<EndGame>(&intent)) {
        return &end->ratings;
    }
    return nullptr;
}
/// How the intent ends its game, if it does.
inline std::optional<GameEnding> ending_of(const GameIntent& intent) noexcept {
    if (const auto* append = std::get_if<AppendMove>(&intent)) {
        return append->ending;
    }
    if (const auto* end = std::get_if<EndGame>(&intent)) {
        return end->ending;
    }
    return std::nullopt;
}

/// The game an intent changes; "" for PruneAborted.
const std::string& game_of(const GameIntent& intent) noexcept;

}  // namespace arbiter::server::storage
