#pragma once
/// \file
/// The move list and the pieces taken, as the game screen and `replay --print` show them. Both
/// come from what the server sent (the display notation of each move, the start and the current
/// position): the client knows no rules.

#include <cstddef>
#include <string>
#include <vector>

#include "client/cli/render.hpp"

namespace arbiter::client {

/// The moves in numbered pairs, from the game's first ply: {"1. e4 e5", "2. Nf3"}; a game whose
/// second seat moved first opens with "1... e5".
std::vector<std::string> move_pairs(const std::vector<std::string>& notation,
                                    bool second_seat_started);

/// The pairs joined into lines of at most `width` columns (a pair longer than that on a line of
/// its own), only the last `max_lines` of them (0: all).
std::string move_list_text(const std::vector<std::string>& pairs, std::size_t width,
                           std::size_t max_lines);

/// The pieces each side has taken, as letters of the pieces taken, strongest first: chess
/// "qrbnp", xiangqi "rnbacp" (upper case when the first seat's were taken); draughts counts
/// men and kings alike, one 'b' or 'w' each.
struct CapturedPieces {
    std::string by_first;   ///< the second seat's pieces that the first seat took
    std::string by_second;  ///< the first seat's pieces that the second seat took
};

/// What was taken between the start `initial` and `position`. A pawn that was promoted is not
/// counted as taken (the piece it became is more than the start had). A position that cannot be
/// read shows nothing taken.
CapturedPieces captured_pieces(const std::string& variant, const std::string& initial,
                               const std::string& position);

/// "Captured: by White q p p, by Black N" (nothing when nothing was taken); draughts counts:
/// "Captured: by White 3, by Black 1". `seats` are the variant's, first seat first.
std::string captured_line(const CapturedPieces& captured, const std::string& variant);

}  // namespace arbiter::client
