// The search plays moves through the shared rules face only: every node is a clone of its
// parent with one move played, so the status (mate, stalemate, draw rules) is the rules'
// own verdict. The first two plies are played on the real game, so that a move which ends the
// game by repetition or a move limit is scored as what it really is, whichever side plays it:
// the opponent's reply can complete a repetition that the engine's own checks or chases make a
// loss for the engine (xiangqi), or a draw it should avoid. Below them it searches history-less
// copies (make_game from the FEN), which clone cheaply.

#include "common/engine/search.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/core/assert.hpp"
#include "common/engine/model.hpp"

namespace arbiter::engine {
namespace {

constexpr int kInfinity = kMateScore + 1;
constexpr int kMaxPly = 128;
constexpr int kQuiescenceDepth = 8;
/// The clock and the stop flag are read once per this many nodes.
constexpr std::uint64_t kCheckInterval = 256;
constexpr std::size_t kTableSize = std::size_t{1} << 16;
constexpr std::uint16_t kNoMove = 0xFFFF;

enum class Bound : std::uint8_t { none, exact, lower, upper };

struct TableEntry {
    std::uint64_t key = 0;
    int score = 0;
    std::int16_t depth = -1;
    Bound bound = Bound::none;
    std::uint16_t best = kNoMove;  ///< index into the node's legal_moves()
};

/// The score of a finished game from the side to move's view: a win found `ply` plies from the
/// root scores higher the sooner it comes.
int terminal_score(const rules::Game& game, int ply) {
    const rules::Status status = game.status();
    if (status.outcome == rules::Outcome::draw) {
        return 0;
    }
    const rules::Side winner =
        status.outcome == rules::Outcome::first_wins ? rules::Side::first : rules::Side::second;
    return winner == game.turn() ? kMateScore - ply : -(kMateScore - ply);
}

/// Mate scores are stored relative to the node, not the root, so they stay true elsewhere.
int to_table(int score, int ply) {
    if (score >= kMateBound) {
        return score + ply;
    }
    if (score <= -kMateBound) {
        return score - ply;
    }
    return score;
}
int from_table(int score, int ply) {
    if (score >= kMateBound) {
        return score - ply;
    }
    if (score <= -kMateBound) {
        return score + ply;
    }
    return score;
}

/// A key of the placement, side to move and rights: the FEN without its two move counters
/// (chess, xiangqi), so that transpositions meet.
std::uint64_t position_key(const rules::Game& game) {
    const std::string fen = game.position();
    std::string_view placement = fen;
    if (game.variant() != rules::Variant::draughts) {
        for (int field = 0; field < 2; ++field) {
            const std::size_t space = placement.rfind(' ');
            if (space == std::string_view::npos) {
                break;
            }
            placement = placement.substr(0, space);
        }
    }
    return std::hash<std::string_view>{}(placement);
}

std::unique_ptr<rules::Game> after(const rules::Game& game, const std::string& move) {
    std::unique_ptr<rules::Game> child = game.clone();
    const auto played = child->play(move);
    ARBITER_ASSERT(played.has_value());  // the move came from legal_moves()
    return child;
}

/// `move` played in `game`, a node `ply` plies from the root. Nodes up to ply 1 carry the real
/// game's history; the node at ply 2 is judged with it (its status) and then searched on as a
/// history-less copy.
std::unique_ptr<rules::Game> child_at(const rules::Game& game, const std::string& move, int ply) {
    std::unique_ptr<rules::Game> child = after(game, move);
    if (ply != 1 || child->status().over()) {
        return child;
    }
    auto copy = rules::make_game(game.variant(), child->position());
    return copy.has_value() ? std::move(copy.value()) : std::move(child);
}

class Searcher {
  public:
    Searcher(rules::Variant variant, const SearchLimits& limits)
        : limits_(limits), start_(std::chrono::steady_clock::now()), table_(kTableSize) {
        for (auto& model : models_) {
            model = make_model(variant);
        }
    }

    SearchResult run(const rules::Game& game, std::uint64_t seed);

  private:
    int negamax(const rules::Game& game, int depth, int alpha, int beta, int ply);
    int quiesce(const rules::Game& game, int alpha, int beta, int ply, int quiet_depth);
    /// Indices of `moves` best first: the table's move, captures by value, killers, the rest.
    std::vector<std::size_t> order(const std::vector<std::string>& moves,
                                   const PositionModel& model, std::uint16_t best, int ply) const;
    void remember_killer(const std::string& move, int ply);
    bool out_of_budget();
    std::chrono::milliseconds elapsed() const {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::steady_clock::now() - start_);
    }
    /// The time the search may take, as it stands now.
    std::chrono::milliseconds budget() const {
        if (limits_.time_cap_ms == nullptr) {
            return limits_.max_time;
        }
        return std::min(
            limits_.max_time,
            std::chrono::milliseconds(limits_.time_cap_ms->load(std::memory_order_relaxed)));
    }

    SearchLimits limits_;
    std::chrono::steady_clock::time_point start_;
    std::uint64_t nodes_ = 0;
    bool aborted_ = false;
    std::vector<TableEntry> table_;
    std::array<std::unique_ptr<PositionModel>, kMaxPly + 1> models_;
    std::array<std::array<std::string, 2>, kMaxPly + 1> killers_;
};

bool Searcher::out_of_budget() {
    if (aborted_) {
        return true;
    }
    if (nodes_ >= limits_.max_nodes) {
        return aborted_ = true;
    }
    if (nodes_ % kCheckInterval == 1) {  // from the first node on
        if (limits_.stop != nullptr && limits_.stop->load(std::memory_order_relaxed)) {
            return aborted_ = true;
        }
        if (elapsed() >= budget()) {
            return aborted_ = true;
        }
    }
    return false;
}

std::vector<std::size_t> Searcher::order(const std::vector<std::string>& moves,
                                         const PositionModel& model, std::uint16_t best,
                                         int ply) const {
    std::vector<int> rank(moves.size(), 0);
    for (std::size_t i = 0; i < moves.size(); ++i) {
        if (i == best) {
            rank[i] = 1'000'000;
        } else if (const int value = model.capture_value(moves[i]); value > 0) {
            rank[i] = 100'000 + value;
        } else if (moves[i] == killers_[ply][0] || moves[i] == killers_[ply][1]) {
            rank[i] = 50'000;
        }
    }
    std::vector<std::size_t> indices(moves.size());
    std::iota(indices.begin(), indices.end(), std::size_t{0});
    std::stable_sort(indices.begin(), indices.end(),
                     [&](std::size_t a, std::size_t b) { return rank[a] > rank[b]; });
    return indices;
}

void Searcher::remember_killer(const std::string& move, int ply) {
    auto& killers = killers_[ply];
    if (killers[0] == move) {
        return;
    }
    killers[1] = std::move(killers[0]);
    killers[0] = move;
}

int Searcher::negamax(const rules::Game& game, int depth, int alpha, int beta, int ply) {
    ++nodes_;
    if (out_of_budget()) {
        return 0;
    }
    if (game.status().over()) {
        return terminal_score(game, ply);
    }
    if (depth <= 0 || ply >= kMaxPly) {
        return quiesce(game, alpha, beta, ply, 0);
    }

    const std::uint64_t key = position_key(game);
    TableEntry& entry = table_[key % kTableSize];
    std::uint16_t table_move = kNoMove;
    if (entry.key == key) {
        table_move = entry.best;
        // At ply 1 the node has its history, which the table's scores (from history-less
        // transpositions deeper down) do not know: only the move is taken from them.
        if (entry.depth >= depth && ply != 1) {
            const int score = from_table(entry.score, ply);
            if (entry.bound == Bound::exact || (entry.bound == Bound::lower && score >= beta) ||
                (entry.bound == Bound::upper && score <= alpha)) {
                return score;
            }
        }
    }

    PositionModel& model = *models_[ply];
    model.load(game);
    const std::vector<std::string> moves = game.legal_moves();
    const int original_alpha = alpha;
    int best_score = -kInfinity;
    std::size_t best_index = 0;
    for (const std::size_t index : order(moves, model, table_move, ply)) {
        const int score =
            -negamax(*child_at(game, moves[index], ply), depth - 1, -beta, -alpha, ply + 1);
        if (aborted_) {
            return 0;
        }
        if (score > best_score) {
            best_score = score;
            best_index = index;
        }
        alpha = std::max(alpha, score);
        if (alpha >= beta) {
            if (model.capture_value(moves[index]) == 0) {
                remember_killer(moves[index], ply);
            }
            break;
        }
    }
    const Bound bound = best_score <= original_alpha ? Bound::upper
                        : best_score >= beta         ? Bound::lower
                                                     : Bound::exact;
    entry = TableEntry{key, to_table(best_score, ply), static_cast<std::int16_t>(depth), bound,
                       static_cast<std::uint16_t>(best_index)};
    return best_score;
}

int Searcher::quiesce(const rules::Game& game, int alpha, int beta, int ply, int quiet_depth) {
    if (quiet_depth > 0) {
        ++nodes_;
        if (out_of_budget()) {
            return 0;
        }
        if (game.status().over()) {
            return terminal_score(game, ply);
        }
    }
    PositionModel& model = *models_[ply];
    model.load(game);
    const int stand_pat = model.evaluate();
    if (ply >= kMaxPly || quiet_depth >= kQuiescenceDepth) {
        return stand_pat;
    }
    // Draughts captures are compulsory (CBD rules): a side that must capture cannot stand pat,
    // so only there must the moves be known before the cut-off.
    const bool captures_compulsory = game.variant() == rules::Variant::draughts;
    if (!captures_compulsory && stand_pat >= beta) {
        return stand_pat;
    }

    const std::vector<std::string> moves = game.legal_moves();
    std::vector<std::pair<int, std::size_t>> captures;
    for (std::size_t i = 0; i < moves.size(); ++i) {
        if (const int value = model.capture_value(moves[i]); value > 0) {
            captures.emplace_back(value, i);
        }
    }
    const bool forced = captures_compulsory && !captures.empty();
    int best_score = -kInfinity;
    if (!forced) {
        if (stand_pat >= beta) {
            return stand_pat;
        }
        alpha = std::max(alpha, stand_pat);
        best_score = stand_pat;
    }
    std::stable_sort(captures.begin(), captures.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [value, index] : captures) {
        const int score =
            -quiesce(*child_at(game, moves[index], ply), -beta, -alpha, ply + 1, quiet_depth + 1);
        if (aborted_) {
            return 0;
        }
        best_score = std::max(best_score, score);
        alpha = std::max(alpha, score);
        if (alpha >= beta) {
            break;
        }
    }
    return best_score;
}

SearchResult Searcher::run(const rules::Game& game, std::uint64_t seed) {
    const std::vector<std::string> moves = game.legal_moves();
    SearchResult result;
    if (moves.empty()) {
        return result;
    }

    // Root moves and the replies to them are played on the real game (its history decides
    // repetitions, child_at); the deeper subtrees are searched from history-less copies.
    std::vector<std::unique_ptr<rules::Game>> children;
    std::vector<int> final_scores(moves.size(), 0);
    std::vector<bool> finished(moves.size(), false);
    for (std::size_t i = 0; i < moves.size(); ++i) {
        children.push_back(after(game, moves[i]));
        if (children.back()->status().over()) {
            finished[i] = true;
            final_scores[i] = -terminal_score(*children.back(), 1);
        }
    }

    std::vector<std::size_t> order(moves.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
    PositionModel& model = *models_[0];
    model.load(game);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return model.capture_value(moves[a]) > model.capture_value(moves[b]);
    });
    result.move = moves[order.front()];

    for (int depth = 1; depth <= limits_.max_depth; ++depth) {
        int alpha = -kInfinity;
        std::size_t best = order.front();
        int completed = 0;
        for (const std::size_t index : order) {
            const int score = finished[index]
                                  ? final_scores[index]
                                  : -negamax(*children[index], depth - 1, -kInfinity, -alpha, 1);
            if (aborted_) {
                break;
            }
            ++completed;
            if (score > alpha) {
                alpha = score;
                best = index;
            }
        }
        // An interrupted iteration still counts when it searched the previous best move first:
        // whatever it preferred since is at least as good at the new depth.
        if (aborted_ && completed == 0) {
            break;
        }
        result.move = moves[best];
        result.score = alpha;
        if (aborted_) {
            break;
        }
        result.depth = depth;
        std::rotate(order.begin(), std::find(order.begin(), order.end(), best),
                    std::find(order.begin(), order.end(), best) + 1);
        if (moves.size() == 1 || std::abs(alpha) >= kMateBound) {
            break;
        }
        // The next iteration costs several times this one: do not start what cannot finish.
        if (elapsed() * 2 >= budget()) {
            break;
        }
    }
    result.nodes = nodes_;
    return result;
}

}  // namespace

SearchResult search(const rules::Game& game, const SearchLimits& limits, std::uint64_t seed) {
    Searcher searcher(game.variant(), limits);
    return searcher.run(game, seed);
}

}  // namespace arbiter::engine
