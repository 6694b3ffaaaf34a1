#pragma once
/// \file
/// Small helpers that rooms and the hub share about seats and stored games.

#include <cstddef>
#include <optional>

#include "common/protocol/messages.hpp"
#include "common/rules/game.hpp"
#include "server/storage/repository.hpp"

namespace arbiter::server::app {

/// The array index of a side's seat: first 0, second 1.
constexpr std::size_t seat_index(rules::Side side) noexcept {
    return side == rules::Side::first ? 0 : 1;
}

/// The outcome in which `side` wins.
constexpr rules::Outcome win_for(rules::Side side) noexcept {
    return side == rules::Side::first ? rules::Outcome::first_wins : rules::Outcome::second_wins;
}

/// The time control of a stored game; nullopt for an untimed one.
inline std::optional<protocol::ClockSpec> time_control_of(const storage::GameRow& row) {
    if (!row.clock_initial_ms) {
        return std::nullopt;
    }
    return protocol::ClockSpec{*row.clock_initial_ms, row.clock_increment_ms.value_or(0)};
}

}  // namespace arbiter::server::app
