#pragma once
/// \file
/// One connection's liveness as a value: when the server pings it, which pong answers which
/// ping, its round trip, and when its silence is long enough to count it gone. Plain C++ with
/// time passed in, so that the rule is unit-tested without sockets or clocks; the WebSocket
/// session (websocket_session.cpp) drives it from a timer and its reads.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace arbiter::server::net {

/// How often the server pings a connection, and how long a silence makes it gone.
struct LivenessTimes {
    std::chrono::milliseconds ping_interval{2000};
    /// Nothing received (no frame, no pong) for this long: the connection is dropped.
    std::chrono::milliseconds silence_timeout{8000};

    /// The time between two pings: the interval, but at least two pings per silence timeout,
    /// so that a client that answers them never falls silent for the whole timeout.
    std::chrono::milliseconds ping_period() const noexcept {
        return std::min(ping_interval, silence_timeout / 2);
    }
};

/// A connection's round trip from its answered pings: the median of the last five samples (of
/// the ones there are, the lower middle for an even count). One late pong (a retransmission, a
/// stall, a ping that waited behind a large frame) moves it not at all; a lasting change of the
/// link shows after three pongs. An average would carry every outlier for many pings.
class RoundTripEstimate {
  public:
    static constexpr std::size_t kWindow = 5;

    void add(std::chrono::microseconds sample) noexcept;
    /// Nullopt before the first sample.
    std::optional<std::chrono::microseconds> value() const noexcept;

  private:
    std::array<std::chrono::microseconds, kWindow> samples_{};
    std::size_t count_ = 0;  ///< samples kept, up to kWindow
    std::size_t next_ = 0;   ///< where the next sample goes (oldest first to be replaced)
};

/// The liveness of one connection, from the moment it opened.
class Liveness {
  public:
    using TimePoint = std::chrono::steady_clock::time_point;

    Liveness(LivenessTimes times, TimePoint opened) noexcept;

    /// Something came from the peer at `now`: a message, or a control frame.
    void heard(TimePoint now) noexcept;
    /// A pong with `payload` came at `now`. Heard; and when it answers one of the last pings
    /// sent (a late one included), a round-trip sample. Unsolicited pongs (RFC 6455 5.5.3
    /// allows them as a heartbeat) only count as heard.
    void pong(std::string_view payload, TimePoint now) noexcept;

    /// What the connection's timer does when it fires at `now`.
    struct Tick {
        bool gone = false;                ///< silent for the timeout: drop the connection
        std::optional<std::string> ping;  ///< send a ping with this payload
        TimePoint wake{};                 ///< when to fire next
    };
    /// `can_ping`: no ping of ours is still being written (one at a time); a ping due then is
    /// skipped, not queued.
    Tick tick(TimePoint now, bool can_ping);

    /// The smoothed round trip; nullopt before the first answered ping.
    std::optional<std::chrono::microseconds> round_trip() const noexcept {
        return estimate_.value();
    }
    /// When something last came from the peer.
    TimePoint last_heard() const noexcept { return last_heard_; }

    /// A connection that has been silent at `now` for longer than this is likely half-open (its
    /// link died without a FIN): an answering client is never silent for longer than one ping
    /// period plus its round trip, and this leaves half a period for that round trip.
    static std::chrono::milliseconds unresponsive_after(LivenessTimes times) noexcept {
        return times.ping_period() + times.ping_period() / 2;
    }

  private:
    struct Sent {
        std::uint32_t seq = 0;
        TimePoint at{};
        bool answered = true;  ///< a slot never used counts as answered
    };

    LivenessTimes times_;
    TimePoint last_heard_;
    TimePoint next_ping_;
    std::uint32_t next_seq_ = 1;
    /// The last pings sent, so that a pong that comes after the next ping still measures its own.
    std::array<Sent, 4> sent_{};
    RoundTripEstimate estimate_;
};

}  // namespace arbiter::server::net
