#pragma once
/// \file
/// Whole-game export of xiangqi as PGN the way pychess writes it: the seven-tag roster,
/// [Variant "xiangqi"], [FEN] and [SetUp "1"] for a non-standard start, [Termination], and
/// movetext in Fairy-Stockfish's xiangqi SAN (what pychess's export calls produce), with
/// optional { [%clk H:MM:SS] } comments.

#include <string>
#include <vector>

#include "common/rules/game.hpp"
#include "common/rules/xiangqi/position.hpp"

namespace arbiter::rules::xiangqi {

/// The parts of a game that its PGN shows.
struct PgnGame {
    const Position& start;
    const std::vector<std::string>& san;  ///< SAN of each ply, in order
    Status status;                        ///< the game's own verdict
};

/// The PGN text; the result is `info.outcome` when given, else the game's status.
std::string export_pgn(const ExportInfo& info, const PgnGame& game);

}  // namespace arbiter::rules::xiangqi
