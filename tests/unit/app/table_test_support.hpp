#pragma once
/// \file
/// Helpers for the table's suites: time as a plain value (milliseconds from an arbitrary start),
/// tables set up in a given state, and commands decided and applied as the room would after a
/// commit.

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "server/app/table.hpp"

namespace arbiter::server::app::testing {

using rules::Side;
constexpr Side kWhite = Side::first;
constexpr Side kBlack = Side::second;

/// Unix time at t = 0 of a test.
inline constexpr std::int64_t kUnixStart = 1'764'000'000'000;

/// The moment `ms` milliseconds into a test.
inline Instant at(std::int64_t ms) {
    return Instant{std::chrono::steady_clock::time_point(std::chrono::milliseconds(ms)),
                   kUnixStart + ms};
}
/// Its monotonic time alone (a request's arrival).
inline std::chrono::steady_clock::time_point steady(std::int64_t ms) {
    return at(ms).steady;
}

/// What a test game is made of.
struct TableSetup {
    rules::Variant variant = rules::Variant::chess;
    std::string position;                      ///< "" for the standard start
    std::optional<protocol::ClockSpec> clock;  ///< nullopt: untimed
    bool joined = true;                        ///< both seats taken (playing) or only White's
    std::string second_engine;                 ///< an engine plays Black
    TableConfig config{};
};

/// A game waiting for its second player (White seated).
inline TableSetup waiting_game() {
    TableSetup setup;
    setup.joined = false;
    return setup;
}
/// A game with a Fischer clock.
inline TableSetup timed_game(std::int64_t initial_ms, std::int64_t increment_ms) {
    TableSetup setup;
    setup.clock = protocol::ClockSpec{initial_ms, increment_ms};
    return setup;
}
/// A game of `variant` from its standard start.
inline TableSetup variant_game(rules::Variant variant) {
    TableSetup setup;
    setup.variant = variant;
    return setup;
}
/// A game against an engine, which plays Black.
inline TableSetup engine_game() {
    TableSetup setup;
    setup.second_engine = "builtin";
    return setup;
}

/// A new game's header, as the hub and the room make it: White "Ana" (and Black "Bo", or an
/// engine) seated, seq 1.
inline storage::GameRow header_of(const TableSetup& setup) {
    storage::GameRow header;
    header.id = "g1";
    header.variant = setup.variant;
    header.initial_position =
        rules::make_game(setup.variant, setup.position).value()->initial_position();
    if (setup.clock) {
        header.clock_initial_ms = setup.clock->initial_ms;
        header.clock_increment_ms = setup.clock->increment_ms;
        header.clock_ms = {setup.clock->initial_ms, setup.clock->initial_ms};
    }
    header.status = setup.joined ? protocol::GameStatus::playing : protocol::GameStatus::waiting;
    header.created_ms = kUnixStart;
    header.updated_ms = kUnixStart;
    header.seq = 1;
    header.seats[0] = {"Ana", "hash-ana", "", 0};
    if (!setup.second_engine.empty()) {
        header.seats[1] = {"Engine (level 3)", "hash-engine", setup.second_engine, 3};
    } else if (setup.joined) {
        header.seats[1] = {"Bo", "hash-bo", "", 0};
    }
    return header;
}

/// A table for `setup`, created (its CreateGame applied at t = 0) with every person's seat
/// connected.
inline Table new_table(const TableSetup& setup = TableSetup{}) {
    const auto header = header_of(setup);
    Table table =
        Table::open(header, rules::make_game(setup.variant, setup.position).value(), setup.config);
    table.set_seat_connected(kWhite, true);
    table.set_seat_connected(kBlack, setup.joined && setup.second_engine.empty());
    auto created = table.decide(command::Create{}, at(0));
    table.apply(*created, at(0));
    return table;
}

/// Decides `command` at `now` and applies the decision, as after its commit; fails the test if
/// the command is refused.
inline Decision commit(Table& table, TableCommand command, Instant now) {
    auto verdict = table.decide(std::move(command), now);
    if (!verdict) {
        ADD_FAILURE() << "refused: " << protocol::to_string(verdict.error().code) << ": "
                      << verdict.error().message;
        return Decision{};
    }
    table.apply(*verdict, now);
    return std::move(verdict).value();
}

/// Decides `command` at `now`, which must be refused; the refusal.
inline Refusal refusal(Table& table, TableCommand command, Instant now) {
    auto verdict = table.decide(std::move(command), now);
    if (verdict) {
        ADD_FAILURE() << "not refused";
        table.discard(*verdict);
        return Refusal{};
    }
    return verdict.error();
}

/// A move by `side` at `ply`, arrived at `ms`.
inline command::Move move_by(Side side, std::string text, std::uint32_t ply, std::int64_t ms = 0) {
    return command::Move{HeldSeats::only(side), std::move(text), ply, steady(ms)};
}

/// Plays `moves` in turn from the game's current ply, each arriving and committed at the time
/// given beside it.
inline void play_moves(Table& table,
                       const std::vector<std::pair<std::string, std::int64_t>>& moves) {
    for (const auto& [text, ms] : moves) {
        commit(table, move_by(table.turn(), text, table.ply(), ms), at(ms));
    }
}

/// The intent of `decision`, as type T (fails the test otherwise).
template <typename T>
const T& intent_as(const Decision& decision) {
    static const T none{};
    if (!decision.intent || !std::holds_alternative<T>(*decision.intent)) {
        ADD_FAILURE() << "the decision carries another intent, or none";
        return none;
    }
    return std::get<T>(*decision.intent);
}

/// Event `index` of `decision`, as type T (fails the test otherwise).
template <typename T>
const T& event_as(const Decision& decision, std::size_t index = 0) {
    static const T none{};
    if (index >= decision.events.size() || !std::holds_alternative<T>(decision.events[index])) {
        ADD_FAILURE() << "event " << index << " is of another type, or missing";
        return none;
    }
    return std::get<T>(decision.events[index]);
}

}  // namespace arbiter::server::app::testing
