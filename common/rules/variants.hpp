#pragma once
/// \file
/// The entry point of each game's library; make_game() in factory.cpp dispatches to these.

#include <memory>
#include <string_view>

#include "common/rules/game.hpp"

namespace arbiter::rules::chess {
/// A chess game from a FEN (empty or "startpos": the standard start).
Expected<std::unique_ptr<Game>, RulesError> make_game(std::string_view position);
}  // namespace arbiter::rules::chess

namespace arbiter::rules::xiangqi {
/// A xiangqi game from a xiangqi FEN (empty or "startpos": the standard start).
Expected<std::unique_ptr<Game>, RulesError> make_game(std::string_view position);
}  // namespace arbiter::rules::xiangqi

namespace arbiter::rules::draughts {
/// A Brazilian draughts game from a PDN FEN (empty or "startpos": the standard start).
Expected<std::unique_ptr<Game>, RulesError> make_game(std::string_view position);
}  // namespace arbiter::rules::draughts
