#pragma once
/// \file
/// Internal to the protocol module: the `move` request in its usual shape, read without building
/// a JSON tree. A move is most of what a busy server reads, and building nlohmann's tree of it
/// (a map node and a string per member) cost ~2.5 us of the ~50 us the server spends on a move,
/// profiled under load. decode() tries this first and reads everything else in full.

#include <optional>
#include <string_view>

#include "common/core/expected.hpp"
#include "common/protocol/messages.hpp"

namespace arbiter::protocol::detail {

/// The message, if `text` is one JSON object whose members are exactly "type": "move", "game",
/// "move" and "ply" and optionally "id", each once, in any order, with strings of printable ASCII
/// without escapes, a plain non-negative integer ply (no sign, fraction or exponent), JSON
/// whitespace anywhere between tokens, and every value within decode()'s bounds. Otherwise
/// nullopt, and decode() reads the text in full: that reader alone accepts the other shapes and
/// words every refusal. Whatever this accepts, read_message() accepts as the same message
/// (tests/fuzz/fuzz_protocol.cpp checks it on every input).
std::optional<ClientMessage> read_plain_move(std::string_view text);

/// decode()'s full reader: every message in every shape, through a JSON tree.
Expected<ClientMessage, ProtocolError> read_message(std::string_view text);

}  // namespace arbiter::protocol::detail
