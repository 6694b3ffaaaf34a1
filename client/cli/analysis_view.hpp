#pragma once
/// \file
/// A finished game's engine analysis as arbiter-cli reads and shows it (issue 42;
/// schema/protocol.md, "Analysis"): the body of GET/POST /api/games/{id}/analysis and its
/// refusals, the progress line, and the game printed with an evaluation and mark per move and
/// each side's accuracy. The client computes nothing of it: every figure is the server's.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/cli/replay_view.hpp"
#include "common/core/expected.hpp"

namespace arbiter::client {

/// An evaluation from the first seat's view: centipawns, or moves to a forced mate (negative:
/// the first seat is mated).
struct Evaluation {
    bool mate = false;
    std::int64_t value = 0;
    friend bool operator==(const Evaluation&, const Evaluation&) = default;
};

/// One analysed position; ply 0 is the start, and `mark` judges the move that led to it.
struct AnalysedPly {
    std::int64_t ply = 0;
    std::optional<Evaluation> eval;  ///< none: no number (a decisive end)
    std::string best;                ///< wire notation; empty when none
    std::vector<std::string> pv;
    std::string mark;  ///< "", "?!", "?" or "??"
};

/// One seat's figures once the analysis is done.
struct SeatFigures {
    std::string seat;
    std::optional<double> accuracy;
    std::int64_t inaccuracies = 0;
    std::int64_t mistakes = 0;
    std::int64_t blunders = 0;
};

/// The analysis of one game, as far as it has gone.
struct GameAnalysis {
    std::string game;
    std::string status;  ///< "queued", "running", "done" or "failed"
    std::string engine;
    std::int64_t done = 0;
    std::int64_t total = 0;
    std::vector<AnalysedPly> plies;
    std::vector<SeatFigures> figures;  ///< empty until done; one per seat of `counts`

    bool finished() const { return status == "done" || status == "failed"; }
};

/// Reads an analysis body; the error says what is wrong with it.
Expected<GameAnalysis, std::string> read_analysis(std::string_view body);

/// An error answer of the analysis API: `{"error","message","retry_after_s"?}`.
struct AnalysisRefusal {
    std::string error;  ///< "unknown_game", "not_finished", "busy", "no_analysis", ...
    std::string message;
    std::optional<std::int64_t> retry_after_s;
};

/// Reads an error body; a body that is not one gives the HTTP status as its message.
AnalysisRefusal read_analysis_refusal(unsigned status, std::string_view body);

/// What to tell the user about a refusal to analyse `game`: the server's message, and for a
/// full queue when to try again and how.
std::string refusal_text(const AnalysisRefusal& refusal, const std::string& game);

/// "-4.1", "+0.3", "0.0", "#3", "#-2": an evaluation as Lichess shows it, in pawns.
std::string evaluation_text(const std::optional<Evaluation>& eval);

/// "analysing g1 with stockfish: 5/9 positions" (or "queued ...").
std::string progress_text(const GameAnalysis& analysis);

/// A move as the analysed game lists it: its notation, its mark, and the evaluation after it:
/// "Nf6?? (-4.1)"; just the notation when the analysis has nothing for that ply.
std::string analysed_move_text(const std::string& notation, const GameAnalysis& analysis,
                               std::size_t ply);

/// "Accuracy: Ana (white) 97.1%: 0 inaccuracies, 0 mistakes, 0 blunders" per seat of the
/// record, first seat first.
std::string accuracy_text(const GameRecord& record, const GameAnalysis& analysis);

/// The whole game, as print_record() prints it, with each move's mark and evaluation, the
/// engine, and each side's accuracy.
std::string print_analysed_record(const GameRecord& record, const GameAnalysis& analysis);

/// For stepping through a replay: the evaluation of the position at `ply`, the mark of the move
/// that led there, and the engine's best move from it ("Eval -4.1 ??  best: d8h4").
std::string analysis_line_at(const GameAnalysis& analysis, std::size_t ply);

}  // namespace arbiter::client
