#pragma once
/// \file
/// Who may create and join a rated game (issue 40, protocol.md "Rated games"). Pure decisions of
/// the request and the ratings as they stand, unit-tested without a server.

#include <cstdint>
#include <optional>
#include <string>

#include "common/protocol/messages.hpp"
#include "server/app/perf.hpp"

namespace arbiter::server::app {

/// Why `create` cannot make a rated game, or nullopt when it can (or asks for no rated game):
/// the creator is not signed in, the game is untimed (never rated: perf.hpp), it is against an
/// engine, or it starts from a set-up position. `standard_start`: the position is the variant's
/// own start (a FEN equal to it counts as the standard start).
std::optional<std::string> rated_create_refusal(const protocol::Create& create, bool signed_in,
                                                bool standard_start);

/// What a rated seek asks of whoever joins it.
struct RatedSeek {
    RatedSpeed speed = RatedSpeed::blitz;
    std::optional<std::int64_t> creator;  ///< the account in the taken seat
    std::optional<protocol::RatingRange> range;
};

/// Why the connection signed in as `joiner` (nullopt: a guest) may not join the rated seek, its
/// rating in the seek's pool being `joiner_rating` (rounded, as shown); nullopt when it may.
std::optional<std::string> rated_join_refusal(const RatedSeek& seek,
                                              std::optional<std::int64_t> joiner,
                                              int joiner_rating);

}  // namespace arbiter::server::app
