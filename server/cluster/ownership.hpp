#pragma once
/// \file
/// Who owns a game, as this node knows it: the interfaces the cluster's logic reads ownership and
/// time through, so that tests give fakes and the server gives PostgreSQL's lease table.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace arbiter::server::cluster {

/// Time as the cluster's logic sees it: a value passed in, never read from a clock inside.
using TimePoint = std::chrono::steady_clock::time_point;
using Millis = std::chrono::milliseconds;

/// A game's owner: the node and the epoch it owns the game under (the fencing token: a later
/// owner has a higher epoch).
struct Owner {
    std::string node;
    std::uint64_t epoch = 0;
    friend bool operator==(const Owner&, const Owner&) = default;
};

/// game -> its owner, as this node knows it now (a cache of the games table; may lag behind).
class OwnershipLookup {
  public:
    OwnershipLookup() = default;
    OwnershipLookup(const OwnershipLookup&) = delete;
    OwnershipLookup& operator=(const OwnershipLookup&) = delete;
    OwnershipLookup(OwnershipLookup&&) = delete;
    OwnershipLookup& operator=(OwnershipLookup&&) = delete;
    virtual ~OwnershipLookup() = default;

    /// The owner of `game`; nullopt when no node owns it (not adopted yet) or it is unknown.
    virtual std::optional<Owner> owner_of(std::string_view game) = 0;
};

}  // namespace arbiter::server::cluster
