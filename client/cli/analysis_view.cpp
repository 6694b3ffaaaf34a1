// The analysis body is read by the protocol's codec (protocol::decode_analysis), strictly: a field
// of the wrong type makes the whole answer unreadable (said so), rather than a figure shown wrong.
#include "client/cli/analysis_view.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "client/cli/move_list.hpp"
#include "client/cli/render.hpp"

namespace arbiter::client {
namespace {

namespace protocol = arbiter::protocol;

constexpr std::size_t kPrintWidth = 72;

const protocol::AnalysisPly* ply_at(const GameAnalysis& analysis, std::size_t ply) {
    for (const protocol::AnalysisPly& entry : analysis.plies) {
        if (entry.ply == static_cast<std::int64_t>(ply)) {
            return &entry;
        }
    }
    return nullptr;
}

// "1 mistake", "2 mistakes", "0 inaccuracies".
std::string counted(std::int64_t count, const std::string& one, const std::string& many) {
    return std::to_string(count) + " " + (count == 1 ? one : many);
}

}  // namespace

AnalysisRefusal read_analysis_refusal(unsigned status, std::string_view body) {
    auto refusal = protocol::decode_api_error(body);
    if (!refusal || refusal->message.empty()) {
        return AnalysisRefusal{refusal ? refusal->error : "",
                               "the server answered " + std::to_string(status), std::nullopt};
    }
    return std::move(*refusal);
}

std::string refusal_text(const AnalysisRefusal& refusal, const std::string& game) {
    if (refusal.error == "busy") {
        const std::int64_t seconds = std::max<std::int64_t>(refusal.retry_after_s.value_or(1), 1);
        // The server's message may say "try again later": the client says when.
        return "the server's analysis queue is full: try again in " +
               counted(seconds, "second", "seconds") + " (arbiter-cli analyse " + game + ")";
    }
    return refusal.message;
}

std::string evaluation_text(const std::optional<protocol::AnalysisEval>& eval) {
    if (!eval) {
        return "-";
    }
    if (eval->kind == protocol::AnalysisEval::Kind::mate) {
        return "#" + std::to_string(eval->value);
    }
    char pawns[32];
    const double value = static_cast<double>(eval->value) / 100.0;
    std::snprintf(pawns, sizeof pawns, "%+.1f", value);
    // "+0.0" and "-0.0" are an even position: "0.0".
    return std::string(pawns) == "+0.0" || std::string(pawns) == "-0.0" ? "0.0" : pawns;
}

std::string progress_text(const GameAnalysis& analysis) {
    const std::string engine = analysis.engine.empty() ? "" : " with " + analysis.engine;
    if (analysis.status == protocol::AnalysisStatus::queued) {
        return "analysis of " + analysis.game + " queued" + engine;
    }
    return "analysing " + analysis.game + engine + ": " + std::to_string(analysis.done) + "/" +
           std::to_string(analysis.total) + " positions";
}

std::string progress_text(const protocol::AnalysisProgress& progress) {
    switch (progress.status) {
        case protocol::AnalysisStatus::queued:
            return "analysis of " + progress.game + " queued";
        case protocol::AnalysisStatus::running:
            break;
        case protocol::AnalysisStatus::done:
        case protocol::AnalysisStatus::failed:
            return "analysis of " + progress.game + " " +
                   std::string(protocol::to_string(progress.status));
    }
    return "analysing " + progress.game + ": " + std::to_string(progress.done) + "/" +
           std::to_string(progress.total) + " positions";
}

std::string analysed_move_text(const std::string& notation, const GameAnalysis& analysis,
                               std::size_t ply) {
    const protocol::AnalysisPly* entry = ply_at(analysis, ply);
    if (entry == nullptr) {
        return notation;
    }
    std::string text = notation + std::string(protocol::mark_symbol(entry->mark));
    if (entry->eval) {
        text += " (" + evaluation_text(entry->eval) + ")";
    }
    return text;
}

std::string accuracy_text(const GameRecord& record, const GameAnalysis& analysis) {
    // The first seat first, as the header names the players.
    if (!analysis.figures) {
        return "";
    }
    std::vector<const protocol::SeatFigures*> ordered;
    for (const auto& [seat, player] : record.players) {
        for (const protocol::SeatFigures& figures : *analysis.figures) {
            if (figures.seat == seat) {
                ordered.push_back(&figures);
            }
        }
    }
    std::string text;
    for (const protocol::SeatFigures* seat : ordered) {
        std::string name = seat->seat;
        for (const auto& [player_seat, player] : record.players) {
            if (player_seat == seat->seat) {
                name = player + " (" + seat->seat + ")";
            }
        }
        text += "Accuracy: " + name + " ";
        if (seat->accuracy) {
            char figure[32];
            std::snprintf(figure, sizeof figure, "%.1f%%", *seat->accuracy);
            text += figure;
        } else {
            text += "-";
        }
        text += ": " + counted(seat->counts.inaccuracy, "inaccuracy", "inaccuracies") + ", " +
                counted(seat->counts.mistake, "mistake", "mistakes") + ", " +
                counted(seat->counts.blunder, "blunder", "blunders") + "\n";
    }
    return text;
}

std::string print_analysed_record(const GameRecord& record, const GameAnalysis& analysis) {
    std::string text = "Game " + record.game + " (" + record.variant + ")";
    for (std::size_t index = 0; index < record.players.size(); ++index) {
        text += (index == 0 ? ": " : " vs ") + record.players[index].second + " (" +
                record.players[index].first + ")";
    }
    text +=
        "\nAnalysis: " + analysis.engine + ", " +
        std::string(protocol::to_string(analysis.status)) + " (" + std::to_string(analysis.done) +
        "/" + std::to_string(analysis.total) + " positions); start " +
        evaluation_text(ply_at(analysis, 0) != nullptr ? ply_at(analysis, 0)->eval : std::nullopt) +
        "\n";
    std::vector<std::string> notation;
    for (const RecordMove& move : record.moves) {
        notation.push_back(analysed_move_text(move.notation.empty() ? move.move : move.notation,
                                              analysis, move.ply));
    }
    const bool second_started = !first_seat_to_move(record.variant, record.initial_position);
    text += move_list_text(move_pairs(notation, second_started), kPrintWidth, 0);
    text += record.result.empty() ? "Status: " + record.status + "\n"
                                  : "Result: " + record.result + " (" + record.reason + ")\n";
    return text + accuracy_text(record, analysis);
}

std::string analysis_line_at(const GameAnalysis& analysis, std::size_t ply) {
    const protocol::AnalysisPly* entry = ply_at(analysis, ply);
    if (entry == nullptr) {
        return "";
    }
    std::string text = "Eval " + evaluation_text(entry->eval);
    if (entry->mark != protocol::MoveMark::none) {
        text += "  " + std::string(protocol::mark_symbol(entry->mark));
    }
    if (!entry->best.empty()) {
        text += "  best: " + entry->best;
        if (entry->pv.size() > 1) {
            text += " (";
            for (std::size_t index = 0; index < entry->pv.size(); ++index) {
                text += (index == 0 ? "" : " ") + entry->pv[index];
            }
            text += ")";
        }
    }
    return text + "\n";
}

}  // namespace arbiter::client
