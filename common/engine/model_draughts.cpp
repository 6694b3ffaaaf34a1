// Brazilian draughts evaluation: material (a king is worth about three men), the advancement of
// men towards the crowning row, men kept on the back rank to stop enemy crowning, the centre,
// kings on the long diagonal, and a push to trade down when ahead.

#include <array>
#include <bit>

#include "common/core/assert.hpp"
#include "common/engine/model.hpp"
#include "common/rules/draughts/position.hpp"

namespace arbiter::engine {
namespace {

namespace dr = rules::draughts;

constexpr int kManValue = kPawnValue;
constexpr int kKingValue = 3 * kManValue;
/// Bonus of a man by the rows it has advanced from its own back rank (0) towards crowning (7).
constexpr std::array<int, 8> kAdvance = {0, 2, 4, 7, 11, 16, 22, 0};
/// A man still on its back rank keeps enemy men from crowning there.
constexpr int kBackRankGuard = 10;
/// Squares 14, 15, 18 and 19 (bits 13, 14, 17, 18).
constexpr dr::Bitboard kCentre = dr::bit(13) | dr::bit(14) | dr::bit(17) | dr::bit(18);
constexpr int kCentreBonus = 6;
constexpr int kLongDiagonalKing = 15;
/// Per piece missing from the board, bonus for the side ahead in material: trading down wins.
constexpr int kTradeDownBonus = 3;
/// Pieces on the board at the start.
constexpr int kStartPieces = 2 * dr::kMaxPiecesPerSide;

/// Row 0 (squares 1-4, White's crowning row) .. 7 (squares 29-32).
constexpr int row_of(int index) {
    return index / 4;
}

int men_score(dr::Bitboard men, bool white) {
    int score = 0;
    for (dr::Bitboard rest = men; rest != 0; rest &= rest - 1) {
        const int row = row_of(std::countr_zero(rest));
        score += kManValue + kAdvance[static_cast<std::size_t>(white ? 7 - row : row)];
    }
    const dr::Bitboard back_rank = white ? dr::kBlackCrownRow : dr::kWhiteCrownRow;
    score += kBackRankGuard * std::popcount(men & back_rank);
    score += kCentreBonus * std::popcount(men & kCentre);
    return score;
}

int kings_score(dr::Bitboard kings) {
    return kKingValue * std::popcount(kings) +
           kLongDiagonalKing * std::popcount(kings & dr::kLongDiagonal);
}

class DraughtsModel final : public PositionModel {
  public:
    void load(const rules::Game& game) override {
        auto parsed = dr::Position::from_fen(game.position());
        ARBITER_ASSERT(parsed.has_value());
        position_ = parsed.value();
    }

    int evaluate() const override {
        const dr::Position& pos = position_;
        const dr::Bitboard white_men = pos.white() & ~pos.kings();
        const dr::Bitboard black_men = pos.black() & ~pos.kings();
        const int material = kManValue * (std::popcount(white_men) - std::popcount(black_men)) +
                             kKingValue * (std::popcount(pos.white() & pos.kings()) -
                                           std::popcount(pos.black() & pos.kings()));
        int white_view = men_score(white_men, true) - men_score(black_men, false) +
                         kings_score(pos.white() & pos.kings()) -
                         kings_score(pos.black() & pos.kings());
        const int missing = kStartPieces - std::popcount(pos.occupied());
        if (material != 0) {
            white_view += (material > 0 ? 1 : -1) * kTradeDownBonus * missing;
        }
        return pos.side_to_move() == rules::Side::first ? white_view : -white_view;
    }

    int capture_value(std::string_view wire) const override {
        // PDN writes a capture with "x" (22x15, 22x13x6). Which capture goes first does not
        // matter: the majority rule (CBD) makes every legal capture take as many pieces.
        return wire.find('x') == std::string_view::npos ? 0 : kManValue;
    }

  private:
    dr::Position position_;
};

}  // namespace

std::unique_ptr<PositionModel> make_draughts_model() {
    return std::make_unique<DraughtsModel>();
}

}  // namespace arbiter::engine
