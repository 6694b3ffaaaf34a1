// Xiangqi evaluation: material, the mobility of chariots, horses and cannons, and soldiers
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
/// Bonus per move of a chariot, horse or cannon (the opponent's count against).
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

/// Mailbox steps (xiangqi::Square is rank * 16 + file, padded by two cells): file and rank.
constexpr std::array<int, 4> kOrthogonal = {1, -1, 16, -16};
/// A horse's eight jumps, each with the point next to it that must be empty (its "leg").
struct HorseJump {
    int to;
    int leg;
};
constexpr std::array<HorseJump, 8> kHorseJumps = {
    {{33, 16}, {31, 16}, {-33, -16}, {-31, -16}, {18, 1}, {-14, 1}, {14, -1}, {-18, -1}}};

bool enemy_or_empty(xq::Piece target, xq::Color color) {
    return target == xq::kEmpty || (target != xq::kOffBoard && xq::color_of(target) != color);
}

/// Pseudo-legal moves of the piece on `square`, counted for chariots, horses and cannons only:
/// the pieces whose freedom decides the middlegame. Far cheaper than a legal move generation,
/// which would be needed twice per evaluation (once per side).
int piece_mobility(const xq::Position& pos, xq::Square square, xq::Kind kind, xq::Color color) {
    int count = 0;
    if (kind == xq::Kind::horse) {
        for (const HorseJump& jump : kHorseJumps) {
            if (pos.at(static_cast<xq::Square>(square + jump.leg)) == xq::kEmpty &&
                enemy_or_empty(pos.at(static_cast<xq::Square>(square + jump.to)), color)) {
                ++count;
            }
        }
        return count;
    }
    for (const int step : kOrthogonal) {
        int at = square + step;
        while (pos.at(static_cast<xq::Square>(at)) == xq::kEmpty) {
            ++count;
            at += step;
        }
        const xq::Piece blocker = pos.at(static_cast<xq::Square>(at));
        if (kind == xq::Kind::chariot) {
            count += enemy_or_empty(blocker, color) ? 1 : 0;
        } else if (blocker != xq::kOffBoard) {
            // A cannon captures by jumping exactly one piece (the screen).
            do {
                at += step;
            } while (pos.at(static_cast<xq::Square>(at)) == xq::kEmpty);
            const xq::Piece target = pos.at(static_cast<xq::Square>(at));
            count += target != xq::kOffBoard && xq::color_of(target) != color ? 1 : 0;
        }
    }
    return count;
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
        int red_mobility = 0;
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
            if (kind == xq::Kind::chariot || kind == xq::Kind::horse || kind == xq::Kind::cannon) {
                const int mobility = piece_mobility(pos, square, kind, color);
                red_mobility += color == xq::Color::red ? mobility : -mobility;
            }
        }
        red_view += kMobilityWeight * red_mobility;
        constexpr int kTempo = 10;
        return (pos.side_to_move() == xq::Color::red ? red_view : -red_view) + kTempo;
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
