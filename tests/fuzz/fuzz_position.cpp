// libFuzzer target: one variant's position parser (chess FEN, xiangqi FEN, draughts PDN FEN),
// then a short walk from the parsed position. Built once per variant; ARBITER_FUZZ_VARIANT names
// it. Input: the position text, optionally followed by '\n' and bytes that pick the moves.

#include <cstddef>
#include <cstdint>

#include "common/rules/game.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

constexpr auto kVariant = arbiter::rules::Variant::ARBITER_FUZZ_VARIANT;
// A few plies reach positions the parser never builds itself (promotions, captures, kings).
constexpr int kPlies = 4;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input = arbiter::fuzz::as_text(data, size);
    const auto newline = input.find('\n');
    const std::string_view position = input.substr(0, newline);
    const std::string_view choices =
        newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);

    auto game = arbiter::rules::make_game(kVariant, position);
    if (!game) {
        arbiter::fuzz::check(!game.error().message.empty(), "refusal without a message", position);
        return 0;
    }
    arbiter::fuzz::walk_game(**game, choices, kPlies);
    return 0;
}
