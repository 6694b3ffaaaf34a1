#pragma once
/// \file
/// The engines a server offers ("play the computer"), read from its `welcome`.

#include <string>
#include <vector>

#include "common/protocol/messages.hpp"

namespace arbiter::client {

/// One line per engine of `welcome.engines`, e.g. "builtin  chess, xiangqi, draughts", then how
/// to play one; a single explaining line when the server lists none.
std::vector<std::string> engine_lines(const protocol::Welcome& welcome);

}  // namespace arbiter::client
