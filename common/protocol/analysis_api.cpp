#include "common/protocol/analysis_api.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>

#include "common/protocol/json_writer.hpp"

namespace arbiter::protocol {

namespace {

using Json = nlohmann::json;
using detail::JsonWriter;

// Written in the contract's order (nlohmann's plain json would sort the keys).
using Ordered = nlohmann::ordered_json;

constexpr std::array<std::string_view, 4> kStatusNames = {"queued", "running", "done", "failed"};
constexpr std::array<std::string_view, 4> kMarkSymbols = {"", "?!", "?", "??"};

Ordered eval_json(const std::optional<AnalysisEval>& eval) {
    if (!eval) {
        return nullptr;
    }
    return Ordered{{eval->kind == AnalysisEval::Kind::cp ? "cp" : "mate", eval->value}};
}

Ordered text_or_null(const std::string& text) {
    return text.empty() ? Ordered(nullptr) : Ordered(text);
}

Ordered plies_json(const std::vector<AnalysisPly>& plies) {
    Ordered array = Ordered::array();
    for (const AnalysisPly& ply : plies) {
        array.push_back(
            {{"ply", ply.ply},
             {"eval", eval_json(ply.eval)},
             {"best", text_or_null(ply.best)},
             {"pv", ply.pv},
             {"mark", ply.mark == MoveMark::none
                          ? Ordered(nullptr)
                          : Ordered(kMarkSymbols.at(static_cast<std::size_t>(ply.mark)))}});
    }
    return array;
}

Ordered accuracy_json(const std::vector<SeatFigures>& figures) {
    Ordered object = Ordered::object();
    for (const SeatFigures& seat : figures) {
        if (seat.accuracy) {
            object[seat.seat] = *seat.accuracy;
        }
    }
    return object;
}

Ordered counts_json(const std::vector<SeatFigures>& figures) {
    Ordered object = Ordered::object();
    for (const SeatFigures& seat : figures) {
        object[seat.seat] = {{"inaccuracy", seat.counts.inaccuracy},
                             {"mistake", seat.counts.mistake},
                             {"blunder", seat.counts.blunder}};
    }
    return object;
}

std::optional<AnalysisEval> read_eval(const Json& value, bool& ok) {
    if (value.is_null()) {
        return std::nullopt;
    }
    if (value.is_object() && value.size() == 1) {
        for (const auto kind : {AnalysisEval::Kind::cp, AnalysisEval::Kind::mate}) {
            const auto it = value.find(kind == AnalysisEval::Kind::cp ? "cp" : "mate");
            if (it != value.end() && it->is_number_integer()) {
                return AnalysisEval{kind, it->get<int>()};
            }
        }
    }
    ok = false;
    return std::nullopt;
}

std::optional<AnalysisPly> read_ply(const Json& entry) {
    if (!entry.is_object()) {
        return std::nullopt;
    }
    const Json ply = entry.value("ply", Json());
    const Json best = entry.value("best", Json());
    const Json pv = entry.value("pv", Json::array());
    const Json mark = entry.value("mark", Json());
    bool ok = ply.is_number_integer() && (best.is_null() || best.is_string()) && pv.is_array() &&
              (mark.is_null() || mark.is_string());
    AnalysisPly read;
    read.eval = read_eval(entry.value("eval", Json()), ok);
    if (!ok) {
        return std::nullopt;
    }
    read.ply = ply.get<std::int64_t>();
    read.best = best.is_string() ? best.get<std::string>() : std::string();
    for (const Json& move : pv) {
        if (!move.is_string()) {
            return std::nullopt;
        }
        read.pv.push_back(move.get<std::string>());
    }
    if (mark.is_string()) {
        const auto symbol =
            std::find(kMarkSymbols.begin() + 1, kMarkSymbols.end(), mark.get<std::string>());
        if (symbol == kMarkSymbols.end()) {
            return std::nullopt;
        }
        read.mark = static_cast<MoveMark>(symbol - kMarkSymbols.begin());
    }
    return read;
}

}  // namespace

std::string encode_analysis(const AnalysisView& view) {
    return Ordered{{"game", view.game},
                   {"status", to_string(view.status)},
                   {"engine", view.engine},
                   {"done", view.done},
                   {"total", view.total},
                   {"plies", plies_json(view.plies)},
                   {"accuracy", view.figures ? accuracy_json(*view.figures) : Ordered(nullptr)},
                   {"counts", view.figures ? counts_json(*view.figures) : Ordered(nullptr)}}
        .dump();
}

std::string encode_analysis_plies(const std::vector<AnalysisPly>& plies) {
    return plies_json(plies).dump();
}

std::optional<std::vector<AnalysisPly>> decode_analysis_plies(std::string_view text) {
    const Json array = Json::parse(text, nullptr, false);
    if (!array.is_array()) {
        return std::nullopt;
    }
    std::vector<AnalysisPly> plies;
    for (const Json& entry : array) {
        auto ply = read_ply(entry);
        if (!ply) {
            return std::nullopt;
        }
        plies.push_back(std::move(*ply));
    }
    return plies;
}

std::string encode_analysis_accuracy(const std::vector<SeatFigures>& figures) {
    return accuracy_json(figures).dump();
}

std::string encode_analysis_counts(const std::vector<SeatFigures>& figures) {
    return counts_json(figures).dump();
}

std::optional<std::vector<SeatFigures>> decode_analysis_figures(std::string_view accuracy,
                                                                std::string_view counts) {
    // Ordered: the seats come back in the order they were written (the first seat first).
    const Ordered accuracy_object = Ordered::parse(accuracy, nullptr, false);
    const Ordered counts_object = Ordered::parse(counts, nullptr, false);
    if (!accuracy_object.is_object() || !counts_object.is_object()) {
        return std::nullopt;
    }
    std::vector<SeatFigures> figures;
    for (const auto& [seat, count] : counts_object.items()) {
        const Ordered inaccuracy = count.value("inaccuracy", Ordered());
        const Ordered mistake = count.value("mistake", Ordered());
        const Ordered blunder = count.value("blunder", Ordered());
        if (!inaccuracy.is_number_integer() || !mistake.is_number_integer() ||
            !blunder.is_number_integer()) {
            return std::nullopt;
        }
        SeatFigures figure{seat, std::nullopt,
                           MoveCounts{inaccuracy.get<std::int64_t>(), mistake.get<std::int64_t>(),
                                      blunder.get<std::int64_t>()}};
        if (const auto it = accuracy_object.find(seat); it != accuracy_object.end()) {
            if (!it->is_number()) {
                return std::nullopt;
            }
            figure.accuracy = it->get<double>();
        }
        figures.push_back(std::move(figure));
    }
    return figures;
}

std::string encode_analysis_busy(std::string_view message, std::int64_t retry_after_s) {
    return Ordered{{"error", "busy"}, {"message", message}, {"retry_after_s", retry_after_s}}
        .dump();
}

std::string encode_position_eval(const PositionEvalView& view) {
    return Ordered{{"eval", eval_json(view.eval)},
                   {"best", text_or_null(view.best)},
                   {"pv", view.pv},
                   {"engine", view.engine}}
        .dump();
}

std::string_view to_string(AnalysisStatus status) noexcept {
    return kStatusNames.at(static_cast<std::size_t>(status));
}

std::optional<AnalysisStatus> parse_analysis_status(std::string_view name) noexcept {
    for (std::size_t i = 0; i < kStatusNames.size(); ++i) {
        if (kStatusNames.at(i) == name) {
            return static_cast<AnalysisStatus>(i);
        }
    }
    return std::nullopt;
}

std::string encode_analysis_progress(const AnalysisProgress& progress) {
    JsonWriter out(64 + progress.game.size());
    out.begin_object()
        .text("type", "analysis")
        .text("game", progress.game)
        .text("status", to_string(progress.status))
        .number("done", progress.done)
        .number("total", progress.total)
        .end_object();
    return std::move(out).finish();
}

std::optional<AnalysisProgress> decode_analysis_progress(std::string_view text) {
    const Json message = Json::parse(text, nullptr, false);
    if (!message.is_object() || message.value("type", Json()) != "analysis") {
        return std::nullopt;
    }
    const auto game = message.find("game");
    const auto status = message.find("status");
    const auto done = message.find("done");
    const auto total = message.find("total");
    if (game == message.end() || !game->is_string() || status == message.end() ||
        !status->is_string() || done == message.end() || !done->is_number_integer() ||
        total == message.end() || !total->is_number_integer()) {
        return std::nullopt;
    }
    const auto parsed = parse_analysis_status(status->get<std::string>());
    const auto done_count = done->get<std::int64_t>();
    const auto total_count = total->get<std::int64_t>();
    if (!parsed || done_count < 0 || total_count < done_count) {
        return std::nullopt;
    }
    return AnalysisProgress{game->get<std::string>(), *parsed, done_count, total_count};
}

}  // namespace arbiter::protocol
