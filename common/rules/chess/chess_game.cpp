// The chess adaptor behind rules::Game: a start position, the positions reached since, and the
// status that the whole history decides.
#include <vector>

#include "common/rules/chess/movegen.hpp"
#include "common/rules/chess/notation.hpp"
#include "common/rules/chess/pgn.hpp"
#include "common/rules/chess/status.hpp"
#include "common/rules/variants.hpp"

namespace arbiter::rules::chess {

namespace {

Side side_of(Color color) {
    return color == white ? Side::first : Side::second;
}
Color color_of_side(Side side) {
    return side == Side::first ? white : black;
}

/// One position of the game as repetition compares it (FIDE 9.2.2).
struct Reached {
    Position position;
    Square en_passant;  ///< only when an en-passant capture is legal

    explicit Reached(const Position& p) : position(p), en_passant(legal_en_passant_square(p)) {}
    bool repeats(const Reached& other) const noexcept {
        return en_passant == other.en_passant && position.same_placement_and_rights(other.position);
    }
};

class ChessGame final : public Game {
  public:
    explicit ChessGame(const Position& start) : history_{Reached(start)} { update_status(); }

    Variant variant() const noexcept override { return Variant::chess; }
    std::unique_ptr<Game> clone() const override { return std::make_unique<ChessGame>(*this); }
    std::string initial_position() const override { return history_.front().position.fen(); }
    std::string position() const override { return current().fen(); }
    Side turn() const noexcept override { return side_of(current().side_to_move()); }
    std::size_t ply() const noexcept override { return moves_.size(); }
    const std::vector<std::string>& moves() const noexcept override { return moves_; }

    std::vector<std::string> legal_moves() const override {
        std::vector<std::string> result;
        if (status_.over()) {
            return result;
        }
        result.reserve(legal_.size());
        for (const Move move : legal_) {
            result.push_back(to_uci(move));
        }
        return result;
    }

    Expected<PlayedMove, RulesError> play(std::string_view text) override {
        if (status_.over()) {
            return unexpected(RulesError{std::string(text) + ": the game is over (" +
                                         std::string(to_string(status_.reason)) + ")"});
        }
        auto move = parse_uci(current(), text, legal_);
        if (!move) {
            return unexpected(move.error());
        }
        const Position& before = current();
        PlayedMove played{
            to_uci(*move), to_san(before, *move),
            before.piece_on(move->to()) != no_piece || move->kind() == MoveKind::en_passant};
        history_.emplace_back(before.after(*move));
        moves_.push_back(played.wire);
        san_.push_back(played.notation);
        update_status();
        return played;
    }

    Expected<std::string, RulesError> to_wire(std::string_view text) const override {
        if (status_.over()) {
            return unexpected(RulesError{std::string(text) + ": the game is over"});
        }
        auto uci = parse_uci(current(), text, legal_);
        if (uci) {
            return to_uci(*uci);
        }
        // Text written as UCI is refused for its UCI reason, SAN for its SAN reason.
        if (is_uci_shaped(text)) {
            return unexpected(uci.error());
        }
        auto san = parse_san(current(), text);
        if (!san) {
            return unexpected(san.error());
        }
        return to_uci(*san);
    }

    Status status() const override { return status_; }
    bool in_check() const override { return current().in_check(); }
    bool can_win(Side side) const override { return can_mate(current(), color_of_side(side)); }

    std::string export_text(const ExportInfo& info) const override {
        const Position& start = history_.front().position;
        PgnMoves pgn{start.fen(), start.fen() == kStartFen, start.side_to_move(),
                     start.fullmove_number(), san_};
        const Outcome outcome = info.outcome != Outcome::ongoing ? info.outcome : status_.outcome;
        std::string termination = info.termination;
        if (termination.empty()) {
            termination = status_.over() ? "normal" : "unterminated";
        }
        return write_pgn(pgn, info, outcome, termination);
    }

    // perft and divide count the bare move tree, without draw adjudication, as the reference
    // tables do; they work even once the game is over.
    std::uint64_t perft(int depth) const override { return chess::perft(current(), depth); }

    std::vector<std::pair<std::string, std::uint64_t>> divide(int depth) const override {
        std::vector<std::pair<std::string, std::uint64_t>> result;
        if (depth <= 0) {
            return result;
        }
        MoveList list;
        chess::legal_moves(current(), list);
        for (const Move move : list) {
            result.emplace_back(to_uci(move), chess::perft(current().after(move), depth - 1));
        }
        return result;
    }

  private:
    const Position& current() const noexcept { return history_.back().position; }

    /// FIDE order as Arbiter applies it: checkmate and stalemate first (so mate on the 100th
    /// quiet ply wins, FIDE 9.3), then dead position, then threefold repetition, then 50 moves.
    void update_status() {
        const Position& pos = current();
        const Outcome mover_loses =
            pos.side_to_move() == white ? Outcome::second_wins : Outcome::first_wins;
        legal_.clear();
        chess::legal_moves(pos, legal_);
        if (legal_.empty()) {
            status_ = pos.in_check() ? Status{mover_loses, Reason::checkmate}
                                     : Status{Outcome::draw, Reason::stalemate};
        } else if (insufficient_material(pos)) {
            status_ = {Outcome::draw, Reason::insufficient_material};
        } else if (occurrences() >= 3) {
            status_ = {Outcome::draw, Reason::repetition};
        } else if (pos.halfmove_clock() >= 100) {
            status_ = {Outcome::draw, Reason::fifty_moves};
        } else {
            status_ = {};
        }
    }

    /// How often the current position has stood on the board, the start position included.
    /// Only positions since the last capture or pawn move can repeat it, same side to move.
    int occurrences() const noexcept {
        const Reached& now = history_.back();
        const std::size_t reach =
            std::min<std::size_t>(now.position.halfmove_clock(), history_.size() - 1);
        int count = 1;
        for (std::size_t back = 2; back <= reach; back += 2) {
            if (history_[history_.size() - 1 - back].repeats(now)) {
                ++count;
            }
        }
        return count;
    }

    std::vector<Reached> history_;
    /// The current position's legal moves, listed once a ply: its mate test, the next side's
    /// list that the server sends with each move, and the check of the move played from it.
    MoveList legal_;
    std::vector<std::string> moves_;
    std::vector<std::string> san_;
    Status status_;
};

}  // namespace

Expected<std::unique_ptr<Game>, RulesError> make_game(std::string_view position) {
    auto start = Position::from_fen(position);
    if (!start) {
        return unexpected(start.error());
    }
    return std::unique_ptr<Game>(std::make_unique<ChessGame>(*start));
}

}  // namespace arbiter::rules::chess
