#pragma once
/// \file
/// PDN move notation for Brazilian draughts: `21-17` for a plain move, `22x15` for a capture,
/// and the full landing path `22x13x6` where start and end alone do not identify the move.
///
/// Canonical form: the short form (start and end) when no other legal move shares the start and
/// end squares; otherwise the full path of landing squares. Two legal moves never share a full
/// path: every leg of a path runs along one diagonal and passes exactly one piece, which is the
/// piece it takes, so the landing squares fix the captured set. Moves with the same start, end
/// and captured set are one move whatever the path (perft convention), so any of their paths
/// is accepted and the first one found is written.

#include <string>
#include <string_view>

#include "common/core/expected.hpp"
#include "common/rules/draughts/movegen.hpp"
#include "common/rules/game.hpp"

namespace arbiter::rules::draughts {

/// `21-17`, `22x15`: start and end only.
std::string short_text(const Move& move);

/// Start, every intermediate landing and end: `22x13x6`; `21-17` for a plain move.
std::string full_text(const Move& move);

/// The canonical text of `move` among the legal moves `legal` (see the file comment).
std::string canonical_text(const Move& move, const MoveList& legal);

/// The legal move that `text` names in `position`, whose legal moves are `legal`. Accepts the
/// short form when it is unambiguous and any valid full landing path of a legal move; an
/// ambiguous short form is refused with the full paths of the candidates.
Expected<Move, RulesError> parse_move(const Position& position, std::string_view text,
                                      const MoveList& legal);

}  // namespace arbiter::rules::draughts
