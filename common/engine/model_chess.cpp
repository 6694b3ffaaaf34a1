// Chess evaluation: material, mobility of the pieces, pawn advancement, centralisation, the
// bishop pair and a king that hides in the middlegame and comes out in the endgame.

#include <array>
#include <cstdlib>
#include <optional>

#include "common/core/assert.hpp"
#include "common/engine/model.hpp"
#include "common/rules/chess/position.hpp"

namespace arbiter::engine {
namespace {

namespace chess = rules::chess;

constexpr std::array<int, 7> kPieceValue = {0, kPawnValue, 320, 330, 500, 900, 0};
/// Bonus per square a piece attacks that its own side does not occupy (by piece type).
constexpr std::array<int, 7> kMobilityWeight = {0, 0, 4, 4, 2, 1, 0};
/// Bonus of a pawn by its rank seen from its own side (promotion happens on rank 7).
constexpr std::array<int, 8> kPawnAdvance = {0, 0, 5, 10, 20, 35, 60, 0};
/// Non-pawn material (both sides) below which the king belongs in the centre.
constexpr int kEndgameMaterial = 1300;

/// 0 on the rim .. 3 on the four centre squares.
constexpr int centrality(chess::Square square) {
    const int file_distance = std::abs(2 * chess::file_of(square) - 7) / 2;
    const int rank_distance = std::abs(2 * chess::rank_of(square) - 7) / 2;
    return 3 - (file_distance > rank_distance ? file_distance : rank_distance);
}

/// The square named by two wire characters, e.g. "e4".
chess::Square square_at(std::string_view wire, std::size_t offset) {
    return chess::make_square(wire[offset] - 'a', wire[offset + 1] - '1');
}

class ChessModel final : public PositionModel {
  public:
    void load(const rules::Game& game) override {
        auto parsed = chess::Position::from_fen(game.position());
        ARBITER_ASSERT(parsed.has_value());
        position_.emplace(parsed.value());
    }

    int evaluate() const override {
        const chess::Position& pos = *position_;
        const int non_pawn = non_pawn_material(chess::white) + non_pawn_material(chess::black);
        const bool endgame = non_pawn <= kEndgameMaterial;
        const int white_view =
            side_score(chess::white, endgame) - side_score(chess::black, endgame);
        constexpr int kTempo = 10;
        return (pos.side_to_move() == chess::white ? white_view : -white_view) + kTempo;
    }

    int capture_value(std::string_view wire) const override {
        if (wire.size() < 4) {
            return 0;
        }
        const chess::Position& pos = *position_;
        const chess::Piece victim = pos.piece_on(square_at(wire, 2));
        int value = kPieceValue[chess::type_of(victim)];
        const chess::Square from = square_at(wire, 0);
        const chess::Square to = square_at(wire, 2);
        if (value == 0 && chess::type_of(pos.piece_on(from)) == chess::pawn &&
            chess::file_of(from) != chess::file_of(to)) {
            value = kPawnValue;  // en passant: the pawn taken is not on the target square
        }
        if (wire.size() == 5) {
            value += wire[4] == 'q' ? 800 : 100;
        }
        return value;
    }

  private:
    int non_pawn_material(chess::Color color) const {
        int total = 0;
        for (int type = chess::knight; type <= chess::queen; ++type) {
            total += kPieceValue[type] *
                     chess::popcount(position_->pieces(color, chess::PieceType(type)));
        }
        return total;
    }

    int side_score(chess::Color color, bool endgame) const {
        const chess::Position& pos = *position_;
        const chess::Bitboard own = pos.pieces(color);
        const chess::Bitboard occupied = pos.occupied();
        int score = 0;
        for (chess::Bitboard pawns = pos.pieces(color, chess::pawn); pawns != 0;) {
            const chess::Square square = chess::pop_lsb(pawns);
            score += kPawnValue + kPawnAdvance[chess::relative_rank(color, square)] +
                     (centrality(square) >= 2 ? 5 : 0);
        }
        for (int type = chess::knight; type <= chess::queen; ++type) {
            for (chess::Bitboard pieces = pos.pieces(color, chess::PieceType(type)); pieces != 0;) {
                const chess::Square square = chess::pop_lsb(pieces);
                const chess::Bitboard attacks =
                    attacks_of(chess::PieceType(type), square, occupied);
                score +=
                    kPieceValue[type] + kMobilityWeight[type] * chess::popcount(attacks & ~own);
                if (type == chess::knight) {
                    score += 8 * centrality(square);
                }
                if (type == chess::bishop) {
                    score += 4 * centrality(square);
                }
            }
        }
        if (chess::more_than_one(pos.pieces(color, chess::bishop))) {
            score += 30;
        }
        const int king_centre = centrality(pos.king_square(color));
        score += endgame ? 10 * king_centre : -10 * king_centre;
        return score;
    }

    static chess::Bitboard attacks_of(chess::PieceType type, chess::Square square,
                                      chess::Bitboard occupied) {
        switch (type) {
            case chess::knight:
                return chess::knight_attacks(square);
            case chess::bishop:
                return chess::bishop_attacks(square, occupied);
            case chess::rook:
                return chess::rook_attacks(square, occupied);
            case chess::queen:
                return chess::queen_attacks(square, occupied);
            default:
                return 0;
        }
    }

    std::optional<chess::Position> position_;
};

}  // namespace

std::unique_ptr<PositionModel> make_chess_model() {
    return std::make_unique<ChessModel>();
}

}  // namespace arbiter::engine
