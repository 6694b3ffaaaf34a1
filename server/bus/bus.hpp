#pragma once
/// \file
/// The message bus between the nodes of a cluster (issue 43): each node reads its own inbox
/// channel, where other nodes forward it players' requests and send back its connections'
/// messages (server/cluster/README.md).
///
/// The bus is the fast path only, never the truth (README.md in this folder):
/// - while the bus stays connected, messages on one channel from one publisher arrive in the
///   order they were published;
/// - nothing is promised across a disconnection: messages published while Redis is away, or in
///   flight when it went, are lost. `reconnected` is the signal to catch up from the database;
/// - publish() never blocks: a message it cannot queue (bus down, queue full) is dropped and
///   counted.
///
/// Every handler runs on the bus's own thread, one call at a time: a handler must be quick and
/// must not call back into the bus synchronously in a way that waits for it; callers post the
/// work to their own executors (a room's strand).

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace arbiter::server::bus {

/// What the bus tells its owner about its link to the broker.
enum class BusState : std::uint8_t {
    connected,     ///< the first time the bus is up (publisher and subscriber both)
    disconnected,  ///< the link was lost: messages are being dropped
    reconnected,   ///< up again and every subscription restored: catch up from the database
};

/// The bus's callbacks. Set once, at construction; every one runs on the bus's thread.
struct BusHandlers {
    /// A message on a subscribed channel. The views are valid only during the call.
    std::function<void(std::string_view channel, std::string_view bytes)> on_message;
    /// A change of BusState.
    std::function<void(BusState state)> on_state;
    /// A subscribe() took effect: from now on (while connected) every message published on
    /// `channel` is delivered. A node reads the game from the database after this, not before,
    /// so that no event falls between the read and the subscription. Optional.
    std::function<void(std::string_view channel)> on_subscribed;
};

/// Plain numbers for /metrics. Each is monotonic over the bus's life.
struct BusCounters {
    std::uint64_t published = 0;   ///< messages the broker accepted
    std::uint64_t received = 0;    ///< messages handed to on_message
    std::uint64_t dropped = 0;     ///< messages publish() could not deliver to the broker
    std::uint64_t reconnects = 0;  ///< times the bus came back (BusState::reconnected)
};

/// A publish/subscribe bus. All member functions are thread-safe and never block on the broker.
class Bus {
  public:
    Bus() = default;
    Bus(const Bus&) = delete;
    Bus& operator=(const Bus&) = delete;
    Bus(Bus&&) = delete;
    Bus& operator=(Bus&&) = delete;
    /// Stops the bus's threads; no handler runs after the destructor returns.
    virtual ~Bus() = default;

    /// Queues `bytes` (any bytes, binary-safe) for `channel`. Returns at once; when the bus is
    /// down or its queue is full the message is dropped and counted.
    virtual void publish(std::string channel, std::string bytes) = 0;
    /// Asks for the messages of `channel`; on_subscribed tells when it took effect. Kept across
    /// reconnections.
    virtual void subscribe(std::string channel) = 0;
    /// Stops the messages of `channel`: none published after this call returns is delivered
    /// (messages published before it and still in flight may be).
    virtual void unsubscribe(std::string channel) = 0;
    /// The counters at this moment.
    virtual BusCounters counters() const = 0;
};

}  // namespace arbiter::server::bus
