#include "server/app/rated_rules.hpp"

namespace arbiter::server::app {

std::optional<std::string> rated_create_refusal(const protocol::Create& create, bool signed_in,
                                                bool standard_start) {
    if (!create.rated) {
        return std::nullopt;
    }
    if (!signed_in) {
        return "sign in to play a rated game";
    }
    // perf.hpp: without a clock nothing ends a game whose loser stops moving, and there is no
    // speed to pool it with.
    if (!rated_speed(create.clock)) {
        return "an untimed game cannot be rated: choose a time control";
    }
    if (create.opponent) {
        return "a game against an engine is never rated";
    }
    if (!standard_start) {
        return "a game from a set-up position is never rated";
    }
    return std::nullopt;
}

std::optional<std::string> rated_join_refusal(const RatedSeek& seek,
                                              std::optional<std::int64_t> joiner,
                                              int joiner_rating) {
    if (!joiner) {
        return std::string("sign in to join a rated game");
    }
    if (seek.creator && *seek.creator == *joiner) {
        return std::string("this is your own game");
    }
    if (!seek.range) {
        return std::nullopt;
    }
    const auto& range = *seek.range;
    const bool below = range.min && joiner_rating < *range.min;
    const bool above = range.max && joiner_rating > *range.max;
    if (!below && !above) {
        return std::nullopt;
    }
    const std::string yours =
        "your " + std::string(to_string(seek.speed)) + " rating " + std::to_string(joiner_rating);
    if (range.min && range.max) {
        return yours + " is outside " + std::to_string(*range.min) + "-" +
               std::to_string(*range.max);
    }
    return below ? yours + " is below " + std::to_string(*range.min)
                 : yours + " is above " + std::to_string(*range.max);
}

}  // namespace arbiter::server::app
