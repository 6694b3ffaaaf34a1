#pragma once
// Positions the engine tests share: the start and a few middlegames of each game.

#include <string>
#include <vector>

#include "common/rules/game.hpp"

namespace arbiter::engine::test {

inline std::vector<std::string> sample_positions(rules::Variant variant) {
    switch (variant) {
        case rules::Variant::chess:
            return {"startpos",
                    "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8",
                    "r3k2r/ppp2ppp/2n1bn2/3qp3/3P4/2N1BN2/PPP1QPPP/R3K2R b KQkq - 3 9"};
        case rules::Variant::xiangqi:
            return {"startpos",
                    "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN1C1N2/9/R1BAKAB1R w - - 4 3",
                    "2bakab2/9/1cn1c1n2/p1p1p3p/6p2/2P6/P3P1P1P/1CN1C1N2/9/2BAKAB2 b - - 0 12"};
        case rules::Variant::draughts:
            return {"startpos", "W:W18,21,22,23,25,26,27,28,29,30,31:B1,2,3,5,6,7,8,9,10,12,13",
                    "B:W17,19,22,24,26,27,28,30,K3:B5,6,7,9,10,11,13,12"};
    }
    return {"startpos"};
}

inline constexpr rules::Variant kVariants[] = {rules::Variant::chess, rules::Variant::xiangqi,
                                               rules::Variant::draughts};

}  // namespace arbiter::engine::test
