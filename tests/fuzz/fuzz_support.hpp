#pragma once
// Shared by the libFuzzer targets: invariant checks that abort (so libFuzzer keeps the input as a
// crash) and a walk through a game that cross-checks the rules face against itself.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/rules/game.hpp"

namespace arbiter::fuzz {

/// Stops the run with `what` when `ok` is false: an invariant of the code under test broke.
inline void check(bool ok, std::string_view what, std::string_view detail = {}) {
    if (!ok) {
        std::fprintf(stderr, "fuzz invariant broken: %.*s [%.*s]\n", static_cast<int>(what.size()),
                     what.data(), static_cast<int>(detail.size()), detail.data());
        std::abort();
    }
}

/// The fuzz input as text.
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};  // NOLINT: libFuzzer hands out bytes
}

/// Checks what must hold of any position, then plays up to `plies` moves picked by `choices`:
/// - the position's own FEN parses back to the same FEN;
/// - perft(1) counts exactly the legal_moves() list, and the list is empty once the game is over;
/// - a listed move is its own wire form, and the display notation of a played move reads
///   back as that move;
/// - status, check and material queries and the export do not fail on any reachable position.
inline void walk_game(rules::Game& game, std::string_view choices, int plies) {
    for (int ply = 0;; ++ply) {
        const std::string fen = game.position();
        auto reparsed = rules::make_game(game.variant(), fen);
        check(reparsed.has_value(), "position() does not parse back", fen);
        check((*reparsed)->position() == fen, "position() is not stable", fen);

        const auto legal = game.legal_moves();
        const auto status = game.status();
        check(!status.over() || legal.empty(), "moves listed after the end", fen);
        check(status.over() || game.perft(1) == legal.size(), "perft(1) != legal_moves()", fen);
        static_cast<void>(game.in_check());
        static_cast<void>(game.can_win(rules::Side::first));
        static_cast<void>(game.can_win(rules::Side::second));
        if (legal.empty() || ply >= plies) {
            static_cast<void>(game.export_text(rules::ExportInfo{}));
            return;
        }
        const std::uint8_t pick =
            choices.empty() ? 0 : static_cast<std::uint8_t>(choices[ply % choices.size()]);
        const std::string& move = legal[pick % legal.size()];
        const auto wire = game.to_wire(move);
        check(wire.has_value() && *wire == move, "a legal move is not its own wire form", move);
        const auto before = game.clone();
        const auto played = game.play(move);
        check(played.has_value(), "a legal move is refused", move);
        check(played->wire == move, "play() changed the wire form", move);
        const auto back = before->to_wire(played->notation);
        check(back.has_value() && *back == move, "notation does not read back as its move",
              played->notation);
    }
}

}  // namespace arbiter::fuzz
