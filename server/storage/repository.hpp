#pragma once
/// \file
/// Where games live between restarts. The server talks only to GameRepository; SQLite is one
/// implementation (sqlite_repository.hpp), and PostgreSQL can be another without touching rooms.
/// Writes are asynchronous and grouped: many games' writes share one transaction, and each
/// write's callback runs only after its transaction committed.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/core/expected.hpp"
#include "common/rules/game.hpp"

namespace arbiter::server::storage {

/// One seat of a stored game.
struct SeatRow {
    std::string name;        ///< "" while the seat is open
    std::string token_hash;  ///< hex SHA-256 of the seat token; "" while open
    std::string engine;      ///< the engine playing this seat ("stockfish"); "" for a person
    int engine_level = 0;    ///< 1..8 for an engine seat
};

/// The header of a game: everything but its moves.
struct GameRow {
    std::string id;
    rules::Variant variant = rules::Variant::chess;
    std::string initial_position;
    bool is_private = false;
    std::optional<std::int64_t> clock_initial_ms;  ///< both set, or neither (untimed)
    std::optional<std::int64_t> clock_increment_ms;
    std::string status = "waiting";  ///< waiting | playing | ended | aborted
    std::string result;              ///< "1-0" | "0-1" | "1/2-1/2" | ""
    std::string reason;
    std::array<SeatRow, 2> seats;            ///< [first, second]
    std::array<std::int64_t, 2> clock_ms{};  ///< remaining per seat after the last event
    std::uint64_t seq = 0;                   ///< last event number of the game
    std::uint32_t ply = 0;                   ///< plies played
    std::int64_t created_ms = 0;             ///< Unix ms
    std::int64_t updated_ms = 0;
    std::optional<std::string> rematch_of;    ///< the game this one is a rematch of
    std::optional<std::string> rematch_next;  ///< the rematch of this game, once agreed
    /// Offers made and not answered yet: "kind:seat" items joined by ',' in the order they were
    /// made, kind draw|takeback|rematch, seat first|second ("draw:first"); "" for none.
    std::string offers;
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
};

/// A game with all its moves, in ply order.
struct StoredGame {
    GameRow header;
    std::vector<MoveRow> moves;
};

/// One atomic change to one game: the header is written (inserted or replaced); then moves from
/// `truncate_from_ply` on are deleted (a takeback); then `append` is inserted. A MoveRow that
/// already exists at its ply with the same move is not an error (idempotent); with a different move
/// it is.
struct GameWrite {
    GameRow header;
    std::optional<std::uint32_t> truncate_from_ply;
    std::optional<MoveRow> append;
};

/// Filters for listing stored games, newest first.
struct GameQuery {
    std::optional<std::string> status;
    std::optional<rules::Variant> variant;
    bool include_private = false;
    std::size_t limit = 50;
    std::optional<std::string> before;  ///< a game id: only games created before it
};

/// Why storage failed (I/O error, corrupt database, constraint).
struct StorageError {
    std::string message;
};

class GameRepository {
  public:
    /// Called once the write's transaction committed (ok) or failed (the error); from the
    /// writer's thread, so post back to your own executor before touching your state.
    using Done = std::function<void(Expected<void, StorageError>)>;

    virtual ~GameRepository() = default;

    /// Queues a write. Writes commit in the order submitted; each call's `done` runs once.
    virtual void write(GameWrite change, Done done) = 0;
    /// Blocks until every write submitted so far has committed (used at shutdown and in tests).
    virtual void flush() = 0;

    /// Games whose status is waiting or playing, with their moves (start-up reload).
    virtual Expected<std::vector<StoredGame>, StorageError> load_unfinished() = 0;
    /// One game with its moves, or nullopt.
    virtual Expected<std::optional<StoredGame>, StorageError> load(const std::string& id) = 0;
    /// Headers only, newest first.
    virtual Expected<std::vector<GameRow>, StorageError> list(const GameQuery& query) = 0;

    /// Whether a write transaction can be taken now.
    virtual bool writable() = 0;
    /// Size of the database files in bytes (main file plus WAL).
    virtual std::uint64_t size_bytes() = 0;
    /// A consistent copy of the live database into `path` (SQLite online backup).
    virtual Expected<void, StorageError> backup(const std::string& path) = 0;
};

}  // namespace arbiter::server::storage
