#pragma once
/// \file
/// Who may write to and read a game's two chat rooms (protocol.md, Chat), and the operator's
/// word list: pure functions of the rooms, the seats a connection holds and the game's status.
/// The table (table.hpp) decides a message with them; the room (room.hpp) sends each member the
/// text, or null, with them.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "common/core/expected.hpp"
#include "common/protocol/messages.hpp"
#include "server/app/table_commands.hpp"

namespace arbiter::server::app {

/// A connection as the chat rules see it: the seats it holds in the game, and whether it watches.
struct ChatMember {
    HeldSeats held;
    bool watching = false;
};

/// Why `author` may not write to `room`, or nullopt when it may. Only the seats write to the
/// players' room; only watchers who hold no seat write to the spectators' room, and not at all
/// when the operator turned spectator chat off.
std::optional<Refusal> chat_refusal(protocol::ChatRoom room, const ChatMember& author,
                                    bool spectator_chat);

/// Whether `reader` gets the text of a message posted to `room` by seat `author_seat` (nullopt:
/// a spectator) while the game is in `status`. A spectator never reads the players' room; a
/// player reads the spectators' room once the game is over; `muted[i]`: seat i muted its
/// opponent's players'-room messages. A connection holding both seats reads what either reads.
bool may_read_chat(protocol::ChatRoom room, std::optional<rules::Side> author_seat,
                   const ChatMember& reader, protocol::GameStatus status,
                   const std::array<bool, 2>& muted);

/// The operator's word list (--chat-words): whole words, compared without ASCII case, each
/// replaced by as many `*` as it has characters.
class ChatWords {
  public:
    /// No words: mask() changes nothing.
    ChatWords() = default;
    /// One word a line; blank lines and lines starting with '#' are skipped, white space around
    /// a word trimmed. A line that is not one word (letters, digits, '_') is an error naming it.
    static Expected<ChatWords, std::string> parse(std::string_view file_text);

    /// `text` with every listed word masked. Words are runs of letters, digits, '_' and any
    /// non-ASCII character; anything else separates them.
    std::string mask(std::string_view text) const;
    bool empty() const noexcept { return words_.empty(); }

  private:
    std::unordered_set<std::string> words_;  ///< ASCII-lowercased
};

}  // namespace arbiter::server::app
