#pragma once
/// \file
/// The server-wide budget of queued outgoing bytes (issue 38): the per-connection bound alone let
/// 250 connections that ask for `lobby` and never read take 1.3 GB. All queues are counted
/// together; past the high-water mark a shed closes the connections holding the most unsent
/// bytes, players last, until the total falls under the low-water mark. Plain C++: the decision
/// is a pure function, unit-tested without sockets.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace arbiter::server::net {

/// The two marks of the budget.
struct OutgoingBudget {
    /// Past it, a shed begins (--max-outgoing-bytes).
    std::size_t high_water = 0;
    /// A shed closes connections until the total would be under it: a quarter below the high
    /// mark, so that one shed buys room for many frames rather than one.
    std::size_t low_water = 0;

    /// The marks for a budget of `max_bytes`.
    static OutgoingBudget of(std::size_t max_bytes) noexcept {
        return {max_bytes, max_bytes - max_bytes / 4};
    }
};

/// The default budget for a machine with `physical_bytes` of memory: an eighth of it, at least
/// 16 MiB and at most 2 GiB (512 queues at the per-connection bound of 4 MiB; a server that
/// needs more is given it by the flag).
std::size_t default_outgoing_budget(std::uint64_t physical_bytes) noexcept;

/// One connection as a shed sees it.
struct QueueHolder {
    std::uint64_t id = 0;
    std::size_t queued_bytes = 0;  ///< unsent bytes, shared frames counted in full
    bool player = false;           ///< holds a seat in a game (Peer::set_player)
    bool closing = false;          ///< already closing: its bytes are on their way out
};

/// The connections to close so that `total_bytes` falls to `low_water` or below: the bytes of
/// connections already closing count as freed, then non-players go before players, and among
/// them the one holding the most bytes first (ties: the older connection, the lower id, first).
/// A connection holding nothing is never chosen (closing it frees nothing). Nothing when the
/// total is at the mark or under; every holder able to free bytes when even all of them are not
/// enough.
std::vector<std::uint64_t> connections_to_shed(std::span<const QueueHolder> holders,
                                               std::size_t total_bytes, std::size_t low_water);

/// What a connection may hold at most while the server is over its budget, unless it is a
/// player's: a reader that keeps up holds a frame or two, far less.
inline constexpr std::size_t kHoldOverBudget = std::size_t{64} * 1024;

/// Whether a frame that brings a connection's queue to `connection_bytes` closes the connection
/// at once rather than waiting for the next shed: the server is over its budget, the connection
/// is not a player's, and it holds more than a reader that keeps up would. Sheds run a few times
/// a second; between two, connections that never read could otherwise each fill their own bound
/// (100 of them: 400 MiB).
constexpr bool closes_over_budget(bool server_over_budget, std::size_t connection_bytes,
                                  bool player) noexcept {
    return server_over_budget && !player && connection_bytes > kHoldOverBudget;
}

}  // namespace arbiter::server::net
