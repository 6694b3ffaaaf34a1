#pragma once
/// \file
/// Move notation: UCI (the wire form, "e2e4", "e7e8q", castling "e1g1") and SAN (the display
/// form, "Nbd7", "exd8=Q+", "O-O").

#include <string>
#include <string_view>

#include "common/core/expected.hpp"
#include "common/rules/chess/movegen.hpp"
#include "common/rules/game.hpp"

namespace arbiter::rules::chess {

/// "e2e4", "e7e8q".
std::string to_uci(Move move);
/// "a1".."h8".
std::string square_text(Square square);

/// Whether `text` is written as UCI (four coordinates and maybe a fifth letter), legal or not:
/// such text is judged as a UCI move, anything else as SAN.
bool is_uci_shaped(std::string_view text) noexcept;

/// The legal move written in strict UCI: four lowercase coordinates and, for a promotion only, a
/// lowercase piece letter (q r b n). Uppercase promotion letters are refused so that each move
/// has exactly one wire form. `legal` is the legal moves of `position` (legal_moves), which
/// the caller keeps: a game lists them once a ply.
Expected<Move, RulesError> parse_uci(const Position& position, std::string_view text,
                                     const MoveList& legal);

/// The SAN of a legal move, with the minimal disambiguation and "+" or "#".
std::string to_san(const Position& position, Move move);

/// The legal move written in SAN. Tolerated: a missing or wrong "+"/"#", trailing "!"/"?"
/// annotations, "0-0" for "O-O", a promotion without "=" ("e8Q"), over-disambiguation, and a
/// capture without "x"; "e.p." after an en-passant capture ("exd6 e.p.", FIDE Appendix C.9.3).
/// Refused: "x" on a move that captures nothing ("Nxf3" to an empty f3), "e.p." on any other.
Expected<Move, RulesError> parse_san(const Position& position, std::string_view text);

}  // namespace arbiter::rules::chess
