#pragma once
/// \file
/// A finished game's engine analysis as arbiter-cli shows it (issue 42; schema/protocol.md,
/// "Analysis"): the refusals of GET/POST /api/games/{id}/analysis, the progress line, and the
/// game printed with an evaluation and mark per move and each side's accuracy. The bodies are
/// read by the protocol's codec; the client computes nothing of them: every figure is the
/// server's.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "client/cli/replay_view.hpp"
#include "common/protocol/account_api.hpp"
#include "common/protocol/analysis_api.hpp"

namespace arbiter::client {

/// The analysis of one game, as far as it has gone: the body of GET/POST
/// /api/games/{id}/analysis, read by the protocol's codec (protocol::decode_analysis).
using GameAnalysis = protocol::AnalysisView;

/// An error answer of the analysis API: `{"error","message","retry_after_s"?}`.
using AnalysisRefusal = protocol::ApiError;

/// Reads an error body; a body that is not one gives the HTTP status as its message.
AnalysisRefusal read_analysis_refusal(unsigned status, std::string_view body);

/// What to tell the user about a refusal to analyse `game`: the server's message, and for a
/// full queue when to try again and how.
std::string refusal_text(const AnalysisRefusal& refusal, const std::string& game);

/// "-4.1", "+0.3", "0.0", "#3", "#-2": an evaluation as Lichess shows it, in pawns.
std::string evaluation_text(const std::optional<protocol::AnalysisEval>& eval);

/// "analysing g1 with stockfish: 5/9 positions" (or "queued ...").
std::string progress_text(const GameAnalysis& analysis);
/// The same from an `analysis` message, which does not name the engine: "analysing g1: 5/9
/// positions", and "analysis of g1 done" (or "failed") at its end.
std::string progress_text(const protocol::AnalysisProgress& progress);

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
