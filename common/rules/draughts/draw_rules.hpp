#pragma once
/// \file
/// The move-limit draws of Brazilian draughts, as counters carried from position to position.
///
/// Sources: the CBD "Regras Oficiais do Jogo de Damas" (64-square board), art. 97 b (20 moves
/// of kings only), art. 99 (small endings, 5 moves) and art. 100 (three pieces against a lone
/// king on the long diagonal, 5 moves), as Arbiter applies them:
/// - art. 97 b: 20 moves each (40 plies) in which only kings moved and nothing was captured;
/// - art. 99: 2K v 2K, 2K v 1K, 2K v 1K+1M, 1K v 1K, 1K v 1K+1M: 5 moves each (10 plies) from
///   when that material arose;
/// - art. 100: 3K, 2K+1M or 1K+2M against a lone king standing on the long diagonal
///   (squares 4, 8, 11, 15, 18, 22, 25, 29): 5 moves each (10 plies) from when that ending
///   arose. The ending lasts while the lone king stays on the long diagonal; if it steps off,
///   the ending is gone (the stronger side may now win it) and a return starts a new count.
/// A game started from a FEN starts every counter at 0. Threefold repetition (art. 98) needs
/// the history and lives in the Game adaptor.
///
/// The FMJD draughts-64 rules add a 15-move limit for three kings against one; where the two
/// rule books differ the project follows the CBD, which has no such limit off the long diagonal
/// (the 20-move rule of art. 97 b bounds that ending instead).

#include <cstdint>

#include "common/rules/draughts/movegen.hpp"

namespace arbiter::rules::draughts {

/// Plies of king moves without capture after which the game is drawn (art. 97 b).
inline constexpr int kKingMovePlyLimit = 40;
/// Plies after which a small ending of art. 99 or 100 is drawn.
inline constexpr int kEndingPlyLimit = 10;

/// Which counted ending a position is in.
enum class Ending : std::uint8_t {
    none,
    small,          ///< art. 99 material
    long_diagonal,  ///< art. 100 material with the lone king on the long diagonal
};

/// The ending `position` is in.
Ending classify_ending(const Position& position) noexcept;

/// The draw counters after some history. Copyable; one per position of a game.
struct DrawClock {
    int king_move_plies = 0;  ///< plies since the last capture or man move
    int ending_plies = 0;     ///< plies since the current ending arose (0 when none)
    Ending ending = Ending::none;
    /// Men and kings of each side when the ending arose (white men, white kings, black men,
    /// black kings, 8 bits each); any change of material starts a new count.
    std::uint32_t material = 0;

    /// The counters of a game that starts in `position` (all zero, ending recognised).
    static DrawClock start(const Position& position) noexcept;
    /// The counters after `move` took `before` to `after`.
    DrawClock next(const Position& before, const Move& move, const Position& after) const noexcept;
    /// Whether a move limit has drawn the game.
    bool limit_reached() const noexcept;
};

}  // namespace arbiter::rules::draughts
