#pragma once
/// \file
/// Inbox: the owner's side of forwarded intents. It reads the Intents that other nodes publish on
/// this node's `inbox:<node>`, decodes the player's message with the protocol codec, and hands
/// it to the room (a callback); the room's reply goes back to the sender as an Answer. An intent
/// for a game this node does not own is answered `not_owner`, naming the owner this node knows,
/// so that the sender re-routes. The owner also publishes its committed events here
/// (publish_event), on `game:<id>`.
///
/// A sender retries an intent under the same attempt id until it hears back, so one intent may
/// arrive several times. Only a move is safe to apply twice (its ply); a chat message, an offer
/// or a join is not. The inbox remembers the last kRememberedAttempts attempts: a repeat of one
/// the room is still working on is dropped (its answer is on the way), and a repeat of one it
/// answered gets the same answer again, without reaching the room.
///
/// Pure logic: not thread-safe; the node calls it from one strand.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/protocol/messages.hpp"
#include "server/bus/bus.hpp"
#include "server/cluster/envelope.hpp"
#include "server/cluster/ownership.hpp"

namespace arbiter::server::cluster {

/// A player's message that another node forwarded, decoded, for the room.
struct ForwardedRequest {
    std::string from_node;
    ConnectionId connection = 0;
    std::uint64_t attempt = 0;
    std::string game;
    protocol::ClientMessage message;
};

/// Plain monotonic numbers for /metrics.
struct InboxCounters {
    std::uint64_t intents = 0;       ///< intents handed to the room
    std::uint64_t answers = 0;       ///< answers published (replies and refusals)
    std::uint64_t not_owner = 0;     ///< intents for a game this node does not own
    std::uint64_t bad_messages = 0;  ///< intents whose message the codec refused
    std::uint64_t repeats = 0;       ///< retried intents kept from the room (answered again)
    std::uint64_t events = 0;        ///< events published
    /// Answers and events too large for an envelope: an answer becomes an `internal` error, an
    /// event is left to the viewers' catch-up.
    std::uint64_t oversized = 0;
};

/// The owner's side of the bus. See the file comment.
class Inbox {
  public:
    /// Gives a forwarded request to the game's room. The room answers it, later, with answer().
    using Handler = std::function<void(ForwardedRequest request)>;

    /// Attempts remembered to keep their repeats from the room: more than a sender's retries of
    /// every intent forwarded in their window (5 sends within ~6 s) at thousands a second.
    static constexpr std::size_t kRememberedAttempts = 32768;

    Inbox(std::string self_node, bus::Bus& bus, OwnershipLookup& ownership, Handler handler);

    /// An Intent from this node's inbox.
    void on_intent(const Intent& intent);
    /// The room's reply to `request`: the messages for that connection only (an ack, an error).
    void answer(const ForwardedRequest& request, std::vector<std::string> messages);
    /// Publishes a committed event of a game this node owns; `cause` is the forwarded request
    /// that made it, if one did.
    void publish_event(std::string game, std::uint64_t seq, std::uint64_t epoch,
                       std::string message, const ForwardedRequest* cause = nullptr);

    const InboxCounters& counters() const noexcept { return counters_; }

  private:
    /// What became of an attempt: nothing yet (the room has it), or the answer it got.
    using Outcome = std::optional<Answer>;

    void publish_answer(const Intent& intent, Answer answer);
    /// Remembers `key` as given to the room, forgetting the oldest past the bound.
    void remember(std::string key);

    std::string self_;
    bus::Bus& bus_;
    OwnershipLookup& ownership_;
    Handler handler_;
    InboxCounters counters_;
    std::unordered_map<std::string, Outcome> attempts_;  ///< by attempt_key()
    std::deque<std::string> attempt_order_;              ///< oldest first
};

}  // namespace arbiter::server::cluster
