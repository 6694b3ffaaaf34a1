#pragma once
/// \file
/// The game chat as arbiter-cli speaks it (schema/protocol.md, "Chat"): the `chat` and
/// `chat_mute` requests, the `chat` event and the `chat_muted` answer, the history a `state`
/// carries, and the lines shown for them. Until the protocol's codec knows chat, these are read
/// and written here, apart from every other message; the client keeps no rule of who may write
/// where: the server answers `forbidden` or `not_allowed`.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/core/expected.hpp"

namespace arbiter::client {

/// One chat message; `text` is empty (nullopt) when this connection may not read it (the other
/// room, a muted author): the event still counts in the game's seq.
struct ChatLine {
    std::uint64_t seq = 0;
    std::string room;  ///< "players" or "spectators"
    std::string from;  ///< the author's display name
    std::optional<std::string> text;
    std::int64_t at_ms = 0;
};

/// The server's `chat` event of one game.
struct ChatEvent {
    std::string game;
    ChatLine line;
};

/// The server's answer to `chat_mute`.
struct ChatMuted {
    std::string game;
    bool mute = false;
};

using ChatMessage = std::variant<ChatEvent, ChatMuted>;

/// A server frame that is a `chat` or `chat_muted` message; nullopt for any other frame, and for
/// a chat frame missing a field (the frame is then left to the codec, which refuses it).
std::optional<ChatMessage> read_chat_message(std::string_view frame);

/// The `chat` history of a `state` frame (oldest first); empty when it has none.
std::vector<ChatLine> read_state_chat(std::string_view frame);

/// The protocol's rule for chat text: surrounding white space trimmed, then 1 to 140 code points
/// without control characters. Gives the trimmed text, or why it cannot be sent.
Expected<std::string, std::string> checked_chat_text(std::string_view typed);

/// `{"type":"chat","game","room","text","id"}`.
std::string chat_request(const std::string& game, const std::string& room, const std::string& text,
                         const std::string& id);
/// `{"type":"chat_mute","game","mute","id"}`.
std::string chat_mute_request(const std::string& game, bool mute, const std::string& id);

/// How a message shows: `[players] Ana: good luck`, the room named as the reader knows it. The
/// author's name and text are shown with control characters replaced, so that nothing the server
/// relays can move the cursor or change colours.
std::string chat_line_text(const ChatLine& line);

}  // namespace arbiter::client
