#pragma once
// The fixed positions the move-parser targets play on: each brings notation the start position
// does not (castling, en passant, promotion, SAN and WXF disambiguation, draughts captures with
// several routes and king captures). All come from tests/data/reference or the unit tests.

#include <array>
#include <span>
#include <string_view>

#include "common/rules/game.hpp"

namespace arbiter::fuzz {

inline constexpr std::array<std::string_view, 8> kChessPositions = {
    "startpos",
    // Kiwipete: castling both ways, en passant, promotions, pins.
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    // Promotion with capture and underpromotion, both sides.
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    // En passant that would expose the king.
    "3k4/8/8/K1Pp3r/8/8/8/8 w - d6 0 2",
    // Two knights and two rooks that reach the same squares (SAN file/rank disambiguation).
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    // Queens on both sides, every castling right.
    "r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1",
    // Promotion into check and mate patterns.
    "2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1",
    "8/k1P5/8/1K6/8/8/8/8 w - - 0 1",
};

inline constexpr std::array<std::string_view, 6> kXiangqiPositions = {
    "startpos",
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    // Two cannons on one file, two horses: WXF front/rear disambiguation.
    "CnN1k1b2/c3a4/4ba3/9/2nr5/9/9/4C4/4A4/4KA3 w - - 0 1",
    "1C2ka3/9/C1Nab1n2/p3p3p/6p2/9/P3P3P/3AB4/3p2c2/c1BAK4 w - - 0 1",
    "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1",
    "4kcP1N/8n/3rb4/9/9/9/9/3p1A3/4K4/5CB2 w - - 0 1",
};

inline constexpr std::array<std::string_view, 6> kDraughtsPositions = {
    "startpos",
    // A king capture with two routes to the same square (full path needed).
    "W:WK13:B7,15,17,19,K29",
    "B:W10,18,21,22,24,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,11,12,13",
    "W:WK15,20,K23,K28,31,32:BK2,6,8,K22",
    "W:W9,K10,12,21,24:B1,K6,7,20,K27",
    "B:W12,15,16,19,23,24,25,29:B1,3,4,5,8,9,11,13",
};

/// The fixed positions of `variant`.
inline std::span<const std::string_view> positions_of(rules::Variant variant) {
    switch (variant) {
        case rules::Variant::chess:
            return kChessPositions;
        case rules::Variant::xiangqi:
            return kXiangqiPositions;
        case rules::Variant::draughts:
            return kDraughtsPositions;
    }
    return kChessPositions;
}

}  // namespace arbiter::fuzz
