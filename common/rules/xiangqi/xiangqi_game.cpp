// The xiangqi Game adaptor: wire moves in, status decided by the whole history (checkmate and
// stalemate lose, the repetition ruling, 120 plies without capture, no attacking material).
#include <algorithm>
#include <memory>
#include <vector>

#include "common/rules/variants.hpp"
#include "common/rules/xiangqi/notation.hpp"
#include "common/rules/xiangqi/pgn.hpp"
#include "common/rules/xiangqi/position.hpp"
#include "common/rules/xiangqi/refusal.hpp"
#include "common/rules/xiangqi/repetition.hpp"

namespace arbiter::rules::xiangqi {

namespace {

// Project ruling: 120 plies (60 full moves) without a capture draw; soldier moves do not reset.
constexpr int kMoveLimitPlies = 120;

Side side_of(Color color) {
    return color == Color::red ? Side::first : Side::second;
}

class XiangqiGame final : public Game {
  public:
    explicit XiangqiGame(const Position& start)
        : start_(start), current_(start), hashes_{start.hash()} {
        update_status();
    }

    Variant variant() const noexcept override { return Variant::xiangqi; }
    std::unique_ptr<Game> clone() const override { return std::make_unique<XiangqiGame>(*this); }
    std::string initial_position() const override { return start_.fen(); }
    std::string position() const override { return current_.fen(); }
    Side turn() const noexcept override { return side_of(current_.side_to_move()); }
    std::size_t ply() const noexcept override { return moves_.size(); }
    const std::vector<std::string>& moves() const noexcept override { return moves_; }

    std::vector<std::string> legal_moves() const override {
        std::vector<std::string> out;
        if (status_.over()) {
            return out;
        }
        MoveList list;
        xiangqi::legal_moves(current_, list);
        // The generator walks the piece list, whose order follows the game's history (captures
        // and take-backs reorder it). Sorted by origin, then destination, the list depends on the
        // position alone: the same position, however reached, lists its moves in the same order.
        std::vector<Move> moves(list.begin(), list.end());
        std::sort(moves.begin(), moves.end(), [](Move a, Move b) {
            return a.from() != b.from() ? a.from() < b.from() : a.to() < b.to();
        });
        out.reserve(moves.size());
        for (Move move : moves) {
            out.push_back(wire_notation(move));
        }
        return out;
    }

    Expected<PlayedMove, RulesError> play(std::string_view text) override {
        if (status_.over()) {
            return unexpected(RulesError{"the game is over"});
        }
        auto move = parse_wire(text);
        if (!move) {
            return unexpected(RulesError{"'" + std::string(text) +
                                         "' is not a wire move (files a-i, ranks 1-10: h3e3)"});
        }
        if (!is_legal(current_, *move)) {
            return unexpected(RulesError{std::string(text) + ": " + why_illegal(current_, *move)});
        }
        PlayedMove played{wire_notation(*move), wxf_notation(current_, *move),
                          current_.at(move->to()) != kEmpty};
        wxf_.push_back(played.notation);
        current_ = current_.after(*move);
        hashes_.push_back(current_.hash());
        moves_.push_back(played.wire);
        played_.push_back(*move);
        update_status();
        return played;
    }

    Expected<std::string, RulesError> to_wire(std::string_view text) const override {
        if (status_.over()) {
            return unexpected(RulesError{"the game is over"});
        }
        auto move = parse_move(current_, text);
        if (!move) {
            return unexpected(move.error());
        }
        return wire_notation(*move);
    }

    Status status() const override { return status_; }
    bool in_check() const override { return current_.in_check(); }
    // A side without chariot, horse, cannon or soldier can never attack the enemy general, yet
    // it still wins if the opponent, who has such pieces, is left without a legal move or checks
    // or chases perpetually. Telling whether that can still happen would take a search, so only
    // a dead position (no such piece on either side: the insufficient_material draw) counts as
    // one that neither side can win.
    bool can_win(Side /*side*/) const override {
        return current_.has_attacking_material(Color::red) ||
               current_.has_attacking_material(Color::black);
    }

    std::string export_text(const ExportInfo& info) const override {
        return export_pgn(info, PgnGame{start_, wxf_, status_});
    }

    std::uint64_t perft(int depth) const override { return xiangqi::perft(current_, depth); }

    std::vector<std::pair<std::string, std::uint64_t>> divide(int depth) const override {
        std::vector<std::pair<std::string, std::uint64_t>> out;
        if (depth <= 0) {
            return out;
        }
        MoveList list;
        xiangqi::legal_moves(current_, list);
        for (Move move : list) {
            out.emplace_back(wire_notation(move), xiangqi::perft(current_.after(move), depth - 1));
        }
        return out;
    }

  private:
    void update_status() {
        const Color mover = current_.side_to_move();
        if (!has_legal_move(current_)) {
            // Xiangqi: the side with no legal move loses, whether in check or not.
            status_ = Status{mover == Color::red ? Outcome::second_wins : Outcome::first_wins,
                             current_.in_check() ? Reason::checkmate : Reason::stalemate};
        } else if (auto repetition = judge_repetition(start_, played_, hashes_)) {
            status_ = *repetition;
        } else if (current_.plies_since_capture() >= kMoveLimitPlies) {
            status_ = Status{Outcome::draw, Reason::move_limit};
        } else if (!current_.has_attacking_material(Color::red) &&
                   !current_.has_attacking_material(Color::black)) {
            status_ = Status{Outcome::draw, Reason::insufficient_material};
        } else {
            status_ = Status{};
        }
    }

    Position start_;
    Position current_;
    std::vector<std::string> moves_;
    std::vector<std::string> wxf_;  ///< the WXF of each move, as the move list shows it
    std::vector<std::uint64_t> hashes_;
    std::vector<Move> played_;  ///< the moves of moves_, decoded
    Status status_;
};

}  // namespace

Expected<std::unique_ptr<Game>, RulesError> make_game(std::string_view position) {
    auto start = Position::from_fen(position);
    if (!start) {
        return unexpected(start.error());
    }
    return std::unique_ptr<Game>(std::make_unique<XiangqiGame>(*start));
}

}  // namespace arbiter::rules::xiangqi
