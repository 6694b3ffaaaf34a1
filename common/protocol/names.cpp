#include <array>

#include "common/protocol/messages.hpp"

namespace arbiter::protocol {

namespace {

// In the order of the enumerators; the wire names are the enumerator names.
constexpr std::array<std::string_view, 20> kErrorCodeNames = {
    "bad_json",      "bad_request",        "unknown_type", "unknown_game", "forbidden",
    "not_your_turn", "illegal_move",       "stale_ply",    "game_over",    "seat_taken",
    "rate_limited",  "too_large",          "no_offer",     "not_allowed",  "not_ready",
    "unavailable",   "engine_unavailable", "unauthorized", "name_taken",   "internal"};

static_assert(kErrorCodeNames.size() == static_cast<std::size_t>(ErrorCode::internal) + 1,
              "one wire name per error code");

constexpr std::array<std::string_view, 3> kOfferKindNames = {"draw", "takeback", "rematch"};
constexpr std::array<std::string_view, 3> kOfferActionNames = {"offer", "accept", "decline"};
constexpr std::array<std::string_view, 1> kSeatLossReasonNames = {"resumed_elsewhere"};

constexpr std::array<std::string_view, 4> kGameStatusNames = {"waiting", "playing", "ended",
                                                              "aborted"};
static_assert(kGameStatusNames.size() == static_cast<std::size_t>(GameStatus::aborted) + 1,
              "one wire name per game status");

constexpr std::array<std::string_view, 16> kEndReasonNames = {"",
                                                              "checkmate",
                                                              "stalemate",
                                                              "no_moves",
                                                              "repetition",
                                                              "fifty_moves",
                                                              "insufficient_material",
                                                              "perpetual_check",
                                                              "perpetual_chase",
                                                              "move_limit",
                                                              "resign",
                                                              "timeout",
                                                              "agreement",
                                                              "abandoned",
                                                              "aborted",
                                                              "engine_failure"};
static_assert(kEndReasonNames.size() == static_cast<std::size_t>(EndReason::engine_failure) + 1,
              "one wire name per end reason");

constexpr std::array<std::string_view, 4> kAnalysisStatusNames = {"queued", "running", "done",
                                                                  "failed"};
static_assert(kAnalysisStatusNames.size() == static_cast<std::size_t>(AnalysisStatus::failed) + 1,
              "one wire name per analysis status");

// Lookup of a name among `names` (whose index is the enumerator's value).
template <typename Enum, std::size_t N>
std::optional<Enum> parse_name(const std::array<std::string_view, N>& names,
                               std::string_view text) noexcept {
    for (std::size_t i = 0; i < N; ++i) {
        if (names[i] == text) {
            return static_cast<Enum>(i);
        }
    }
    return std::nullopt;
}

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

std::string_view to_string(ChatRoom room) noexcept {
    return room == ChatRoom::players ? "players" : "spectators";
}

std::string_view to_string(GameStatus status) noexcept {
    return kGameStatusNames[static_cast<std::size_t>(status)];
}

std::optional<GameStatus> parse_game_status(std::string_view text) noexcept {
    return parse_name<GameStatus>(kGameStatusNames, text);
}

std::string_view to_string(EndReason reason) noexcept {
    return kEndReasonNames[static_cast<std::size_t>(reason)];
}

std::optional<EndReason> parse_end_reason(std::string_view text) noexcept {
    return parse_name<EndReason>(kEndReasonNames, text);
}

EndReason end_reason_of(rules::Reason reason) noexcept {
    // The rules' reasons are the first enumerators of EndReason, in the same order.
    static_assert(static_cast<int>(rules::Reason::move_limit) ==
                  static_cast<int>(EndReason::move_limit));
    return static_cast<EndReason>(reason);
}

std::string_view to_string(AnalysisStatus status) noexcept {
    return kAnalysisStatusNames[static_cast<std::size_t>(status)];
}

std::optional<AnalysisStatus> parse_analysis_status(std::string_view name) noexcept {
    return parse_name<AnalysisStatus>(kAnalysisStatusNames, name);
}

std::string_view result_text(rules::Outcome outcome) noexcept {
    return outcome == rules::Outcome::ongoing ? std::string_view() : rules::result_string(outcome);
}

std::optional<rules::Outcome> parse_result(std::string_view text) noexcept {
    for (const auto outcome : {rules::Outcome::ongoing, rules::Outcome::first_wins,
                               rules::Outcome::second_wins, rules::Outcome::draw}) {
        if (result_text(outcome) == text) {
            return outcome;
        }
    }
    return std::nullopt;
}

}  // namespace arbiter::protocol
