#pragma once
/// \file
/// The game chat as arbiter-cli shows and checks it (schema/protocol.md, "Chat"). The messages
/// themselves (the `chat` and `chat_mute` requests, the `chat` event, `chat_muted`, `state.chat`)
/// are the protocol codec's, like every other message; the client keeps no rule of who may write
/// where: the server answers `forbidden` or `not_allowed`.

#include <string>
#include <string_view>

#include "common/core/expected.hpp"
#include "common/protocol/messages.hpp"

namespace arbiter::client {

/// The protocol's rule for chat text (protocol::text::chat_text): valid UTF-8, surrounding white
/// space trimmed, then 1 to 140 code points without control characters. Gives the trimmed text,
/// or why it cannot be sent.
Expected<std::string, std::string> checked_chat_text(std::string_view typed);

/// How a message shows: `[players] Ana: good luck`. The author's name and text are shown with
/// control characters replaced, so that nothing the server relays can move the cursor or change
/// colours. A text hidden from this reader (null) shows empty: callers show only readable ones.
std::string chat_line_text(const protocol::ChatEvent& event);
/// The same for a message of a `state`'s or `record`'s history.
std::string chat_line_text(const protocol::ChatLine& line);

}  // namespace arbiter::client
