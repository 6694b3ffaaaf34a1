// libFuzzer target: one variant's move parsers (wire and display notation: chess UCI and SAN,
// xiangqi ICCS and WXF, draughts PDN) through to_wire() and play(), on a few fixed positions.
// Built once per variant; ARBITER_FUZZ_VARIANT names it and the positions come from
// fuzz_positions.hpp. Input: one byte picking the position, then moves separated by ';' that
// are played one after the other while they are accepted.

#include <cstddef>
#include <cstdint>

#include "common/rules/game.hpp"
#include "tests/fuzz/fuzz_positions.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using arbiter::fuzz::check;

constexpr auto kVariant = arbiter::rules::Variant::ARBITER_FUZZ_VARIANT;
constexpr int kMaxMoves = 8;

// Whatever the text, to_wire() and play() agree: a text that to_wire() accepts names a listed
// legal move and play() plays exactly that move; a text it refuses, play() refuses too unless it
// is wire notation, and a refusal changes nothing.
bool try_move(arbiter::rules::Game& game, std::string_view text) {
    const auto legal = game.legal_moves();
    const auto wire = game.to_wire(text);
    const std::string before = game.position();
    const std::size_t ply = game.ply();
    const auto played = game.play(text);
    if (!played) {
        check(!played.error().message.empty(), "refusal without a message", text);
        check(game.position() == before && game.ply() == ply, "a refused move changed the game",
              text);
        if (wire) {
            // to_wire() accepted a display form that play() (wire only) may refuse: the wire
            // form itself must be playable.
            const auto replay = game.play(*wire);
            check(replay.has_value(), "to_wire() gave a move that play() refuses", *wire);
            return true;
        }
        return false;
    }
    check(wire.has_value() && *wire == played->wire, "play() and to_wire() disagree", text);
    bool listed = false;
    for (const auto& move : legal) {
        listed = listed || move == played->wire;
    }
    check(listed, "play() accepted a move that legal_moves() does not list", played->wire);
    check(game.ply() == ply + 1, "play() did not advance one ply", text);
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    const auto& positions = arbiter::fuzz::positions_of(kVariant);
    auto game = arbiter::rules::make_game(kVariant, positions[data[0] % positions.size()]);
    check(game.has_value(), "a fixed position does not parse");
    std::string_view rest = arbiter::fuzz::as_text(data + 1, size - 1);
    for (int count = 0; count < kMaxMoves && !rest.empty(); ++count) {
        const auto separator = rest.find(';');
        const std::string_view text = rest.substr(0, separator);
        rest =
            separator == std::string_view::npos ? std::string_view() : rest.substr(separator + 1);
        if (!try_move(**game, text)) {
            break;
        }
    }
    return 0;
}
