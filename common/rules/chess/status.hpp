#pragma once
/// \file
/// Game-ending tests that look at one position: dead positions by material, whether a side can
/// still mate, and the en-passant square as repetition sees it.

#include "common/rules/chess/position.hpp"

namespace arbiter::rules::chess {

/// Arbiter's dead positions (FIDE 5.2.2, the cases the server applies automatically): K v K,
/// K+B v K, K+N v K, and any number of bishops of either side all on squares of one colour with
/// nothing else besides the kings.
bool insufficient_material(const Position& position) noexcept;

/// Whether `color` could still checkmate by some series of legal moves, however unlikely
/// (helpmates count). Conservative: false only when it is provably impossible, that is when
/// `color` has a bare king; a lone knight against a bare king; or only bishops all on one square
/// colour against an opponent with nothing but bishops on that same colour (or a bare king).
/// Blocked pawn structures and other exotic fortresses are treated as "can win".
bool can_mate(const Position& position, Color color) noexcept;

/// The en-passant square if an en-passant capture is actually legal, else kNoSquare: FIDE 9.2.2
/// counts positions as different only when the capture could really be made.
Square legal_en_passant_square(const Position& position) noexcept;

}  // namespace arbiter::rules::chess
