#pragma once
/// \file
/// Client-to-server messages as protocol.md defines them, written as one-line JSON text.

#include <cstdint>
#include <optional>
#include <string>

#include "client/cli/options.hpp"
#include "common/protocol/messages.hpp"

namespace arbiter::client::requests {

// The requests of a game session carry an `id`, which the server echoes in the direct reply and
// in any error the request causes (protocol.md, "Request ids"): that is how an error is matched
// to the request that caused it.

/// `hello`, signing the connection in with `session_token` when there is one.
std::string hello(const std::string& name, std::optional<std::string> session_token = {});
/// `create` from the command line's variant, side, clock, private flag, position and opponent.
std::string create(const CliOptions& options, const std::string& id);
std::string join(const std::string& game, const std::string& id);
std::string resume(const std::string& game, const std::string& token,
                   std::optional<std::uint64_t> since, const std::string& id);
std::string watch(const std::string& game, std::optional<std::uint64_t> since,
                  const std::string& id);
/// `move`; `think_ms`: the think time the client measured (protocol.md, Lag compensation).
std::string move(const std::string& game, const std::string& move, std::uint64_t ply,
                 const std::string& id, std::optional<std::int64_t> think_ms = std::nullopt);
/// `resign` and `abort`: messages with only a game.
std::string game_action(const std::string& type, const std::string& game, const std::string& id);
/// `draw`, `takeback` and `rematch`: `action` is offer, accept or decline.
std::string offer(const std::string& type, const std::string& game, const std::string& action,
                  const std::string& id);
std::string claim(const std::string& game, const std::string& kind, const std::string& id);
/// `chat` to `room` ("players" or "spectators"); `text` passed checked_chat_text (chat.hpp).
std::string chat(const std::string& game, protocol::ChatRoom room, const std::string& text,
                 const std::string& id);
/// `chat_mute`: mute (or unmute) the opponent's players'-room messages.
std::string chat_mute(const std::string& game, bool mute, const std::string& id);
std::string lobby();
/// `games` with the command line's status, variant and limit filters.
std::string games(const CliOptions& options);
std::string replay(const std::string& game);

}  // namespace arbiter::client::requests
