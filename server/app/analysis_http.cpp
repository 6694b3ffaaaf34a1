#include "server/app/analysis_http.hpp"

#include <algorithm>

#include "common/protocol/account_api.hpp"
#include "common/protocol/analysis_api.hpp"
#include "common/rules/pgn_writer.hpp"
#include "server/app/http_api.hpp"
#include "server/app/log.hpp"

namespace arbiter::server::app {

namespace {

constexpr std::string_view kGamePrefix = "/api/games/";
constexpr std::string_view kAnalysisSuffix = "/analysis";
constexpr std::string_view kExploreEval = "/api/explore/eval";

net::HttpResponse json_answer(unsigned status, std::string body) {
    net::HttpResponse response;
    response.status = status;
    response.content_type = "application/json";
    response.body = std::move(body);
    return response;
}

net::HttpResponse error_answer(unsigned status, std::string_view error, std::string_view message) {
    return json_answer(status, protocol::encode_api_error(error, message));
}

net::HttpResponse refusal_answer(const AnalysisRefusal& refusal) {
    switch (refusal.kind) {
        case AnalysisRefusal::Kind::unknown_game:
            return error_answer(404, "unknown_game", refusal.message);
        case AnalysisRefusal::Kind::not_finished:
            return error_answer(409, "not_finished", refusal.message);
        case AnalysisRefusal::Kind::bad_position:
            return error_answer(400, "bad_position", refusal.message);
        case AnalysisRefusal::Kind::busy: {
            auto response = json_answer(
                503, protocol::encode_analysis_busy(refusal.message, refusal.retry_after_s));
            response.headers.emplace_back("Retry-After", std::to_string(refusal.retry_after_s));
            return response;
        }
        case AnalysisRefusal::Kind::storage:
            break;
    }
    return error_answer(503, "unavailable", refusal.message);
}

// The game id of /api/games/{id}/analysis, or empty.
std::string_view analysis_game(std::string_view path) {
    if (!path.starts_with(kGamePrefix) || !path.ends_with(kAnalysisSuffix)) {
        return {};
    }
    path.remove_prefix(kGamePrefix.size());
    path.remove_suffix(kAnalysisSuffix.size());
    return path;
}

bool valid_id(std::string_view id) {
    return !id.empty() && id.size() <= 32 && std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_';
    });
}

}  // namespace

bool is_analysis_path(std::string_view path) {
    return path == kExploreEval || !analysis_game(path).empty();
}

std::string analysis_json(const storage::AnalysisRow& row) {
    protocol::AnalysisView view;
    view.game = row.game_id;
    view.status = to_wire(row.status);
    view.engine = row.engine;
    view.done = row.done;
    view.total = row.total;
    // Storage keeps the texts this module's encoders wrote; one that does not read back (a
    // damaged row) is answered as empty rather than not at all.
    view.plies = protocol::decode_analysis_plies(row.plies_json)
                     .value_or(std::vector<protocol::AnalysisPly>());
    if (row.accuracy_json && row.counts_json) {
        view.figures = protocol::decode_analysis_figures(*row.accuracy_json, *row.counts_json);
    }
    return protocol::encode_analysis(view);
}

std::vector<std::string> eval_commands(const storage::AnalysisRow& row) {
    std::vector<std::string> commands;
    const auto plies = protocol::decode_analysis_plies(row.plies_json);
    if (row.status != storage::AnalysisStatus::done || !plies) {
        return commands;
    }
    // Ply 0 is the start: the comment after move N is the evaluation of ply N.
    for (std::size_t ply = 1; ply < plies->size(); ++ply) {
        const auto& eval = (*plies)[ply].eval;
        if (!eval) {
            commands.emplace_back();
        } else if (eval->kind == protocol::AnalysisEval::Kind::cp) {
            commands.push_back(rules::pgn::eval_command_centipawns(eval->value));
        } else {
            commands.push_back(rules::pgn::eval_command_mate(eval->value));
        }
    }
    return commands;
}

std::vector<std::string> AnalysisHttp::evals_of(const std::string& game) {
    auto found = service_.find(game);
    if (!found || !*found) {
        return {};
    }
    return eval_commands(**found);
}

void AnalysisHttp::handle(const net::HttpRequest& request, std::string_view path,
                          std::string_view query, net::HttpHandler::Respond respond) {
    if (path == kExploreEval) {
        if (request.method != "GET" && request.method != "HEAD") {
            auto response = error_answer(405, "not_allowed", "use GET");
            response.headers.emplace_back("Allow", "GET, HEAD");
            return respond(std::move(response));
        }
        return evaluate(query, std::move(respond));
    }
    const std::string_view game = analysis_game(path);
    if (!valid_id(game)) {
        return respond(error_answer(404, "unknown_game", "no game with that id"));
    }
    if (request.method != "GET" && request.method != "HEAD" && request.method != "POST") {
        auto response = error_answer(405, "not_allowed", "use GET or POST");
        response.headers.emplace_back("Allow", "GET, HEAD, POST");
        return respond(std::move(response));
    }
    analysis(request, std::string(game), std::move(respond));
}

void AnalysisHttp::analysis(const net::HttpRequest& request, const std::string& game,
                            net::HttpHandler::Respond respond) {
    auto answer = std::make_shared<net::HttpHandler::Respond>(std::move(respond));
    const bool start = request.method == "POST";
    const bool queued = reads_.try_post([this, answer, game, start] {
        if (start) {
            auto requested = service_.request(game);
            if (!requested) {
                return (*answer)(refusal_answer(requested.error()));
            }
            net::HttpResponse response;
            response.status = requested->second ? 202 : 200;
            response.content_type = "application/json";
            response.body = analysis_json(requested->first);
            return (*answer)(std::move(response));
        }
        auto found = service_.find(game);
        if (!found) {
            return (*answer)(error_answer(503, "unavailable", found.error().message));
        }
        if (!*found) {
            return (*answer)(error_answer(404, "no_analysis", "this game was never analysed"));
        }
        net::HttpResponse response;
        response.content_type = "application/json";
        response.body = analysis_json(**found);
        response.headers.emplace_back("Cache-Control", "no-cache");
        (*answer)(std::move(response));
    });
    if (!queued) {
        auto busy = error_answer(503, "busy", "the server is busy reading stored games");
        busy.headers.emplace_back("Retry-After", "1");
        (*answer)(std::move(busy));
    }
}

void AnalysisHttp::evaluate(std::string_view query, net::HttpHandler::Respond respond) {
    std::optional<std::string> variant_name;
    std::optional<std::string> position;
    while (!query.empty()) {
        const auto amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        const auto eq = pair.find('=');
        const auto key = url_decode(pair.substr(0, eq), true);
        const auto value = url_decode(
            eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), true);
        if (!key || !value) {
            return respond(error_answer(400, "bad_request", "malformed query"));
        }
        if (*key == "variant") {
            variant_name = *value;
        } else if (*key == "position") {
            position = *value;
        } else {
            return respond(error_answer(400, "bad_request", "unknown parameter: " + *key));
        }
    }
    const auto variant = rules::parse_variant(variant_name.value_or(""));
    if (!variant) {
        return respond(
            error_answer(400, "bad_request", "variant must be chess, xiangqi or draughts"));
    }
    if (!position || position->empty()) {
        return respond(error_answer(400, "bad_position", "position is required"));
    }
    service_.evaluate_position(
        *variant, *position,
        [respond = std::move(respond)](Expected<PositionAnswer, AnalysisRefusal> answer) {
            if (!answer) {
                return respond(refusal_answer(answer.error()));
            }
            respond(json_answer(
                200, protocol::encode_position_eval(
                         {to_wire(answer->eval), answer->best, answer->pv, answer->engine})));
        });
}

}  // namespace arbiter::server::app
