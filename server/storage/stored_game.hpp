#pragma once
/// \file
/// A stored game as every storage engine reads it: its header (GameRow) and its moves (MoveRow).
/// The lifecycle terms are typed here; their text exists only in an engine's rows (for SQLite,
/// game_rows.cpp), so the server compares enums and never strings.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/protocol/messages.hpp"
#include "common/rules/game.hpp"

namespace arbiter::server::storage {

/// Why storage failed (I/O error, corrupt database, constraint, a write that does not apply).
struct StorageError {
    std::string message;
    /// The write would have broken a uniqueness the caller can act on (a username already
    /// taken): not a fault of the store.
    bool taken = false;
    /// A cluster node's write of a game it does not own (any more): another node adopted it, or
    /// the node's lease is not live. Nothing was changed; the node must not retry it, nor
    /// acknowledge it (postgres_lease.hpp).
    bool fenced = false;
    /// A rated end whose ratings were computed from a player's rating row as it no longer
    /// stands (another node rated a game of theirs meanwhile): nothing was changed; rate again
    /// from the stored row and write again.
    bool stale = false;
};

/// One seat of a stored game.
struct SeatRow {
    std::string name;        ///< "" while the seat is open
    std::string token_hash;  ///< hex SHA-256 of the seat token; "" while open
    std::string engine;      ///< the engine playing this seat ("stockfish"); "" for a person
    int engine_level = 0;    ///< 1..8 for an engine seat
    /// The account playing it (users.id); nullopt for a guest, an engine or an open seat.
    std::optional<std::int64_t> user_id = std::nullopt;
    /// In a rated game: the account's rating when it sat down, rounded, and whether it was
    /// provisional then (games.first_rating, first_rating_provisional).
    std::optional<protocol::PlayerRating> rating = std::nullopt;
};

/// A game that left memory with its clock running: when the side to move's flag falls. It holds
/// only while the game's seq is still `seq` (a later event stored newer clocks).
struct ParkedFlag {
    std::int64_t at_ms = 0;  ///< Unix ms
    std::uint64_t seq = 0;   ///< the game's seq when it was stored
    friend bool operator==(const ParkedFlag&, const ParkedFlag&) = default;
};

/// The header of a game: everything but its moves.
struct GameRow {
    std::string id;
    rules::Variant variant = rules::Variant::chess;
    std::string initial_position;
    bool is_private = false;
    std::optional<std::int64_t> clock_initial_ms;  ///< both set, or neither (untimed)
    std::optional<std::int64_t> clock_increment_ms;
    protocol::GameStatus status = protocol::GameStatus::waiting;
    rules::Outcome result = rules::Outcome::ongoing;  ///< ongoing until ended; aborted: ongoing
    protocol::EndReason reason = protocol::EndReason::none;
    std::array<SeatRow, 2> seats;            ///< [first, second]
    std::array<std::int64_t, 2> clock_ms{};  ///< remaining per seat after the last event
    std::uint64_t seq = 0;                   ///< last event number of the game
    std::uint32_t ply = 0;                   ///< plies played
    std::int64_t created_ms = 0;             ///< Unix ms
    std::int64_t updated_ms = 0;
    std::optional<std::string> rematch_of;    ///< the game this one is a rematch of
    std::optional<std::string> rematch_next;  ///< the rematch of this game, once agreed
    /// Offers made and not answered yet, in the order they were made.
    std::vector<protocol::OpenOffer> offers;
    /// Set when the game left memory with its clock running (see ParkedFlag).
    std::optional<ParkedFlag> parked_flag;
    /// The game moves both players' ratings when it ends (not when aborted).
    bool rated = false;
    /// A seek's rating range (either bound optional); nullopt: none.
    std::optional<protocol::RatingRange> rating_range;
    /// Each seat's rating change, once a rated game ended [first, second].
    std::array<std::optional<int>, 2> rating_diffs{};
    /// Whether each seat's new rating was provisional, once a rated game ended (migration 0011).
    std::array<bool, 2> rating_after_provisional{true, true};
};

/// One played move.
struct MoveRow {
    std::uint32_t ply = 0;                 ///< 1-based: the first move is ply 1
    std::string move;                      ///< wire notation
    std::string notation;                  ///< display notation
    std::string position;                  ///< position after the move
    std::optional<std::int64_t> clock_ms;  ///< mover's remaining time after the move (+increment)
    std::optional<std::int64_t> think_ms;
    std::uint64_t seq = 0;       ///< the game event that carried the move
    std::int64_t played_ms = 0;  ///< Unix ms
    /// The side to move after it is in check; unset in rows written before schema version 5.
    std::optional<bool> check;
    /// The lag credited to the mover's clock (protocol.md, Lag compensation), included in
    /// clock_ms; unset for untimed moves and in rows written before schema version 7.
    std::optional<std::int64_t> lag_ms = std::nullopt;
};

/// One chat message of a game (migration 0012), its text as it was sent (masked already).
struct ChatRow {
    std::uint64_t seq = 0;  ///< the `chat` event's number
    protocol::ChatRoom room = protocol::ChatRoom::players;
    std::string from;                 ///< the author's display name
    std::optional<rules::Side> seat;  ///< the author's seat; nullopt for a spectator
    std::string text;
    std::int64_t at_ms = 0;  ///< Unix ms
    friend bool operator==(const ChatRow&, const ChatRow&) = default;
};

/// A game with all its moves, in ply order, and all its chat messages, in seq order.
struct StoredGame {
    GameRow header;
    std::vector<MoveRow> moves;
    std::vector<ChatRow> chat = {};
};
/// The most chat messages a table keeps in memory: enough for every reader's `state.chat`.
inline constexpr std::size_t kLoadedChat = 400;

}  // namespace arbiter::server::storage
