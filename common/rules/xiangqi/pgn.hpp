#pragma once
/// \file
/// Whole-game export of xiangqi as PGN the way pychess writes it, in PGN export format: the
/// seven-tag roster, then in ASCII order [FEN] and [SetUp "1"] for a non-standard start,
/// [Termination] and [Variant "xiangqi"]; movetext in Fairy-Stockfish's xiangqi SAN (what
/// pychess's export calls produce) in lines of fewer than 80 characters, with optional
/// { [%clk H:MM:SS] } comments, and the empty line that ends the game.

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
