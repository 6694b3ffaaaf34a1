#pragma once
/// \file
/// A player's name as the server keeps and shows it (protocol.md, hello): one spelling for what
/// looks the same, so that nobody passes for another player in the lobby or at the board. The
/// decoder reads `hello.name` through it; nothing else takes a name from a client.

#include <string>
#include <string_view>

#include "common/core/expected.hpp"

namespace arbiter::protocol {

/// `utf8` (valid UTF-8, already within text::kNameRule) in Unicode Normalization Form C, with
/// white space trimmed at both ends and each inner run of it one ASCII space; or, for a person,
/// why it is refused: an invisible character (zero-width, a bidirectional control, a filler,
/// any other default-ignorable or format character, a control, an unassigned or private-use
/// code point), nothing visible left, or more than 32 characters once normalised.
Expected<std::string, std::string> normalize_player_name(std::string_view utf8);

}  // namespace arbiter::protocol
