// The analysis body is read strictly: a field of the wrong type makes the whole answer unreadable
// (said so), rather than a figure shown wrong.
#include "client/cli/analysis_view.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "client/cli/move_list.hpp"
#include "client/cli/render.hpp"

namespace arbiter::client {
namespace {

using nlohmann::json;

constexpr std::size_t kPrintWidth = 72;

std::string string_or_empty(const json& object, const char* name) {
    const auto found = object.find(name);
    return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

Expected<std::optional<Evaluation>, std::string> read_eval(const json& eval) {
    if (eval.is_null()) {
        return std::optional<Evaluation>();
    }
    if (eval.is_object() && eval.size() == 1) {
        for (const char* kind : {"cp", "mate"}) {
            if (const auto value = eval.find(kind);
                value != eval.end() && value->is_number_integer()) {
                return std::optional(
                    Evaluation{std::string_view(kind) == "mate", value->get<std::int64_t>()});
            }
        }
    }
    return unexpected("an eval is " + eval.dump());
}

Expected<AnalysedPly, std::string> read_ply(const json& entry) {
    if (!entry.is_object() || !entry.contains("ply") || !entry["ply"].is_number_integer()) {
        return unexpected(std::string("a ply without its number"));
    }
    AnalysedPly ply;
    ply.ply = entry["ply"].get<std::int64_t>();
    auto eval = read_eval(entry.value("eval", json()));
    if (!eval) {
        return unexpected(eval.error());
    }
    ply.eval = *eval;
    const json best = entry.value("best", json());
    const json pv = entry.value("pv", json::array());
    const json mark = entry.value("mark", json());
    if (!(best.is_null() || best.is_string()) || !pv.is_array() ||
        !(mark.is_null() || mark.is_string())) {
        return unexpected("ply " + std::to_string(ply.ply) + " is malformed");
    }
    ply.best = best.is_string() ? best.get<std::string>() : "";
    for (const json& move : pv) {
        if (!move.is_string()) {
            return unexpected("ply " + std::to_string(ply.ply) + " has a pv that is not moves");
        }
        ply.pv.push_back(move.get<std::string>());
    }
    ply.mark = mark.is_string() ? mark.get<std::string>() : "";
    if (ply.mark != "" && ply.mark != "?!" && ply.mark != "?" && ply.mark != "??") {
        return unexpected("ply " + std::to_string(ply.ply) + " has the mark " + ply.mark);
    }
    return ply;
}

// protocol.md: `accuracy` and `counts` are keyed by seat, null until done.
Expected<std::vector<SeatFigures>, std::string> read_figures(const json& accuracy,
                                                             const json& counts) {
    std::vector<SeatFigures> figures;
    if (counts.is_null()) {
        return figures;
    }
    if (!counts.is_object() || !(accuracy.is_null() || accuracy.is_object())) {
        return unexpected(std::string("the accuracy or counts are malformed"));
    }
    for (const auto& [seat, count] : counts.items()) {
        SeatFigures seat_figures;
        seat_figures.seat = seat;
        for (auto [name, field] : {std::pair{"inaccuracy", &SeatFigures::inaccuracies},
                                   std::pair{"mistake", &SeatFigures::mistakes},
                                   std::pair{"blunder", &SeatFigures::blunders}}) {
            if (!count.is_object() || !count.contains(name) || !count[name].is_number_integer()) {
                return unexpected("the counts of " + seat + " are malformed");
            }
            seat_figures.*field = count[name].get<std::int64_t>();
        }
        if (accuracy.is_object() && accuracy.contains(seat)) {
            if (!accuracy[seat].is_number()) {
                return unexpected("the accuracy of " + seat + " is not a number");
            }
            seat_figures.accuracy = accuracy[seat].get<double>();
        }
        figures.push_back(std::move(seat_figures));
    }
    return figures;
}

const AnalysedPly* ply_at(const GameAnalysis& analysis, std::size_t ply) {
    for (const AnalysedPly& entry : analysis.plies) {
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

Expected<GameAnalysis, std::string> read_analysis(std::string_view body) {
    const json parsed = json::parse(body, nullptr, false);
    if (!parsed.is_object()) {
        return unexpected(std::string("the analysis is not a JSON object"));
    }
    GameAnalysis analysis;
    analysis.game = string_or_empty(parsed, "game");
    analysis.status = string_or_empty(parsed, "status");
    analysis.engine = string_or_empty(parsed, "engine");
    if (analysis.status != "queued" && analysis.status != "running" && analysis.status != "done" &&
        analysis.status != "failed") {
        return unexpected("the analysis has the status \"" + analysis.status + "\"");
    }
    for (auto [name, field] :
         {std::pair{"done", &GameAnalysis::done}, std::pair{"total", &GameAnalysis::total}}) {
        if (!parsed.contains(name) || !parsed[name].is_number_integer()) {
            return unexpected(std::string("the analysis has no ") + name);
        }
        analysis.*field = parsed[name].get<std::int64_t>();
    }
    const json plies = parsed.value("plies", json());
    if (!plies.is_array()) {
        return unexpected(std::string("the analysis has no plies"));
    }
    for (const json& entry : plies) {
        auto ply = read_ply(entry);
        if (!ply) {
            return unexpected(ply.error());
        }
        analysis.plies.push_back(std::move(*ply));
    }
    auto figures = read_figures(parsed.value("accuracy", json()), parsed.value("counts", json()));
    if (!figures) {
        return unexpected(figures.error());
    }
    analysis.figures = std::move(*figures);
    return analysis;
}

AnalysisRefusal read_analysis_refusal(unsigned status, std::string_view body) {
    AnalysisRefusal refusal;
    const json parsed = json::parse(body, nullptr, false);
    if (parsed.is_object()) {
        refusal.error = string_or_empty(parsed, "error");
        refusal.message = string_or_empty(parsed, "message");
        if (const auto retry = parsed.find("retry_after_s");
            retry != parsed.end() && retry->is_number_integer()) {
            refusal.retry_after_s = retry->get<std::int64_t>();
        }
    }
    if (refusal.message.empty()) {
        refusal.message = "the server answered " + std::to_string(status);
    }
    return refusal;
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

std::string evaluation_text(const std::optional<Evaluation>& eval) {
    if (!eval) {
        return "-";
    }
    if (eval->mate) {
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
    if (analysis.status == "queued") {
        return "analysis of " + analysis.game + " queued" + engine;
    }
    return "analysing " + analysis.game + engine + ": " + std::to_string(analysis.done) + "/" +
           std::to_string(analysis.total) + " positions";
}

std::string analysed_move_text(const std::string& notation, const GameAnalysis& analysis,
                               std::size_t ply) {
    const AnalysedPly* entry = ply_at(analysis, ply);
    if (entry == nullptr) {
        return notation;
    }
    std::string text = notation + entry->mark;
    if (entry->eval) {
        text += " (" + evaluation_text(entry->eval) + ")";
    }
    return text;
}

std::string accuracy_text(const GameRecord& record, const GameAnalysis& analysis) {
    // The first seat first, as the header names the players.
    std::vector<const SeatFigures*> ordered;
    for (const auto& [seat, player] : record.players) {
        for (const SeatFigures& figures : analysis.figures) {
            if (figures.seat == seat) {
                ordered.push_back(&figures);
            }
        }
    }
    std::string text;
    for (const SeatFigures* seat : ordered) {
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
        text += ": " + counted(seat->inaccuracies, "inaccuracy", "inaccuracies") + ", " +
                counted(seat->mistakes, "mistake", "mistakes") + ", " +
                counted(seat->blunders, "blunder", "blunders") + "\n";
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
        "\nAnalysis: " + analysis.engine + ", " + analysis.status + " (" +
        std::to_string(analysis.done) + "/" + std::to_string(analysis.total) +
        " positions); start " +
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
    const AnalysedPly* entry = ply_at(analysis, ply);
    if (entry == nullptr) {
        return "";
    }
    std::string text = "Eval " + evaluation_text(entry->eval);
    if (!entry->mark.empty()) {
        text += "  " + entry->mark;
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
