#pragma once
/// \file
/// What clients see of a stored game: its summary in lists, its `record` for replays, and its
/// export.

#include <array>
#include <string>

#include "common/core/expected.hpp"
#include "common/protocol/messages.hpp"
#include "server/storage/repository.hpp"

namespace arbiter::server::app {

/// A GameSummary from a stored header. `present`: whether each seat has a connection now (a game
/// not in memory has none); an engine's seat is always connected.
protocol::GameSummary summary_of(const storage::GameRow& row, std::array<bool, 2> present = {});
/// A `record` message from a stored game (`present` as for summary_of).
protocol::Record record_of(const storage::StoredGame& game, std::array<bool, 2> present = {});
/// The chat a `record` lists (protocol.md, Chat): the spectators' room for everyone, and the
/// players' room too for `reader`, an account that sat in the game (nullopt: a guest).
std::vector<protocol::ChatLine> record_chat(const storage::StoredGame& game,
                                            std::optional<std::int64_t> reader);
/// A stored game in its variant's notation, as GET /api/games/{id}/export gives it (PGN for chess
/// and xiangqi, PDN for draughts, from rules::Game::export_text); or why its moves do not replay.
/// `evals`: the "[%eval …]" command after each ply, from the game's analysis (none: no comments).
Expected<std::string, std::string> export_text(const storage::StoredGame& game,
                                               std::vector<std::string> evals = {});

}  // namespace arbiter::server::app
