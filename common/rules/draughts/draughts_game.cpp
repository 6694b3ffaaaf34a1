// The Brazilian draughts Game: the shared face over the bitboard rules core.
//
// Wire notation and display notation are both PDN (see notation.hpp). Status, in this order:
// the side to move with no legal move (no pieces, or all blocked) loses (Reason::no_moves);
// the same placement with the same side to move for the third time is a draw (CBD art. 98,
// Reason::repetition, applied automatically); the move limits of draw_rules.hpp draw with
// Reason::move_limit. can_win(side) is true while the side has any piece: with a single man or
// king a side can still win if the opponent runs out of moves, so no material is "insufficient"
// in draughts.
#include <algorithm>
#include <utility>
#include <vector>

#include "common/rules/draughts/draw_rules.hpp"
#include "common/rules/draughts/movegen.hpp"
#include "common/rules/draughts/notation.hpp"
#include "common/rules/draughts/position.hpp"
#include "common/rules/pgn_writer.hpp"
#include "common/rules/variants.hpp"

namespace arbiter::rules::draughts {

namespace {

/// Threefold repetition (CBD art. 98).
constexpr int kRepetitionsForDraw = 3;

/// PDN results for draughts (PDN 3.0 and lidraughts): two points per game, "2-0", "0-2",
/// "1-1", and "*" for a game in progress.
std::string_view pdn_result(Outcome outcome) noexcept {
    switch (outcome) {
        case Outcome::first_wins:
            return "2-0";
        case Outcome::second_wins:
            return "0-2";
        case Outcome::draw:
            return "1-1";
        case Outcome::ongoing:
            break;
    }
    return "*";
}

/// The squares `move` passes over: its start, landings and end, and each piece it takes in the
/// order it is jumped. Each leg of a capture runs along one diagonal and passes exactly one
/// piece, the one it takes (CBD rules), so walking from one landing towards the next finds it.
MoveRoute route_of(const Move& move) {
    MoveRoute route;
    route.path.push_back(move.from + 1);
    for (int i = 0; i < move.landing_count; ++i) {
        route.path.push_back(move.landing(i) + 1);
    }
    route.path.push_back(move.to + 1);
    if (!move.is_capture()) {
        return route;
    }
    for (std::size_t leg = 0; leg + 1 < route.path.size(); ++leg) {
        const int start = route.path[leg] - 1;
        const int end = route.path[leg + 1] - 1;
        for (const Direction direction : kDirections) {
            int taken = -1;
            int square = neighbour(start, direction);
            for (; square >= 0 && square != end; square = neighbour(square, direction)) {
                if ((move.captured & bit(square)) != 0) {
                    taken = square;
                }
            }
            if (square == end && taken >= 0) {
                route.taken.push_back(taken + 1);
                break;
            }
        }
    }
    return route;
}

class DraughtsGame final : public Game {
  public:
    explicit DraughtsGame(const Position& start)
        : initial_(start), current_(start), clock_(DrawClock::start(start)) {
        history_.push_back(start);
        draughts::legal_moves(current_, legal_);
    }

    Variant variant() const noexcept override { return Variant::draughts; }
    std::unique_ptr<Game> clone() const override { return std::make_unique<DraughtsGame>(*this); }

    std::string initial_position() const override { return initial_.fen(); }
    std::string position() const override { return current_.fen(); }
    Side turn() const noexcept override { return current_.side_to_move(); }
    std::size_t ply() const noexcept override { return moves_.size(); }
    const std::vector<std::string>& moves() const noexcept override { return moves_; }

    std::vector<std::string> legal_moves() const override {
        std::vector<std::string> texts;
        if (status().over()) {
            return texts;
        }
        texts.reserve(legal_.size());
        for (const Move& move : legal_) {
            texts.push_back(canonical_text(move, legal_));
        }
        return texts;
    }

    std::vector<MoveRoute> legal_routes() const override {
        std::vector<MoveRoute> routes;
        if (status().over()) {
            return routes;
        }
        routes.reserve(legal_.size());
        for (const Move& move : legal_) {
            routes.push_back(route_of(move));
        }
        return routes;
    }

    Expected<PlayedMove, RulesError> play(std::string_view text) override {
        if (status().over()) {
            return unexpected(RulesError{std::string(text) + ": the game is over"});
        }
        auto move = parse_move(current_, text, legal_);
        if (!move) {
            return unexpected(move.error());
        }
        PlayedMove played{canonical_text(*move, legal_), {}, move->is_capture(), route_of(*move)};
        played.notation = played.wire;
        const Position next = current_.after(*move);
        clock_ = clock_.next(current_, *move, next);
        current_ = next;
        history_.push_back(next);
        moves_.push_back(played.wire);
        draughts::legal_moves(current_, legal_);
        return played;
    }

    Expected<std::string, RulesError> to_wire(std::string_view text) const override {
        if (status().over()) {
            return unexpected(RulesError{std::string(text) + ": the game is over"});
        }
        auto move = parse_move(current_, text, legal_);
        if (!move) {
            return unexpected(move.error());
        }
        return canonical_text(*move, legal_);
    }

    Status status() const override {
        if (legal_.empty()) {
            // The side to move with no piece or no legal move loses (CBD rules).
            const Outcome mover_loses =
                current_.side_to_move() == Side::first ? Outcome::second_wins : Outcome::first_wins;
            return {mover_loses, Reason::no_moves};
        }
        if (std::count(history_.begin(), history_.end(), current_) >= kRepetitionsForDraw) {
            return {Outcome::draw, Reason::repetition};
        }
        if (clock_.limit_reached()) {
            return {Outcome::draw, Reason::move_limit};
        }
        return {};
    }

    bool in_check() const override { return false; }
    bool can_win(Side side) const override { return current_.pieces(side) != 0; }

    // PDN 3.0 takes PGN's export format: the tag roster, then FEN for a non-standard start,
    // GameType, Termination and TimeControl (PGN 9.8.1 and 9.6.1, as lidraughts writes them);
    // the movetext (numbering, lines under 80 characters, the empty line that ends a game) with
    // the mover's clock after each move as "{[%clk 0:04:58]}", as the chess PGN export does. The
    // results are PDN's own.
    std::string export_text(const ExportInfo& info) const override {
        // Game type 26 is Brazilian draughts, whose default notation is algebraic ("26,W,8,8,A1,0"
        // in the PDN 3.0 list): the moves here are numeric, so the tag says so in full. White
        // first, 8x8, numeric from square 1 at the top left as White sees the board (b8; N2, as
        // international draughts' "20,W,10,10,N2,0"), board not inverted.
        std::vector<pgn::Tag> tags{{"GameType", "26,W,8,8,N2,0"}};
        if (const std::string fen = initial_.fen(); fen != kStartFen) {
            tags.push_back({"FEN", fen});
        }
        if (!info.termination.empty()) {
            tags.push_back({"Termination", info.termination});
        }
        const std::string_view result = pdn_result(info.outcome);
        pgn::Movetext movetext(1, initial_.side_to_move());
        for (std::size_t ply = 0; ply < moves_.size(); ++ply) {
            movetext.move(moves_[ply]);
            // PDN 3.0 comments are PGN's; lidraughts puts its [%clk] (and Lichess its [%eval])
            // commands in them.
            if (const std::string commands = pgn::move_commands(info, ply); !commands.empty()) {
                movetext.comment("{" + commands + "}");
            }
        }
        return pgn::pdn_tag_section(info, "-", result, std::move(tags)) + movetext.finish(result);
    }

    std::uint64_t perft(int depth) const override { return draughts::perft(current_, depth); }

    std::vector<std::pair<std::string, std::uint64_t>> divide(int depth) const override {
        std::vector<std::pair<std::string, std::uint64_t>> counts;
        if (depth <= 0) {
            return counts;
        }
        for (const Move& move : legal_) {
            counts.emplace_back(canonical_text(move, legal_),
                                draughts::perft(current_.after(move), depth - 1));
        }
        return counts;
    }

  private:
    Position initial_;
    Position current_;
    DrawClock clock_;
    std::vector<Position> history_;  ///< every position so far, the start included
    std::vector<std::string> moves_;
    MoveList legal_;
};

}  // namespace

Expected<std::unique_ptr<Game>, RulesError> make_game(std::string_view position) {
    auto start = Position::from_fen(position);
    if (!start) {
        return unexpected(start.error());
    }
    return std::unique_ptr<Game>(std::make_unique<DraughtsGame>(*start));
}

}  // namespace arbiter::rules::draughts
