#pragma once
/// \file
/// Forwarder: the sender's side of a forwarded intent, on a node that holds a player's connection
/// but not the player's game. It publishes the intent to the owner's inbox and keeps it pending
/// until the owner's Answer, or the game event the intent caused, comes back; it retries after a
/// timeout with a doubling backoff (a retried move is safe: the owner answers a move for a ply
/// already played as the first time, never plays it twice), re-routes to a new owner, and after
/// the last attempt answers the connection `unavailable`. Pending intents are bounded per
/// connection and in total: beyond, forward() refuses and nothing is sent.
///
/// Pure logic: not thread-safe, and time is a value. The node calls it from one strand: forward()
/// for a player's message, on_answer()/on_event() for what the bus brings, tick() when
/// next_deadline() comes. Deliver must not call back into the Forwarder.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/core/expected.hpp"
#include "common/protocol/messages.hpp"
#include "server/bus/bus.hpp"
#include "server/cluster/envelope.hpp"
#include "server/cluster/ownership.hpp"

namespace arbiter::server::cluster {

/// The Forwarder's bounds and timing.
struct ForwarderLimits {
    Millis first_timeout{250};  ///< the wait for an answer after the first send
    Millis max_timeout{2000};   ///< the longest wait, however often the wait doubled
    /// Sends of one intent in all (the first, the retries and the re-routes); after the last
    /// one's wait the connection is answered `unavailable`. 250+500+1000+2000+2000 ms: an owner
    /// adopted within the 5 s failover still gets the intent.
    int max_attempts = 5;
    std::size_t max_pending_per_connection = 8;  ///< a player has one move in flight, or two
    std::size_t max_pending = 4096;              ///< all connections together
};

/// Plain monotonic numbers for /metrics.
struct ForwarderCounters {
    std::uint64_t forwarded = 0;  ///< intents accepted by forward()
    std::uint64_t retried = 0;    ///< sends again after a timeout
    std::uint64_t rerouted = 0;   ///< sends to a new owner (an answer not_owner, a new epoch)
    std::uint64_t answered = 0;   ///< intents settled by the owner's Answer
    std::uint64_t settled_by_event = 0;  ///< intents settled by the event they caused
    std::uint64_t gave_up = 0;           ///< intents answered `unavailable` after the last attempt
    std::uint64_t refused = 0;           ///< forward() refused: a bound was reached
    std::uint64_t late_answers = 0;      ///< answers to no pending intent (settled already)
};

/// Why forward() refused: the error the connection gets.
struct ForwardError {
    protocol::ErrorCode code = protocol::ErrorCode::unavailable;
    std::string message;
};

/// The sender's side of forwarded intents. See the file comment.
class Forwarder {
  public:
    /// Hands one encoded ServerMessage to a local connection.
    using Deliver = std::function<void(ConnectionId connection, const std::string& message)>;

    /// `first_attempt`: the first attempt id. The server starts it at a random value, so that a
    /// late answer to a previous run of the node matches no intent of this one.
    Forwarder(std::string self_node, bus::Bus& bus, OwnershipLookup& ownership, Deliver deliver,
              ForwarderLimits limits = {}, std::uint64_t first_attempt = 1);

    /// Sends `message` (a player's request about `game`) to the game's owner and keeps it
    /// pending; returns its attempt id. Refuses when a bound is reached: nothing is sent. When
    /// no owner is known yet the intent waits for one (the retries look again).
    Expected<std::uint64_t, ForwardError> forward(const protocol::ClientMessage& message,
                                                  std::string game, ConnectionId connection,
                                                  TimePoint now);

    /// The owner's answer to one of this node's intents.
    void on_answer(const Answer& answer, TimePoint now);
    /// A game event; settles the intent that caused it, and re-routes the game's pending intents
    /// when it shows a newer owner.
    void on_event(const Event& event, TimePoint now);
    /// The owner of `game` is now `owner` (the node learnt it): pending intents sent elsewhere go
    /// to it at once.
    void on_owner_changed(std::string_view game, const Owner& owner, TimePoint now);
    /// The bus is back (`reconnected`): what was sent while it was away is lost, so every
    /// pending intent is sent again at once rather than at the end of its wait.
    void on_reconnected(TimePoint now);
    /// Retries, re-routes or gives up on the intents whose wait ended at `now`.
    void tick(TimePoint now);
    /// When tick() has something to do; nullopt with nothing pending.
    std::optional<TimePoint> next_deadline() const;
    /// Forgets the intents of a closed connection (their answers will count as late).
    void drop_connection(ConnectionId connection);

    std::size_t pending() const noexcept { return pending_.size(); }
    const ForwarderCounters& counters() const noexcept { return counters_; }

  private:
    struct Pending {
        ConnectionId connection = 0;
        std::string game;
        std::string message;  ///< the encoded ClientMessage
        std::optional<std::string> request_id;
        /// A move: its ack is the `moved` it causes, so that event settles it. Any other
        /// request waits for its answer, which may carry more (a join's seat token).
        bool acked_by_event = false;
        std::optional<Owner> target;  ///< where the last send went; nullopt: no owner known
        int attempts = 0;
        Millis timeout{0};
        TimePoint deadline;
    };

    /// Sends `pending` (attempt `attempt`) to `target`, or only waits when no owner is known.
    void send(std::uint64_t attempt, Pending& pending, std::optional<Owner> target, TimePoint now);
    void settle(std::map<std::uint64_t, Pending>::iterator entry);
    /// The newer of two views of a game's owner (by epoch); the lookup wins a tie.
    static std::optional<Owner> newer(std::optional<Owner> lookup, std::optional<Owner> hint);

    std::string self_;
    bus::Bus& bus_;
    OwnershipLookup& ownership_;
    Deliver deliver_;
    ForwarderLimits limits_;
    std::uint64_t next_attempt_ = 1;
    std::map<std::uint64_t, Pending> pending_;                  ///< by attempt id
    std::map<ConnectionId, std::size_t> per_connection_;        ///< pending intents per connection
    std::map<std::string, std::size_t, std::less<>> per_game_;  ///< pending intents per game
    ForwarderCounters counters_;
};

}  // namespace arbiter::server::cluster
