#pragma once
/// \file
/// Where games live between restarts. The server talks only to GameRepository; SQLite is one
/// implementation (sqlite_repository.hpp), and PostgreSQL can be another without touching rooms.
/// A write is one GameIntent (intents.hpp): what happened to one game, with the columns that
/// changed. Writes are asynchronous and grouped: many games' writes share one transaction, and
/// each write's callback runs only after its transaction committed.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/core/expected.hpp"
#include "common/protocol/messages.hpp"
#include "common/rules/game.hpp"
#include "server/storage/intents.hpp"
#include "server/storage/stored_game.hpp"

namespace arbiter::server::storage {

/// Filters for listing stored games, newest first.
struct GameQuery {
    std::optional<protocol::GameStatus> status;
    std::optional<rules::Variant> variant;
    bool include_private = false;
    std::size_t limit = 50;
    std::optional<std::string> before;  ///< a game id: only games created before it
};

/// The most games a list returns at once, whatever the query's limit (every engine).
inline constexpr std::size_t kMaxListLimit = 200;

class GameRepository {
  public:
    /// Called once the write's transaction committed (ok) or failed (the error); from the
    /// writer's thread, so post back to your own executor before touching your state.
    using Done = std::function<void(Expected<void, StorageError>)>;

    virtual ~GameRepository() = default;

    /// Queues one intent. Writes commit in the order submitted; each call's `done` runs once. A
    /// write that fails changes nothing: an intent for a game that is not stored, an AppendMove
    /// that does not follow the game's last ply or whose ply holds another move. The same move
    /// again at a stored ply is not an error, and changes nothing (a resend).
    virtual void write(GameIntent intent, Done done) = 0;
    /// Commits `intent` now, on the calling thread, when the engine finds that cheaper than
    /// write() and fair to the other writes (the same ordering and durability as write()):
    /// returns its outcome. Otherwise returns nothing and leaves `intent` as it was; write() it.
    /// May block for the commit, so call it only where write()'s callback would have run next
    /// anyway (a room's strand, with the room waiting for this write). The default: nothing.
    virtual std::optional<Expected<void, StorageError>> write_here(GameIntent& /*intent*/) {
        return std::nullopt;
    }
    /// Blocks until every write submitted so far has committed (used at shutdown and in tests).
    virtual void flush() = 0;

    /// Games whose status is waiting or playing, oldest first, with their moves (start-up
    /// reload). Fails if one of them cannot be read as a game (an unknown variant).
    virtual Expected<std::vector<StoredGame>, StorageError> load_unfinished() = 0;
    /// One game with its moves, or nullopt.
    virtual Expected<std::optional<StoredGame>, StorageError> load(const std::string& id) = 0;
    /// Headers only, newest first.
    virtual Expected<std::vector<GameRow>, StorageError> list(const GameQuery& query) = 0;

    /// Whether a write can be taken now.
    virtual bool writable() = 0;
    /// Size of the stored data in bytes, for --max-db-bytes and metrics.
    virtual std::uint64_t size_bytes() = 0;
    /// A consistent copy of the live store into the file `path`.
    virtual Expected<void, StorageError> backup(const std::string& path) = 0;
};

}  // namespace arbiter::server::storage
