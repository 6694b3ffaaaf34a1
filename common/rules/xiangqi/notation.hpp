#pragma once
/// \file
/// Xiangqi move notations: the wire coordinates Fairy-Stockfish writes (`h3e3`, `h10g8`), WXF
/// (`C2.5`, `H8+7`, `+R.4`), Chinese (`炮二平五`) and the algebraic SAN that Fairy-Stockfish and
/// pychess use in exported PGN (`Che3`, `Hg8`). The conventions chosen where sources differ are
/// listed in common/rules/xiangqi/README.md.

#include <string>
#include <string_view>
#include <vector>

#include "common/core/expected.hpp"
#include "common/rules/game.hpp"
#include "common/rules/xiangqi/position.hpp"

namespace arbiter::rules::xiangqi {

/// Wire form of a move: files a-i from red's left, ranks 1-10 from red's side ("h10g8").
std::string wire_notation(Move move);
/// Parses wire coordinates strictly (syntax only; legality is the caller's business).
Expected<Move, RulesError> parse_wire(std::string_view text);

/// WXF notation of a legal move in `position`: piece letter (K A E H R C P) and file counted from
/// the mover's right (tandem pieces: `+R`/`-R`; soldiers three to a file, or tandem on two
/// files: their place from the front then the file, `27.6`), then `+` forward, `-` backward,
/// `.` sideways, then the steps moved along a file or the destination file.
std::string wxf_notation(const Position& position, Move move);

/// Chinese notation of a legal move in `position` (`炮二平五`, `马８进７`): red counts files and
/// steps in Chinese numerals, black in full-width Arabic digits, as Chinese scoresheets do.
std::string chinese_notation(const Position& position, Move move);

/// Chinese notation of a whole game given as wire moves from a FEN ("" = start), or why a
/// position or move was refused.
Expected<std::vector<std::string>, RulesError> chinese_notation(
    std::string_view fen, const std::vector<std::string>& wire_moves);

/// A legal move of `position` written in wire or WXF notation (WXF also accepted with `=` for
/// sideways, lowercase, N/B for horse/elephant, and tandem markers after the letter: `R+.4`).
Expected<Move, RulesError> parse_move(const Position& position, std::string_view text);

}  // namespace arbiter::rules::xiangqi
