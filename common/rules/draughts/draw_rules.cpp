#include "common/rules/draughts/draw_rules.hpp"

#include <bit>

namespace arbiter::rules::draughts {

namespace {

struct Force {
    int men = 0;
    int kings = 0;
    friend bool operator==(const Force&, const Force&) = default;
};

Force force(Bitboard pieces, Bitboard kings) noexcept {
    return Force{std::popcount(pieces & ~kings), std::popcount(pieces & kings)};
}

std::uint32_t material_key(const Position& position) noexcept {
    const Force white = force(position.white(), position.kings());
    const Force black = force(position.black(), position.kings());
    return static_cast<std::uint32_t>(white.men | (white.kings << 8) | (black.men << 16) |
                                      (black.kings << 24));
}

/// CBD art. 99: two kings against two kings, two kings against one king, two kings against a
/// king and a man, a king against a king, a king against a king and a man.
bool small_ending(Force strong, Force weak) noexcept {
    constexpr Force k1{0, 1};
    constexpr Force k2{0, 2};
    constexpr Force k1m1{1, 1};
    return (strong == k2 && (weak == k2 || weak == k1 || weak == k1m1)) ||
           (strong == k1 && (weak == k1 || weak == k1m1));
}

/// CBD art. 100: three kings, two kings and a man, or a king and two men against a lone king.
bool three_against_lone_king(Force strong, Force weak) noexcept {
    return weak == Force{0, 1} &&
           (strong == Force{0, 3} || strong == Force{1, 2} || strong == Force{2, 1});
}

}  // namespace

Ending classify_ending(const Position& position) noexcept {
    const Force white = force(position.white(), position.kings());
    const Force black = force(position.black(), position.kings());
    if (small_ending(white, black) || small_ending(black, white)) {
        return Ending::small;
    }
    if (three_against_lone_king(white, black) && (position.black() & kLongDiagonal) != 0) {
        return Ending::long_diagonal;
    }
    if (three_against_lone_king(black, white) && (position.white() & kLongDiagonal) != 0) {
        return Ending::long_diagonal;
    }
    return Ending::none;
}

DrawClock DrawClock::start(const Position& position) noexcept {
    DrawClock clock;
    clock.ending = classify_ending(position);
    clock.material = material_key(position);
    return clock;
}

DrawClock DrawClock::next(const Position& before, const Move& move,
                          const Position& after) const noexcept {
    DrawClock clock;
    // Art. 97 b: only king moves without any capture count; a capture or a man's move (also one
    // that crowns) starts the count again.
    const bool king_moved = (before.kings() & bit(move.from)) != 0;
    clock.king_move_plies = move.is_capture() || !king_moved ? 0 : king_move_plies + 1;
    // Arts. 99 and 100: counted from when the ending arose; a change of material (a capture or
    // a crowning) or leaving the ending starts again.
    clock.ending = classify_ending(after);
    clock.material = material_key(after);
    const bool same_ending =
        clock.ending != Ending::none && clock.ending == ending && clock.material == material;
    clock.ending_plies = same_ending ? ending_plies + 1 : 0;
    return clock;
}

bool DrawClock::limit_reached() const noexcept {
    return king_move_plies >= kKingMovePlyLimit ||
           (ending != Ending::none && ending_plies >= kEndingPlyLimit);
}

}  // namespace arbiter::rules::draughts
