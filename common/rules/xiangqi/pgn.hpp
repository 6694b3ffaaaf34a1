#pragma once
/// \file
/// Whole-game export of xiangqi as PGN, in PGN export format: the seven-tag roster, then in
/// ASCII order [FEN] and [SetUp "1"] for a non-standard start, [Format "WXF"], [Termination],
/// [TimeControl] and [Variant "xiangqi"]; movetext in WXF notation, the notation the move list
/// of every client shows (`C2.5 H8+7`), with the XQ PGN `Format` tag that names it, in lines of
/// fewer than 80 characters, with optional { [%clk H:MM:SS] } comments, and the empty line that
/// ends the game.

#include <string>
#include <vector>

#include "common/rules/game.hpp"
#include "common/rules/xiangqi/position.hpp"

namespace arbiter::rules::xiangqi {

/// The parts of a game that its PGN shows.
struct PgnGame {
    const Position& start;
    const std::vector<std::string>& wxf;  ///< WXF of each ply, in order
    Status status;                        ///< the game's own verdict
};

/// The PGN text; the result is `info.outcome` when given, else the game's status.
std::string export_pgn(const ExportInfo& info, const PgnGame& game);

}  // namespace arbiter::rules::xiangqi
