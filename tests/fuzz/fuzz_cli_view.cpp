// libFuzzer target: the terminal client's reading of server messages. arbiter-cli decodes every
// frame the server sends with the protocol's codec, applies what it accepts to its GameView and
// draws the board from the FEN inside, so a hostile or broken server must not crash it. Input:
// server messages (chat too), one JSON text per line, applied in order to one view; the first byte
// picks the drawing style, and the variant the client knows before a state names one (bits 4-5).

#include <cstddef>
#include <cstdint>

#include "client/cli/chat.hpp"
#include "client/cli/game_view.hpp"
#include "common/protocol/codec.hpp"
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
    const auto known = static_cast<arbiter::rules::Variant>(((data[0] >> 4) & 3) % 3);
    std::string_view rest = arbiter::fuzz::as_text(data + 1, size - 1);
    arbiter::client::GameView view;
    // As arbiter-cli: the variant of the game followed, once a state named it.
    const arbiter::protocol::VariantOfGame variant_of = [&view, known](std::string_view) {
        return std::optional(
            view.have_state ? arbiter::rules::parse_variant(view.variant).value_or(known) : known);
    };
    while (!rest.empty()) {
        const auto newline = rest.find('\n');
        const std::string_view line = rest.substr(0, newline);
        rest = newline == std::string_view::npos ? std::string_view() : rest.substr(newline + 1);
        const auto message = arbiter::protocol::decode_server(line, variant_of);
        if (!message) {
            continue;
        }
        static_cast<void>(arbiter::client::apply_message(view, *message));
        static_cast<void>(arbiter::client::describe(view, *message));
        static_cast<void>(arbiter::client::render_screen(view, style, flip, 1500));
        // Chat is shown as notes, from the codec's messages as arbiter-cli shows them.
        if (const auto* chat = std::get_if<arbiter::protocol::ChatEvent>(&message->body)) {
            static_cast<void>(arbiter::client::chat_line_text(*chat));
        } else if (const auto* state = std::get_if<arbiter::protocol::State>(&message->body)) {
            for (const auto& chat_line : state->chat) {
                static_cast<void>(arbiter::client::chat_line_text(chat_line));
            }
        }
    }
    return 0;
}
