#pragma once
/// \file
/// PGN export (PGN standard, "export format"): the seven-tag roster, then FEN, SetUp (for a
/// non-standard start) and Termination; SAN movetext in lines of fewer than 80 characters with
/// optional {[%clk h:mm:ss]} comments, and the empty line that ends the game.

#include <string>
#include <vector>

#include "common/rules/chess/types.hpp"
#include "common/rules/game.hpp"

namespace arbiter::rules::chess {

/// The moves of a game as PGN needs them.
struct PgnMoves {
    std::string start_fen;  ///< written as a FEN tag unless standard_start
    bool standard_start = true;
    Color first_mover = white;
    int first_move_number = 1;
    std::vector<std::string> san;  ///< every ply in order
};

/// The whole game as PGN text. `outcome` and `termination` are the final result and the
/// Termination tag value.
std::string write_pgn(const PgnMoves& moves, const ExportInfo& info, Outcome outcome,
                      const std::string& termination);

}  // namespace arbiter::rules::chess
