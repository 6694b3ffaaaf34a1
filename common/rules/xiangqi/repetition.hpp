#pragma once
/// \file
/// The project's repetition ruling for xiangqi (binding where rule books differ): at the third
/// occurrence of a position, judge the moves since its first occurrence. A side that checked
/// with every one of its moves loses (both did: draw); otherwise a side that chased the same
/// piece with every one of its moves loses (both did: draw); otherwise the game is drawn.
/// What "chase" covers is listed in common/rules/xiangqi/README.md.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
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

/// Whether the last of `hashes` (the keys of a game's positions, position k being the one
/// before ply k) has occurred three times; if so, the index of its first occurrence.
std::optional<std::size_t> third_occurrence(const std::vector<std::uint64_t>& hashes);

/// The verdict on the plies played since the first occurrence of a position that has now
/// occurred three times; `first_mover` played the first of `plies`.
Status judge_cycle(std::span<const PlyRecord> plies, Color first_mover);

/// The repetition verdict for a game whose positions had the keys `hashes` and whose plies are
/// `plies`; `first_mover` is the side to move in position 0. nullopt while no position has
/// occurred three times. (third_occurrence and judge_cycle in one; a game computes the records
/// of the cycle only once a third occurrence is found, since judging them is costly.)
std::optional<Status> judge_repetition(const std::vector<std::uint64_t>& hashes,
                                       const std::vector<PlyRecord>& plies, Color first_mover);

}  // namespace arbiter::rules::xiangqi
