#pragma once
/// \file
/// The project's repetition ruling for xiangqi (binding where rule books differ): at the third
/// occurrence of a position, judge the moves since its first occurrence. A side that checked
/// with every one of its moves loses (both did: draw); otherwise a side that chased the same
/// piece with every one of its moves loses (both did: draw); otherwise the game is drawn.
/// What "chase" covers is listed in common/rules/xiangqi/README.md.

#include <cstdint>
#include <optional>
#include <vector>

#include "common/rules/game.hpp"
#include "common/rules/xiangqi/position.hpp"

namespace arbiter::rules::xiangqi {

/// What one ply contributes to the repetition judgement.
struct PlyRecord {
    bool gave_check = false;   ///< the move left the opponent in check
    std::uint32_t chased = 0;  ///< bit i: the move chased the opponent piece with identity i
};

/// The opponent pieces (bits by identity) that playing the legal `move` in `before` chases.
std::uint32_t chased_pieces(const Position& before, Move move);

/// The record of the legal `move` played in `before`.
PlyRecord record_ply(const Position& before, Move move);

/// The repetition verdict for a game whose positions had the keys `hashes` (position k is the
/// one before ply k; the last is the current one) and whose plies are `plies`; `first_mover`
/// is the side to move in position 0. nullopt while no position has occurred three times.
std::optional<Status> judge_repetition(const std::vector<std::uint64_t>& hashes,
                                       const std::vector<PlyRecord>& plies, Color first_mover);

/// The same verdict for the game played from `start` by `moves`. The records are computed only
/// for the plies of the cycle, and only once a third occurrence is found: finding a ply's chases
/// takes dozens of move generations, too much to spend on every move.
std::optional<Status> judge_repetition(const Position& start, const std::vector<Move>& moves,
                                       const std::vector<std::uint64_t>& hashes);

}  // namespace arbiter::rules::xiangqi
