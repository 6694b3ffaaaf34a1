#pragma once
/// \file
/// The analysis of a finished game on the wire (issue 42; schema/protocol.md, "Analysis"): the
/// bodies of GET/POST /api/games/{id}/analysis and GET /api/explore/eval, the parts of them that
/// storage keeps as text (the plies, the accuracy, the counts). Errors are encode_api_error()
/// (account_api.hpp). The WebSocket `analysis` progress message is a ServerBody alternative
/// (AnalysisProgress in messages.hpp), read and written by the codec (codec.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/core/expected.hpp"
#include "common/protocol/messages.hpp"

namespace arbiter::protocol {

/// An engine's evaluation from the first seat's view: `{"cp":n}` centipawns or `{"mate":n}` moves
/// to a forced mate (negative: the first seat is mated).
struct AnalysisEval {
    enum class Kind : std::uint8_t { cp, mate };
    Kind kind = Kind::cp;
    int value = 0;
    friend bool operator==(const AnalysisEval&, const AnalysisEval&) = default;
};

/// A move's mark: null, "?!", "?" or "??".
enum class MoveMark : std::uint8_t { none, inaccuracy, mistake, blunder };
/// "", "?!", "?" or "??".
std::string_view mark_symbol(MoveMark mark) noexcept;

/// One analysed position: `{"ply","eval","best","pv","mark"}`.
struct AnalysisPly {
    std::int64_t ply = 0;  ///< 0: the start position
    std::optional<AnalysisEval> eval;
    std::string best;                ///< wire notation; empty: null (none, or the game is over)
    std::vector<std::string> pv;     ///< wire notation, `best` first
    MoveMark mark = MoveMark::none;  ///< of the move that led here
    friend bool operator==(const AnalysisPly&, const AnalysisPly&) = default;
};

/// Marks one seat's moves got.
struct MoveCounts {
    std::int64_t inaccuracy = 0;
    std::int64_t mistake = 0;
    std::int64_t blunder = 0;
    friend bool operator==(const MoveCounts&, const MoveCounts&) = default;
};

/// One seat's figures once the analysis is done.
struct SeatFigures {
    std::string seat;                ///< "white", "red", ...
    std::optional<double> accuracy;  ///< none for a seat without a move with a number
    MoveCounts counts;
    friend bool operator==(const SeatFigures&, const SeatFigures&) = default;
};

/// GET /api/games/{id}/analysis's answer.
struct AnalysisView {
    std::string game;
    AnalysisStatus status = AnalysisStatus::queued;
    std::string engine;
    std::int64_t done = 0;
    std::int64_t total = 0;
    std::vector<AnalysisPly> plies;
    std::optional<std::vector<SeatFigures>> figures;  ///< null accuracy and counts until done
    friend bool operator==(const AnalysisView&, const AnalysisView&) = default;
};

/// Done or failed: no more progress comes (a failed one starts again only on a new request).
constexpr bool is_finished(AnalysisStatus status) noexcept {
    return status == AnalysisStatus::done || status == AnalysisStatus::failed;
}

/// `{"game","status","engine","done","total","plies","accuracy","counts"}`.
std::string encode_analysis(const AnalysisView& view);
/// Reads encode_analysis()'s text back (a client's side), strictly: every field present with
/// its type (`done` within 0..`total`), an eval either `{"cp":n}` or `{"mate":n}` with an integer
/// n, a mark null or one of "?!", "?", "??", `accuracy` and `counts` both null or both objects
/// keyed by seat (in the order written). The error says what is wrong.
Expected<AnalysisView, std::string> decode_analysis(std::string_view body);
/// The `plies` array alone (what storage keeps).
std::string encode_analysis_plies(const std::vector<AnalysisPly>& plies);
/// Reads encode_analysis_plies()'s text back; nullopt when it is not such an array.
std::optional<std::vector<AnalysisPly>> decode_analysis_plies(std::string_view text);
/// The `accuracy` object alone (what storage keeps): `{"<seat>": number}`, seats with a figure.
std::string encode_analysis_accuracy(const std::vector<SeatFigures>& figures);
/// The `counts` object alone (what storage keeps): `{"<seat>": {"inaccuracy","mistake",
/// "blunder"}}`.
std::string encode_analysis_counts(const std::vector<SeatFigures>& figures);
/// Reads the two objects above back into figures, in the counts' seat order; nullopt when
/// either is malformed.
std::optional<std::vector<SeatFigures>> decode_analysis_figures(std::string_view accuracy,
                                                                std::string_view counts);

/// GET /api/explore/eval's answer: one position's evaluation.
struct PositionEvalView {
    std::optional<AnalysisEval> eval;
    std::string best;  ///< empty: null
    std::vector<std::string> pv;
    std::string engine;
};

/// `{"eval","best","pv","engine"}`.
std::string encode_position_eval(const PositionEvalView& view);

/// `{"error":"busy","message","retry_after_s"}`: the analysis queue is full (503, with a
/// Retry-After of the same seconds).
std::string encode_analysis_busy(std::string_view message, std::int64_t retry_after_s);

}  // namespace arbiter::protocol
