#pragma once
/// \file
/// How an analysed game is judged, as pure functions (schema/protocol.md, "Analysis"): an
/// evaluation's winning chances, the mark of each move (?!, ?, ??) and each side's accuracy,
/// all as Lichess computes them (lila's WinPercent, Advice and AccuracyPercent). Evaluations are
/// from the first seat's view throughout; the mover's view is taken here.

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "common/rules/game.hpp"

namespace arbiter::server::app {

/// An engine's evaluation of a position, from the first seat's view: centipawns, or the moves
/// to a forced mate (positive: the first seat mates; negative: it is mated).
struct Score {
    enum class Kind : std::uint8_t { cp, mate };
    Kind kind = Kind::cp;
    int value = 0;
    static Score centipawns(int cp) { return {Kind::cp, cp}; }
    static Score mate_in(int moves) { return {Kind::mate, moves}; }
    friend bool operator==(const Score&, const Score&) = default;
};

/// The same score from the other seat's view.
Score flipped(Score score);

/// A move's mark, from the drop in its mover's winning chances.
enum class Mark : std::uint8_t { none, inaccuracy, mistake, blunder };

/// "?!", "?", "??"; "" for none.
std::string_view to_symbol(Mark mark);

/// Centipawns as Lichess clamps them before any judgement: into [-1000, 1000], a mate counting
/// as 1000 towards its side.
int ceiled_centipawns(Score score);
/// Lichess's winning chances on [-1, 1]: 2 / (1 + exp(-0.00368208 * cp)) - 1, of the ceiled
/// centipawns.
double winning_chances(Score score);
/// Lichess's win%: 50 + 50 * winning_chances, on [0, 100].
double win_percent(Score score);

/// The mark of a move by `mover` from a position evaluated `before` to one evaluated `after`
/// (lila's Advice: CpAdvice when both are centipawns, else MateAdvice). No mark when either is
/// unknown.
Mark mark_of(std::optional<Score> before, std::optional<Score> after, rules::Side mover);

/// The accuracy of one move from its mover's win% before and after (lila's AccuracyPercent):
/// 100 when the win% did not drop, else 103.1668 * exp(-0.04354 * drop) - 3.1669, plus lila's
/// bonus of 1, clamped to [0, 100].
double move_accuracy(double win_before, double win_after);

/// Each side's accuracy over a game (lila's gameAccuracy): the mean of a volatility-weighted mean
/// and a harmonic mean of the side's move accuracies. `evals[i]` is the position after ply i
/// (evals[0] the start); unknown evaluations are left out, as lila leaves them out. `first_mover`
/// moves from evals[0]. A side without a move has no figure.
std::array<std::optional<double>, 2> game_accuracy(const std::vector<std::optional<Score>>& evals,
                                                   rules::Side first_mover);

}  // namespace arbiter::server::app
