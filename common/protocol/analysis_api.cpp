#include "common/protocol/analysis_api.hpp"

#include "common/protocol/api_json.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <limits>

namespace arbiter::protocol {

namespace {

// Written in the contract's order (nlohmann's plain json would sort the keys).
using Ordered = nlohmann::ordered_json;

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

// The readers below take Ordered values: a body's seats come back in the order they were written
// (the first seat first).

std::string ply_context(std::int64_t ply) {
    return "ply " + std::to_string(ply) + ": ";
}

// An integer within int (nlohmann reads a non-negative one as unsigned).
std::optional<int> int_of(const Ordered& value) {
    if (value.is_number_unsigned()) {
        const auto number = value.get<std::uint64_t>();
        if (number <= static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
            return static_cast<int>(number);
        }
    } else if (value.is_number_integer()) {
        const auto number = value.get<std::int64_t>();
        if (number >= std::numeric_limits<int>::min()) {
            return static_cast<int>(number);
        }
    }
    return std::nullopt;
}

Expected<std::optional<AnalysisEval>, std::string> read_eval(const Ordered& value,
                                                             std::int64_t ply) {
    if (value.is_null()) {
        return std::optional<AnalysisEval>();
    }
    if (value.is_object() && value.size() == 1) {
        for (const auto kind : {AnalysisEval::Kind::cp, AnalysisEval::Kind::mate}) {
            const auto it = value.find(kind == AnalysisEval::Kind::cp ? "cp" : "mate");
            if (it == value.end()) {
                continue;
            }
            if (const auto number = int_of(*it)) {
                return std::optional(AnalysisEval{kind, *number});
            }
        }
    }
    return unexpected(ply_context(ply) +
                      R"(the eval is neither null, {"cp":n} nor {"mate":n} with an integer n)");
}

// A missing `eval`, `best`, `pv` or `mark` reads as null (or []): rows stored before the encoder
// wrote every field read as they always did.
Expected<AnalysisPly, std::string> read_ply(const Ordered& entry) {
    if (!entry.is_object()) {
        return unexpected(std::string("a ply is not an object"));
    }
    const auto number = entry.find("ply");
    if (number == entry.end() || !number->is_number_integer() || number->get<std::int64_t>() < 0) {
        return unexpected(std::string("a ply without its number"));
    }
    AnalysisPly read;
    read.ply = number->get<std::int64_t>();
    auto eval = read_eval(entry.value("eval", Ordered()), read.ply);
    if (!eval) {
        return unexpected(std::move(eval).error());
    }
    read.eval = *eval;
    const Ordered best = entry.value("best", Ordered());
    if (!best.is_null() && !best.is_string()) {
        return unexpected(ply_context(read.ply) + "best is neither null nor a move");
    }
    read.best = best.is_string() ? best.get<std::string>() : std::string();
    const Ordered pv = entry.value("pv", Ordered::array());
    if (!pv.is_array()) {
        return unexpected(ply_context(read.ply) + "pv is not a list of moves");
    }
    for (const Ordered& move : pv) {
        if (!move.is_string()) {
            return unexpected(ply_context(read.ply) + "pv is not a list of moves");
        }
        read.pv.push_back(move.get<std::string>());
    }
    const Ordered mark = entry.value("mark", Ordered());
    if (mark.is_string()) {
        const auto symbol =
            std::find(kMarkSymbols.begin() + 1, kMarkSymbols.end(), mark.get<std::string>());
        if (symbol != kMarkSymbols.end()) {
            read.mark = static_cast<MoveMark>(symbol - kMarkSymbols.begin());
            return read;
        }
    } else if (mark.is_null()) {
        return read;
    }
    return unexpected(ply_context(read.ply) + R"(the mark is not null, "?!", "?" or "??")");
}

Expected<std::vector<AnalysisPly>, std::string> read_plies(const Ordered& array) {
    if (!array.is_array()) {
        return unexpected(std::string("the plies are not a list"));
    }
    std::vector<AnalysisPly> plies;
    for (const Ordered& entry : array) {
        auto ply = read_ply(entry);
        if (!ply) {
            return unexpected(std::move(ply).error());
        }
        plies.push_back(std::move(*ply));
    }
    return plies;
}

// A count of marks: an integer from 0.
std::optional<std::int64_t> read_count(const Ordered& count, const char* name) {
    const auto it = count.find(name);
    if (it == count.end() || !it->is_number_integer() || it->get<std::int64_t>() < 0) {
        return std::nullopt;
    }
    return it->get<std::int64_t>();
}

Expected<std::vector<SeatFigures>, std::string> read_figures(const Ordered& accuracy,
                                                             const Ordered& counts) {
    if (!accuracy.is_object() || !counts.is_object()) {
        return unexpected(std::string("the accuracy and counts are not objects keyed by seat"));
    }
    std::vector<SeatFigures> figures;
    for (const auto& [seat, count] : counts.items()) {
        const auto inaccuracy = count.is_object() ? read_count(count, "inaccuracy") : std::nullopt;
        const auto mistake = count.is_object() ? read_count(count, "mistake") : std::nullopt;
        const auto blunder = count.is_object() ? read_count(count, "blunder") : std::nullopt;
        if (!inaccuracy || !mistake || !blunder) {
            return unexpected("the counts of " + seat + " are not three counts");
        }
        SeatFigures figure{seat, std::nullopt, MoveCounts{*inaccuracy, *mistake, *blunder}};
        if (const auto it = accuracy.find(seat); it != accuracy.end()) {
            if (!it->is_number()) {
                return unexpected("the accuracy of " + seat + " is not a number");
            }
            figure.accuracy = it->get<double>();
        }
        figures.push_back(std::move(figure));
    }
    for (const auto& [seat, figure] : accuracy.items()) {
        if (!counts.contains(seat)) {
            return unexpected("the accuracy of " + seat + " has no counts");
        }
    }
    return figures;
}

// The members of the analysis body, in encode_analysis()'s order.
constexpr std::array<std::string_view, 8> kAnalysisFields = {
    "game", "status", "engine", "done", "total", "plies", "accuracy", "counts"};

// The header fields of the analysis body; the error names the first one that is wrong.
Expected<AnalysisView, std::string> read_analysis_header(const Ordered& body) {
    AnalysisView view;
    const Ordered& game = body.at("game");
    const Ordered& engine = body.at("engine");
    if (!game.is_string() || !engine.is_string()) {
        return unexpected(std::string("the analysis's game and engine are not both text"));
    }
    view.game = game.get<std::string>();
    view.engine = engine.get<std::string>();
    const Ordered& status = body.at("status");
    const auto parsed =
        status.is_string() ? parse_analysis_status(status.get<std::string>()) : std::nullopt;
    if (!parsed) {
        return unexpected(
            std::string(R"(the analysis's status is not "queued", "running", "done" or "failed")"));
    }
    view.status = *parsed;
    const Ordered& done = body.at("done");
    const Ordered& total = body.at("total");
    if (!done.is_number_integer() || !total.is_number_integer() || done.get<std::int64_t>() < 0 ||
        total.get<std::int64_t>() < done.get<std::int64_t>()) {
        return unexpected(std::string("the analysis's done and total are not 0 <= done <= total"));
    }
    view.done = done.get<std::int64_t>();
    view.total = total.get<std::int64_t>();
    return view;
}

}  // namespace

std::string_view mark_symbol(MoveMark mark) noexcept {
    return kMarkSymbols[static_cast<std::size_t>(mark)];
}

std::string encode_analysis(const AnalysisView& view) {
    return detail::dumped(
        Ordered{{"game", view.game},
                {"status", to_string(view.status)},
                {"engine", view.engine},
                {"done", view.done},
                {"total", view.total},
                {"plies", plies_json(view.plies)},
                {"accuracy", view.figures ? accuracy_json(*view.figures) : Ordered(nullptr)},
                {"counts", view.figures ? counts_json(*view.figures) : Ordered(nullptr)}});
}

Expected<AnalysisView, std::string> decode_analysis(std::string_view body) {
    const Ordered parsed = Ordered::parse(body, nullptr, false);
    if (!parsed.is_object()) {
        return unexpected(std::string("the analysis is not a JSON object"));
    }
    for (const std::string_view field : kAnalysisFields) {
        if (!parsed.contains(field)) {
            return unexpected("the analysis has no " + std::string(field));
        }
    }
    if (parsed.size() != kAnalysisFields.size()) {
        for (const auto& [name, value] : parsed.items()) {
            if (std::find(kAnalysisFields.begin(), kAnalysisFields.end(), name) ==
                kAnalysisFields.end()) {
                return unexpected("the analysis has an unknown field \"" + name + "\"");
            }
        }
    }
    auto view = read_analysis_header(parsed);
    if (!view) {
        return view;
    }
    auto plies = read_plies(parsed.at("plies"));
    if (!plies) {
        return unexpected(std::move(plies).error());
    }
    view->plies = std::move(*plies);
    const Ordered& accuracy = parsed.at("accuracy");
    const Ordered& counts = parsed.at("counts");
    // protocol.md: both null until the analysis is done.
    if (accuracy.is_null() && counts.is_null()) {
        return view;
    }
    auto figures = read_figures(accuracy, counts);
    if (!figures) {
        return unexpected(std::move(figures).error());
    }
    view->figures = std::move(*figures);
    return view;
}

std::string encode_analysis_plies(const std::vector<AnalysisPly>& plies) {
    return detail::dumped(plies_json(plies));
}

std::optional<std::vector<AnalysisPly>> decode_analysis_plies(std::string_view text) {
    auto plies = read_plies(Ordered::parse(text, nullptr, false));
    return plies ? std::optional(std::move(*plies)) : std::nullopt;
}

std::string encode_analysis_accuracy(const std::vector<SeatFigures>& figures) {
    return detail::dumped(accuracy_json(figures));
}

std::string encode_analysis_counts(const std::vector<SeatFigures>& figures) {
    return detail::dumped(counts_json(figures));
}

std::optional<std::vector<SeatFigures>> decode_analysis_figures(std::string_view accuracy,
                                                                std::string_view counts) {
    auto figures = read_figures(Ordered::parse(accuracy, nullptr, false),
                                Ordered::parse(counts, nullptr, false));
    return figures ? std::optional(std::move(*figures)) : std::nullopt;
}

std::string encode_analysis_busy(std::string_view message, std::int64_t retry_after_s) {
    return detail::dumped(
        Ordered{{"error", "busy"}, {"message", message}, {"retry_after_s", retry_after_s}});
}

std::string encode_position_eval(const PositionEvalView& view) {
    return detail::dumped(Ordered{{"eval", eval_json(view.eval)},
                                  {"best", text_or_null(view.best)},
                                  {"pv", view.pv},
                                  {"engine", view.engine}});
}

}  // namespace arbiter::protocol
