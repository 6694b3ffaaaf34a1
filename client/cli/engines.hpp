#pragma once
/// \file
/// The engines a server offers ("play the computer"), read from its `welcome`.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace arbiter::client {

/// One line per engine of `welcome.engines`, e.g. "builtin  chess, xiangqi, draughts", then how
/// to play one; a single explaining line when the server lists none (an older server).
std::vector<std::string> engine_lines(const nlohmann::json& welcome);

}  // namespace arbiter::client
