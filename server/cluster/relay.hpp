#pragma once
/// \file
/// Relay: the viewers' side of a game owned by another node. It follows `game:<id>` while this
/// node has a viewer of the game (subscribes for the first, unsubscribes after the last), and
/// hands the owner's events to each local viewer in seq order, every seq exactly once. The bus
/// loses messages by design, so the database is the truth: a seq gap, an owner's new epoch, a
/// subscription taking effect, the bus coming back (`reconnected`) or a viewer who joined behind
/// the others each make the relay ask CatchUp for the events after a seq; what comes back goes
/// through the same per-viewer order as the live events, so that overlap is harmless.
///
/// Each viewer has its own position (the last seq it was given); an event goes to a viewer only
/// when it is the next one for that viewer. Events that arrive ahead of a gap wait in a buffer
/// bounded per game; beyond the bound they are dropped and fetched by the catch-up instead.
///
/// Pure logic: not thread-safe, and time is a value; the node calls it from one strand. Deliver
/// must not call back into the Relay, and CatchUp::request must not answer before it returns.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/core/expected.hpp"
#include "server/bus/bus.hpp"
#include "server/cluster/envelope.hpp"
#include "server/cluster/ownership.hpp"

namespace arbiter::server::cluster {

/// Reads a game's stored events from the database, off the caller's strand. Every request is
/// answered once, through Relay::on_catch_up.
class CatchUp {
  public:
    CatchUp() = default;
    CatchUp(const CatchUp&) = delete;
    CatchUp& operator=(const CatchUp&) = delete;
    CatchUp(CatchUp&&) = delete;
    CatchUp& operator=(CatchUp&&) = delete;
    virtual ~CatchUp() = default;

    /// Asks for the events of `game` with a seq above `after_seq`, in seq order (the first page
    /// of them is enough: the relay asks again while it knows of more).
    virtual void request(std::string game, std::uint64_t after_seq) = 0;
};

/// The Relay's bounds and timing.
struct RelayLimits {
    std::size_t max_buffered_per_game = 256;  ///< events held ahead of a gap, per game
    Millis catch_up_retry{500};  ///< the wait before asking again after a failed catch-up
};

/// Plain monotonic numbers for /metrics.
struct RelayCounters {
    std::uint64_t relayed = 0;            ///< events handed to viewers (one per viewer)
    std::uint64_t gaps = 0;               ///< live events that arrived ahead of a missing seq
    std::uint64_t duplicates = 0;         ///< live events at or below the seq already relayed
    std::uint64_t catch_ups = 0;          ///< catch-up requests made
    std::uint64_t catch_up_failures = 0;  ///< catch-ups that failed (asked again later)
    std::uint64_t epoch_changes = 0;      ///< a game's owner seen with a newer epoch
    std::uint64_t overflowed = 0;         ///< events dropped from a full buffer
};

/// The viewers' side of games owned elsewhere. See the file comment.
class Relay {
  public:
    /// Hands one encoded game event to a local viewer (a connection).
    using Deliver = std::function<void(ConnectionId viewer, const std::string& message)>;

    Relay(bus::Bus& bus, CatchUp& catch_up, Deliver deliver, RelayLimits limits = {});

    /// `viewer` now watches `game` and was given its events up to `seen_seq` (the state it was
    /// sent). The first viewer of a game subscribes its channel.
    void add_viewer(std::string game, ConnectionId viewer, std::uint64_t seen_seq, TimePoint now);
    /// `viewer` stops watching `game`; the last one unsubscribes its channel.
    void remove_viewer(std::string_view game, ConnectionId viewer);
    /// The bus's on_subscribed for `game:<id>`: from now on no event is missed while the bus
    /// stays up, so what came before is read from the database.
    void on_subscribed(std::string_view game, TimePoint now);
    /// A live event from the bus.
    void on_event(const Event& event, TimePoint now);
    /// The bus's state: `reconnected` catches every followed game up.
    void on_bus_state(bus::BusState state, TimePoint now);
    /// The answer to a CatchUp request for `game`: its events after the seq asked for, or why
    /// they could not be read.
    void on_catch_up(std::string_view game, Expected<std::vector<Event>, std::string> events,
                     TimePoint now);
    /// Asks again for the catch-ups whose retry time came.
    void tick(TimePoint now);
    /// When tick() has something to do.
    std::optional<TimePoint> next_deadline() const;

    /// The owner of `game` as its events show it (the newest epoch seen).
    std::optional<Owner> owner_of(std::string_view game) const;
    /// The seq up to which every event of `game` was offered to its viewers (0: unknown game).
    std::uint64_t relayed_seq(std::string_view game) const;
    std::size_t games() const noexcept { return games_.size(); }
    const RelayCounters& counters() const noexcept { return counters_; }

  private:
    struct Game {
        std::map<ConnectionId, std::uint64_t> viewers;  ///< viewer -> the last seq it was given
        std::uint64_t relayed_seq = 0;   ///< every event up to here was offered to the viewers
        std::uint64_t highest_seen = 0;  ///< the highest seq heard of, live
        std::optional<Owner> owner;
        std::map<std::uint64_t, Event> buffer;  ///< live events ahead of a gap, by seq
        bool catch_up_in_flight = false;
        bool catch_up_wanted = false;       ///< ask (again) as soon as none is in flight
        std::optional<TimePoint> retry_at;  ///< ask again then (after a failure or no progress)
    };

    /// Gives `event` to every viewer for whom it is the next seq; the relay moves on with it.
    void offer(Game& game, const Event& event);
    /// Offers the buffered events that now follow on.
    void drain(Game& game);
    /// Asks for a catch-up of `game` unless one is in flight (then once it returns).
    void want_catch_up(const std::string& name, Game& game);
    /// Whether some viewer or event is still behind what the game is known to have reached.
    static bool behind(const Game& game);
    /// Records the owner `event` shows; whether it replaced an older known one.
    bool note_owner(Game& game, const Event& event);

    bus::Bus& bus_;
    CatchUp& catch_up_;
    Deliver deliver_;
    RelayLimits limits_;
    std::map<std::string, Game, std::less<>> games_;
    RelayCounters counters_;
};

}  // namespace arbiter::server::cluster
