// libFuzzer target: the terminal client's reading of server messages. arbiter-cli applies every
// frame the server sends to its GameView and draws the board from the FEN inside, so a hostile
// or broken server must not crash it. Input: server messages, one JSON text per line, applied in
// order to one view; the first byte picks the drawing style.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "client/cli/game_view.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    arbiter::client::RenderStyle style;
    style.color = (data[0] & 1) != 0;
    style.unicode = (data[0] & 2) != 0;
    style.numbers = (data[0] & 4) != 0;
    const bool flip = (data[0] & 8) != 0;
    std::string_view rest = arbiter::fuzz::as_text(data + 1, size - 1);
    arbiter::client::GameView view;
    while (!rest.empty()) {
        const auto newline = rest.find('\n');
        const std::string_view line = rest.substr(0, newline);
        rest = newline == std::string_view::npos ? std::string_view() : rest.substr(newline + 1);
        const auto message = nlohmann::json::parse(line, nullptr, false);
        if (message.is_discarded()) {
            continue;
        }
        static_cast<void>(arbiter::client::apply_message(view, message));
        static_cast<void>(arbiter::client::describe(view, message));
        static_cast<void>(arbiter::client::render_screen(view, style, flip, 1500));
    }
    return 0;
}
