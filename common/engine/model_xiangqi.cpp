// Xiangqi evaluation: material, the mobility of both sides (legal move counts), and soldiers
// that crossed the river (they gain sideways moves) and close in on the enemy palace.

#include <array>
#include <optional>

#include "common/core/assert.hpp"
#include "common/engine/model.hpp"
#include "common/rules/xiangqi/notation.hpp"
#include "common/rules/xiangqi/position.hpp"

namespace arbiter::engine {
namespace {

namespace xq = rules::xiangqi;

/// By Kind: none, general, advisor, elephant, horse, chariot, cannon, soldier (not crossed).
constexpr std::array<int, 8> kPieceValue = {0, 0, 200, 200, 400, 900, 450, kPawnValue};
/// Bonus per legal move more than the opponent has.
constexpr int kMobilityWeight = 2;
/// Identities 0-15 are red pieces, 16-31 black (xiangqi::Position keeps them through moves).
constexpr int kPieceIds = 32;

/// A soldier's worth by how far it has come: across the river it may also step sideways
/// (xiangqi rules: soldiers move sideways only after crossing), near the palace it threatens the
/// general, and on the last rank it can no longer advance.
int soldier_value(xq::Color color, xq::Square square) {
    const int file = xq::file_of(square);
    const int advance = color == xq::Color::red ? xq::rank_of(square) : 9 - xq::rank_of(square);
    if (advance < 5) {
        return kPawnValue;
    }
    if (advance == 9) {
        return 150;
    }
    const bool before_palace = advance >= 6 && file >= 3 && file <= 5;
    return 2 * kPawnValue + (before_palace ? 40 : 0);
}

int legal_move_count(const xq::Position& position) {
    xq::MoveList list;
    position.legal_moves(list);
    return list.size;
}

class XiangqiModel final : public PositionModel {
  public:
    void load(const rules::Game& game) override {
        auto parsed = xq::Position::from_fen(game.position());
        ARBITER_ASSERT(parsed.has_value());
        position_.emplace(parsed.value());
    }

    int evaluate() const override {
        const xq::Position& pos = *position_;
        int red_view = 0;
        for (int id = 0; id < kPieceIds; ++id) {
            const xq::Square square = pos.square_of(id);
            if (square == 0) {
                continue;
            }
            const xq::Piece piece = pos.at(square);
            const xq::Color color = xq::color_of(piece);
            const xq::Kind kind = xq::kind_of(piece);
            const int value = kind == xq::Kind::soldier ? soldier_value(color, square)
                                                        : kPieceValue[static_cast<int>(kind)];
            red_view += color == xq::Color::red ? value : -value;
        }
        const xq::Color mover = pos.side_to_move();
        const int mobility =
            legal_move_count(pos) - legal_move_count(pos.with_side_to_move(xq::other(mover)));
        const int mover_view = mover == xq::Color::red ? red_view : -red_view;
        constexpr int tempo = 10;
        return mover_view + kMobilityWeight * mobility + tempo;
    }

    int capture_value(std::string_view wire) const override {
        auto move = xq::parse_wire(wire);
        if (!move.has_value()) {
            return 0;
        }
        const xq::Piece victim = position_->at(move.value().to());
        if (victim == xq::kEmpty || victim == xq::kOffBoard) {
            return 0;
        }
        // Taking the general never happens in legal play; rank it above everything anyway.
        const xq::Kind kind = xq::kind_of(victim);
        return kind == xq::Kind::general ? 10000 : kPieceValue[static_cast<int>(kind)];
    }

  private:
    std::optional<xq::Position> position_;
};

}  // namespace

std::unique_ptr<PositionModel> make_xiangqi_model() {
    return std::make_unique<XiangqiModel>();
}

}  // namespace arbiter::engine
