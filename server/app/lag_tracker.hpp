#pragma once
/// \file
/// Lag compensation (protocol.md, Lag compensation): how much of a move's elapsed time, from the
/// moment the server sent the turn to the moment it received the move, the network spent rather
/// than the player, and so goes back to the mover's clock. One LagTracker per seat, a value in
/// the table's state; every call is given what it needs, nothing is read from a clock.
///
/// After scalachess's LagTracker (a quota that starts at 3 refills, gains one refill per timed
/// move, is capped at 7, and bounds what is credited), with one difference that matters: lichess
/// credits the lag the client reports, bounded only by the quota, while here each move's credit
/// is also bounded by what the round trip the server measured itself explains. A client that
/// lies about its think time gains nothing past that bound; one that also slows its answers to
/// the server's pings (the only way to inflate the measured round trip) gains at most the quota.

#include <chrono>
#include <cstdint>
#include <optional>

#include "common/protocol/messages.hpp"

namespace arbiter::server::app {

/// The bounds of what a seat may be credited over a game, in ms.
struct LagQuota {
    std::int64_t initial_ms = 0;  ///< available before the first timed move
    std::int64_t refill_ms = 0;   ///< added after each timed move
    std::int64_t max_ms = 0;      ///< what is available never exceeds this

    /// The quota of a time control: a refill of 0.4 % of the game's expected length (the initial
    /// time and 40 increments) plus 150 ms, at most 1 s; 3 refills to start with, 7 at most
    /// (scalachess's numbers, in ms: 1+0 refills 390 ms, 3+2 and longer 1 s).
    static LagQuota for_clock(const protocol::ClockSpec& spec) noexcept;
    friend bool operator==(const LagQuota&, const LagQuota&) = default;
};

/// What the server knows of one move's timing.
struct MoveTiming {
    /// From the moment the server sent the turn to the moment it received the move.
    std::int64_t elapsed_ms = 0;
    /// The mover's connection's round trip as the server's pings measured it; nullopt when none
    /// was measured (nothing is credited then).
    std::optional<std::int64_t> round_trip_ms;
    /// The think time the client reports with the move (`move.think_ms`); nullopt when it
    /// reports none (the measured round trip is taken as the move's lag then).
    std::optional<std::int64_t> reported_think_ms;
};

/// One seat's lag quota over a game.
class LagTracker {
  public:
    /// A tracker of no quota: it credits nothing (an untimed game's).
    LagTracker() noexcept = default;
    explicit LagTracker(LagQuota quota) noexcept : quota_(quota), available_ms_(quota.initial_ms) {}

    /// The most a move's lag may be over a measured round trip: the round trip plus a quarter
    /// of it and 10 ms, for the jitter between the pings that measured it and this move.
    static std::int64_t explained_by(std::int64_t round_trip_ms) noexcept;

    /// What to credit back for a timed move: the lag the client claims (the elapsed time less
    /// the think time it reports, or else the measured round trip), at most what the measured
    /// round trip explains, what is available, and the elapsed time itself; 0 without a
    /// measured round trip.
    std::int64_t credit_for(const MoveTiming& timing) const noexcept;
    /// The tracker after a timed move credited `credited_ms` (credit_for's answer, or a stored
    /// one): the quota refilled less the credit, capped at its maximum. `round_trip_ms` is the
    /// round trip measured for the move, kept for flag_grace_ms.
    LagTracker after(std::int64_t credited_ms,
                     std::optional<std::int64_t> round_trip_ms) const noexcept;

    /// How long past the clock's end a flag waits: what a move sent at once would be credited,
    /// at the round trip measured at this seat's last move (0 when none was, as after a restart).
    /// Without it a player 200 ms away who moves with 150 ms left would lose on time before the
    /// move arrives, though the move, once it did, would be credited its 200 ms.
    std::int64_t flag_grace_ms() const noexcept;

    /// What may still be credited now.
    std::int64_t available_ms() const noexcept { return available_ms_; }
    const LagQuota& quota() const noexcept { return quota_; }

  private:
    LagQuota quota_;
    std::int64_t available_ms_ = 0;
    std::optional<std::int64_t> last_round_trip_ms_;
};

}  // namespace arbiter::server::app
