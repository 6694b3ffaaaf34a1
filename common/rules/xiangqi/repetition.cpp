#include "common/rules/xiangqi/repetition.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>

namespace arbiter::rules::xiangqi {

namespace {

struct Threat {
    int victim = 0;
    int attacker = 0;
};

bool crossed_river(Color color, Square square) {
    return color == Color::red ? rank_of(square) >= 5 : rank_of(square) <= 4;
}

// Whether the victim's side can legally take back on the square of `capture` once it is played.
bool protected_after(const Position& position, Move capture) {
    MoveList recaptures;
    legal_moves_to(position.after(capture), capture.to(), recaptures);
    return !recaptures.empty();
}

// Whether the capture `move` of the side to move in `view` counts as chasing (AXF/WXF core):
// - attacks by the general, or by a soldier that has not crossed the river, never count (they
//   may chase freely, README.md here); a soldier across the river chases like any other
//   piece;
// - an attack on the general is check, not chase; an attack on a soldier that has not crossed
//   the river is allowed;
// - two pieces of the same kind attacking each other offer an exchange, which is no chase, if the
//   victim may legally take the attacker (a pinned victim is chased);
// - a horse or cannon attacking a chariot chases it even when it is protected (the chariot is
//   worth more); any other attack chases only an unprotected piece, i.e. one that its side
//   cannot legally recapture after the capture.
bool counts_as_chase(const Position& view, Move move) {
    const Piece victim = view.at(move.to());
    const Kind attacker_kind = kind_of(view.at(move.from()));
    const Kind victim_kind = kind_of(victim);
    const bool free_soldier = attacker_kind == Kind::soldier &&
                              !crossed_river(color_of(view.at(move.from())), move.from());
    if (attacker_kind == Kind::general || free_soldier || victim_kind == Kind::general ||
        (victim_kind == Kind::soldier && !crossed_river(color_of(victim), move.to()))) {
        return false;
    }
    // Only a victim that may legally take back is offered an exchange: a piece pinned to its
    // line is chased by its like (AXF rules, diagrams 63-66).
    const Move take_back(move.to(), move.from());
    if (victim_kind == attacker_kind &&
        is_legal(view.with_side_to_move(color_of(victim)), take_back)) {
        return false;
    }
    const bool outranks = victim_kind == Kind::chariot &&
                          (attacker_kind == Kind::horse || attacker_kind == Kind::cannon);
    return outranks || !protected_after(view, move);
}

// The captures `color` could legally make in `position` that count as chasing.
std::vector<Threat> threats(const Position& position, Color color) {
    const Position view = position.with_side_to_move(color);
    MoveList list;
    legal_moves(view, list);
    std::vector<Threat> found;
    for (Move move : list) {
        if (view.at(move.to()) != kEmpty && counts_as_chase(view, move)) {
            found.push_back({view.id_at(move.to()), view.id_at(move.from())});
        }
    }
    return found;
}

}  // namespace

std::uint32_t chased_pieces(const Position& before, Move move) {
    const Color mover = before.side_to_move();
    const int moved_id = before.id_at(move.from());
    const bool evading = before.in_check();
    const auto old_threats = threats(before, mover);
    const Position after = before.after(move);
    std::uint32_t chased = 0;
    // A move chases only a piece it newly threatens. A threat that was already there is not
    // created by this move, even when the moving piece is the one that keeps it: a chariot that
    // steps along its line while the cannon it attacks steps along the same line never lets the
    // cannon out of its reach, and is no chase (AXF rules, appendix, "example of non-perpetual
    // chase": R2+1 c8+1 R2-1 c8-1).
    for (const Threat& threat : threats(after, mover)) {
        bool existed = false;
        for (const Threat& old : old_threats) {
            existed = existed || old.victim == threat.victim;
        }
        // A side in check may capture only to answer the check, so its other captures are
        // missing from old_threats. A capture by a piece that did not move, already possible by
        // the movement rules and already a chase before, was barred only by that check: the
        // evasion does not create it (H. G. Muller on the Asian rules: attacks that existed
        // before never count, even when a check made them briefly illegal). An evasion that
        // also releases a pin on the attacker is treated the same, though it does free the
        // capture.
        if (!existed && evading && threat.attacker != moved_id) {
            const Move capture(before.square_of(threat.attacker), before.square_of(threat.victim));
            existed = is_pseudo_legal(before, capture) && counts_as_chase(before, capture);
        }
        if (!existed) {
            chased |= 1U << threat.victim;
        }
    }
    return chased;
}

PlyRecord record_ply(const Position& before, Move move) {
    return PlyRecord{before.after(move).in_check(), chased_pieces(before, move)};
}

namespace {

// Whether the last of `hashes` has occurred three times; if so, the index of its first occurrence.
std::optional<std::size_t> third_occurrence(const std::vector<std::uint64_t>& hashes) {
    const std::size_t now = hashes.size() - 1;
    int occurrences = 0;
    std::size_t first = now;
    for (std::size_t k = 0; k <= now; ++k) {
        if (hashes[k] == hashes[now]) {
            ++occurrences;
            first = std::min(first, k);
        }
    }
    if (occurrences < 3) {
        return std::nullopt;
    }
    return first;
}

// The verdict on `cycle`, the plies played since position `first`; `first_mover` moved in
// position 0 of the game.
Status judge_cycle(std::span<const PlyRecord> cycle, std::size_t first, Color first_mover) {
    std::array<bool, 2> always_checked = {true, true};
    std::array<std::uint32_t, 2> always_chased = {~0U, ~0U};
    for (std::size_t k = 0; k < cycle.size(); ++k) {
        const Color mover = (first + k) % 2 == 0 ? first_mover : other(first_mover);
        const auto side = static_cast<std::size_t>(mover);
        always_checked[side] = always_checked[side] && cycle[k].gave_check;
        always_chased[side] &= cycle[k].chased;
    }
    auto loss_of = [](std::size_t side, Reason reason) {
        return Status{side == 0 ? Outcome::second_wins : Outcome::first_wins, reason};
    };
    // Perpetual check loses; if both sides checked throughout, the game is drawn.
    if (always_checked[0] != always_checked[1]) {
        return loss_of(always_checked[0] ? 0 : 1, Reason::perpetual_check);
    }
    if (!always_checked[0]) {
        const bool red_chased = always_chased[0] != 0;
        const bool black_chased = always_chased[1] != 0;
        if (red_chased != black_chased) {
            return loss_of(red_chased ? 0 : 1, Reason::perpetual_chase);
        }
    }
    return Status{Outcome::draw, Reason::repetition};
}

}  // namespace

std::optional<Status> judge_repetition(const std::vector<std::uint64_t>& hashes,
                                       const std::vector<PlyRecord>& plies, Color first_mover) {
    const auto first = third_occurrence(hashes);
    if (!first) {
        return std::nullopt;
    }
    const std::span<const PlyRecord> cycle(plies.data() + *first, hashes.size() - 1 - *first);
    return judge_cycle(cycle, *first, first_mover);
}

std::optional<Status> judge_repetition(const Position& start, const std::vector<Move>& moves,
                                       const std::vector<std::uint64_t>& hashes) {
    const auto first = third_occurrence(hashes);
    if (!first) {
        return std::nullopt;
    }
    Position position = start;
    for (std::size_t ply = 0; ply < *first; ++ply) {
        position = position.after(moves[ply]);
    }
    std::vector<PlyRecord> cycle;
    for (std::size_t ply = *first; ply < moves.size(); ++ply) {
        cycle.push_back(record_ply(position, moves[ply]));
        position = position.after(moves[ply]);
    }
    return judge_cycle(cycle, *first, start.side_to_move());
}

}  // namespace arbiter::rules::xiangqi
