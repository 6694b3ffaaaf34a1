#include "common/rules/game.hpp"

#include <array>

namespace arbiter::rules {

namespace {

constexpr std::array<std::string_view, 3> kVariantNames = {"chess", "xiangqi", "draughts"};

constexpr std::array<std::string_view, 10> kReasonNames = {"",
                                                           "checkmate",
                                                           "stalemate",
                                                           "no_moves",
                                                           "repetition",
                                                           "fifty_moves",
                                                           "insufficient_material",
                                                           "perpetual_check",
                                                           "perpetual_chase",
                                                           "move_limit"};

}  // namespace

std::string_view to_string(Variant variant) noexcept {
    return kVariantNames[static_cast<std::size_t>(variant)];
}

std::optional<Variant> parse_variant(std::string_view text) noexcept {
    for (std::size_t i = 0; i < kVariantNames.size(); ++i) {
        if (kVariantNames[i] == text) {
            return static_cast<Variant>(i);
        }
    }
    return std::nullopt;
}

std::string_view seat_name(Variant variant, Side side) noexcept {
    if (side == Side::second) {
        return "black";
    }
    return variant == Variant::xiangqi ? "red" : "white";
}

std::optional<Side> parse_seat(Variant variant, std::string_view name) noexcept {
    for (Side side : {Side::first, Side::second}) {
        if (seat_name(variant, side) == name) {
            return side;
        }
    }
    return std::nullopt;
}

std::string_view to_string(Reason reason) noexcept {
    return kReasonNames[static_cast<std::size_t>(reason)];
}

std::string_view result_string(Outcome outcome) noexcept {
    switch (outcome) {
        case Outcome::first_wins:
            return "1-0";
        case Outcome::second_wins:
            return "0-1";
        case Outcome::draw:
            return "1/2-1/2";
        case Outcome::ongoing:
            break;
    }
    return "*";
}

}  // namespace arbiter::rules
