#pragma once
/// \file
/// The rating book: every player's Glicko-2 rating per pool (variant and speed), and the one
/// place in the process where a rating changes (issue 40).
///
/// Why in memory: a rated game's end must store the new ratings in the same transaction as the
/// end itself, and the SQLite writer takes intents that are already decided (intents.hpp). So the
/// room computes them first, synchronously and serialised by this book's lock, from the ratings
/// as they stand in this process, and hands the result to the intent. That holds because one
/// process owns the database (its file lock): nobody else changes a rating meanwhile. It is
/// loaded whole at start (storage::RatingRow) and costs one small entry per player and pool.
/// A settle whose commit then fails is undone (undo).
///
/// On a cluster (issue 43) every node has a book: each rated end a node commits is broadcast and
/// applied by the others (apply), and the book is merged with PostgreSQL's rows when the bus may
/// have lost some (merge; cluster_fanout.hpp). Two rated games of one player ending at once on
/// two nodes: the second to commit finds the player's row counting another number of games than
/// its rating was computed from, and its write is refused `stale` (RatingUpdate::games_before);
/// its room reads the players' rows again (refresh) and rates once more.
///
/// Thread-safe: rooms on different strands settle at once; each settle is one critical section,
/// so two games of one player ending in turn each rate against the rating the other left.

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>
#include <vector>

#include "common/protocol/messages.hpp"
#include "server/app/glicko2.hpp"
#include "server/app/perf.hpp"
#include "server/storage/intents.hpp"
#include "server/storage/player_store.hpp"

namespace arbiter::server::app {

/// A player's standing in one pool.
struct PoolRating {
    glicko2::Rating rating{};
    std::int64_t games = 0;
    std::int64_t updated_ms = 0;  ///< Unix ms of the last rated game's end
    friend bool operator==(const PoolRating&, const PoolRating&) = default;
};

/// What a rated game's end changed, seat by seat [first, second]: enough to store it, show it,
/// and undo it.
struct Settlement {
    Perf perf{};
    std::int64_t at_ms = 0;
    std::array<std::int64_t, 2> users{};
    std::array<glicko2::Rating, 2> before{};  ///< as it stood at the end (deviation grown)
    std::array<PoolRating, 2> after{};
    std::array<std::optional<PoolRating>, 2> previous{};  ///< the entries before (none: default)

    /// The storage part: the rows to write with the end.
    storage::RatingsSettled stored() const;
    /// The wire part: `ended.ratings`.
    protocol::EndRatings shown() const;
};

class RatingBook {
  public:
    /// Reads one player's stored ratings (every pool).
    using Source = std::function<Expected<std::vector<storage::RatingRow>, storage::StorageError>(
        std::int64_t user)>;

    explicit RatingBook(glicko2::Config config = {}) : config_(config) {}

    /// Where refresh() reads (the server's database). Before any game is served.
    void set_source(Source source) { source_ = std::move(source); }
    /// A rated end came back `stale`: `users`' entries in `perf` become their stored rows again
    /// (the database is the truth; none stored: no entry). False when there is no source or a
    /// read failed. Reads the database on the caller's thread: only for that rare race.
    bool refresh(const std::array<std::int64_t, 2>& users, Perf perf);

    /// Takes the stored ratings (at start, before any game is served). Rows of an unknown speed
    /// are skipped.
    void load(const std::vector<storage::RatingRow>& rows);

    /// The player's rating in `perf` as it stands at `now_ms` (deviation grown with the time
    /// since their last rated game: rating_at); Glicko-2's default for a player with none.
    glicko2::Rating current(std::int64_t user, Perf perf, std::int64_t now_ms) const;
    /// As shown beside the name: rounded, and provisional or not.
    protocol::PlayerRating shown(std::int64_t user, Perf perf, std::int64_t now_ms) const;

    /// A rated game between `users` [first, second] ended with `result` (not ongoing) at `now_ms`:
    /// each player is rated (one Glicko-2 period, that one game) against the other's rating as it
    /// stands now, and the book takes the new ratings at once.
    Settlement settle(std::array<std::int64_t, 2> users, Perf perf, rules::Outcome result,
                      std::int64_t now_ms);
    /// The entry of `user` in `perf` as it stands (none: never rated there).
    std::optional<PoolRating> entry(std::int64_t user, Perf perf) const;
    /// Another node's settled entry: taken unless the book's is as late (more games, or as many
    /// and an update as late or later). Whether it was taken.
    bool apply(std::int64_t user, Perf perf, const PoolRating& rating);
    /// The stored ratings again (a reload while serving): each row replaces the book's entry
    /// unless that entry counts more games (a settle here whose commit is on its way, or one
    /// that committed after the rows were read). Rows of an unknown speed are skipped.
    void merge(const std::vector<storage::RatingRow>& rows);

    /// The settle's end was not stored: each player's entry goes back to what it was, unless
    /// another settle changed it since (that one's result, computed from this one's, stands: a
    /// failed commit is rare, and the next rated game goes on from the rating in the book).
    void undo(const Settlement& settlement);

  private:
    using Key = std::tuple<std::int64_t, rules::Variant, RatedSpeed>;
    static Key key_of(std::int64_t user, Perf perf) { return {user, perf.variant, perf.speed}; }
    glicko2::Rating current_locked(std::int64_t user, Perf perf, std::int64_t now_ms) const;

    const glicko2::Config config_;
    Source source_;
    /// Guards entries_. Never held while calling out.
    mutable std::mutex mutex_;
    std::map<Key, PoolRating> entries_;
};

}  // namespace arbiter::server::app
