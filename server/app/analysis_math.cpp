// Lichess's judgement of a game, after lila (github.com/lichess-org/lila, modules/analyse):
// WinPercent.scala, Advice.scala and AccuracyPercent.scala; the sources are cited in
// schema/protocol.md, "Analysis".
#include "server/app/analysis_math.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace arbiter::server::app {

namespace {

// lila's Eval.Cp.CEILING: centipawns beyond it say no more, and a mate counts as it.
constexpr int kCeiling = 1000;

// A score from the mover's view.
Score seen_by(Score score, rules::Side side) {
    return side == rules::Side::first ? score : flipped(score);
}

Mark judged_by_drop(double drop) {
    // Advice.winningChanceJudgements: drops of .3, .2, .1 on the [-1, 1] scale.
    if (drop >= 0.3) {
        return Mark::blunder;
    }
    if (drop >= 0.2) {
        return Mark::mistake;
    }
    if (drop >= 0.1) {
        return Mark::inaccuracy;
    }
    return Mark::none;
}

// MateAdvice: a mate against the mover created, or the mover's own mate lost, judged by the
// centipawns on the other side of it (0 when that side is a mate too).
Mark judged_by_mate(Score before, Score after) {
    const bool mate_before = before.kind == Score::Kind::mate;
    const bool mate_after = after.kind == Score::Kind::mate;
    const int cp_before = mate_before ? 0 : before.value;
    const int cp_after = mate_after ? 0 : after.value;
    if (!mate_before && mate_after && after.value < 0) {  // MateCreated
        return cp_before < -999   ? Mark::inaccuracy
               : cp_before < -700 ? Mark::mistake
                                  : Mark::blunder;
    }
    if (mate_before && before.value > 0 && (!mate_after || after.value < 0)) {  // MateLost
        return cp_after > 999 ? Mark::inaccuracy : cp_after > 700 ? Mark::mistake : Mark::blunder;
    }
    return Mark::none;  // MateDelayed and the rest are not marked
}

double standard_deviation(const std::vector<double>& values) {
    const double mean =
        std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
    double sum = 0;
    for (const double value : values) {
        sum += (value - mean) * (value - mean);
    }
    return std::sqrt(sum / static_cast<double>(values.size()));
}

}  // namespace

Score flipped(Score score) {
    return {score.kind, -score.value};
}

std::string_view to_symbol(Mark mark) {
    switch (mark) {
        case Mark::none:
            return "";
        case Mark::inaccuracy:
            return "?!";
        case Mark::mistake:
            return "?";
        case Mark::blunder:
            return "??";
    }
    return "";
}

int ceiled_centipawns(Score score) {
    if (score.kind == Score::Kind::mate) {
        return score.value >= 0 ? kCeiling : -kCeiling;
    }
    return std::clamp(score.value, -kCeiling, kCeiling);
}

double winning_chances(Score score) {
    const double cp = ceiled_centipawns(score);
    return std::clamp(2 / (1 + std::exp(-0.00368208 * cp)) - 1, -1.0, 1.0);
}

double win_percent(Score score) {
    return 50 + 50 * winning_chances(score);
}

Mark mark_of(std::optional<Score> before, std::optional<Score> after, rules::Side mover) {
    if (!before || !after) {
        return Mark::none;
    }
    const Score mover_before = seen_by(*before, mover);
    const Score mover_after = seen_by(*after, mover);
    if (mover_before.kind == Score::Kind::cp && mover_after.kind == Score::Kind::cp) {
        return judged_by_drop(winning_chances(mover_before) - winning_chances(mover_after));
    }
    return judged_by_mate(mover_before, mover_after);
}

double move_accuracy(double win_before, double win_after) {
    if (win_after >= win_before) {
        return 100;
    }
    const double drop = win_before - win_after;
    const double raw =
        103.1668100711649 * std::exp(-0.04354415386753951 * drop) - 3.166924740191411;
    return std::clamp(raw + 1, 0.0, 100.0);  // lila's "uncertainty bonus"
}

std::array<std::optional<double>, 2> game_accuracy(const std::vector<std::optional<Score>>& evals,
                                                   rules::Side first_mover) {
    std::vector<double> wins;  // the first seat's win%, known evaluations only (as lila's flatMap)
    for (const auto& eval : evals) {
        if (eval) {
            wins.push_back(win_percent(*eval));
        }
    }
    if (wins.size() < 2) {
        return {};
    }
    // Each move is weighted by how volatile the game was around it: the standard deviation of
    // the win% over a window of (moves / 10, within 2..8) positions, within 0.5..12; the first
    // moves take the first window (AccuracyPercent.gameAccuracy).
    const std::size_t moves = wins.size() - 1;
    const std::size_t window = std::clamp<std::size_t>(moves / 10, 2, 8);
    const std::size_t span = std::min(window, wins.size());
    std::vector<double> weights;
    for (std::size_t i = 0; i + 2 < span; ++i) {
        weights.push_back(standard_deviation({wins.begin(), wins.begin() + span}));
    }
    for (std::size_t start = 0; start + span <= wins.size(); ++start) {
        const std::vector<double> slice(wins.begin() + start, wins.begin() + start + span);
        weights.push_back(standard_deviation(slice));
    }
    std::array<double, 2> weighted_sum{};
    std::array<double, 2> weight_total{};
    std::array<double, 2> inverse_sum{};
    std::array<std::size_t, 2> count{};
    for (std::size_t i = 0; i < moves && i < weights.size(); ++i) {
        const rules::Side mover = i % 2 == 0 ? first_mover : rules::opponent(first_mover);
        const bool first = mover == rules::Side::first;
        const double before = first ? wins[i] : 100 - wins[i];
        const double after = first ? wins[i + 1] : 100 - wins[i + 1];
        const double accuracy = move_accuracy(before, after);
        const double weight = std::clamp(weights[i], 0.5, 12.0);
        const std::size_t seat = first ? 0 : 1;
        weighted_sum[seat] += accuracy * weight;
        weight_total[seat] += weight;
        // lila's Maths.harmonicMean counts each value as at least 1.
        inverse_sum[seat] += 1 / std::max(1.0, accuracy);
        ++count[seat];
    }
    std::array<std::optional<double>, 2> result;
    for (std::size_t seat = 0; seat < 2; ++seat) {
        if (count[seat] > 0) {
            const double weighted = weighted_sum[seat] / weight_total[seat];
            const double harmonic = static_cast<double>(count[seat]) / inverse_sum[seat];
            result[seat] = (weighted + harmonic) / 2;
        }
    }
    return result;
}

}  // namespace arbiter::server::app
