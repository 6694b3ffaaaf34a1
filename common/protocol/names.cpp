#include <array>

#include "common/protocol/messages.hpp"

namespace arbiter::protocol {

namespace {

// In the order of the enumerators; the wire names are the enumerator names.
constexpr std::array<std::string_view, 18> kErrorCodeNames = {
    "bad_json",      "bad_request",        "unknown_type", "unknown_game", "forbidden",
    "not_your_turn", "illegal_move",       "stale_ply",    "game_over",    "seat_taken",
    "rate_limited",  "too_large",          "no_offer",     "not_allowed",  "not_ready",
    "unavailable",   "engine_unavailable", "internal"};

static_assert(kErrorCodeNames.size() == static_cast<std::size_t>(ErrorCode::internal) + 1,
              "one wire name per error code");

constexpr std::array<std::string_view, 3> kOfferKindNames = {"draw", "takeback", "rematch"};
constexpr std::array<std::string_view, 3> kOfferActionNames = {"offer", "accept", "decline"};
constexpr std::array<std::string_view, 1> kSeatLossReasonNames = {"resumed_elsewhere"};

}  // namespace

std::string_view to_string(ErrorCode code) noexcept {
    return kErrorCodeNames[static_cast<std::size_t>(code)];
}

std::string_view to_string(OfferKind kind) noexcept {
    return kOfferKindNames[static_cast<std::size_t>(kind)];
}

std::string_view to_string(OfferAction action) noexcept {
    return kOfferActionNames[static_cast<std::size_t>(action)];
}

std::string_view to_string(SeatLossReason reason) noexcept {
    return kSeatLossReasonNames[static_cast<std::size_t>(reason)];
}

}  // namespace arbiter::protocol
