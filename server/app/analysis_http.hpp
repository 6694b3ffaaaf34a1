#pragma once
/// \file
/// The analysis API (issue 42; schema/protocol.md, "Analysis"):
///   POST /api/games/{id}/analysis  202 {"status":"queued",...} started | 200 the analysis
///                                  | 404 unknown_game | 409 not_finished | 503 busy + Retry-After
///   GET  /api/games/{id}/analysis  200 the analysis | 404 no_analysis
///   GET  /api/explore/eval?variant=&position=  200 {"eval","best","pv","engine"} | 400
///                                  bad_position | 503 busy + Retry-After
/// Storage is read on the reader thread; the position's search runs on the analysis pool.

#include <string>
#include <string_view>
#include <vector>

#include "server/app/analysis_service.hpp"
#include "server/app/read_worker.hpp"
#include "server/net/peer.hpp"

namespace arbiter::server::app {

/// Whether `path` is one of the paths above.
bool is_analysis_path(std::string_view path);

/// The JSON object of an analysis (GET's answer) for a stored or in-progress row.
std::string analysis_json(const storage::AnalysisRow& row);

/// The "[%eval …]" command after each ply of a done analysis (Lichess's PGN export: pawns with
/// two decimals, or "#N" for a mate in N, "#-N" when mated), empty for a ply without a number.
std::vector<std::string> eval_commands(const storage::AnalysisRow& row);

/// Answers a request to one of the analysis paths. Thread-safe.
class AnalysisHttp {
  public:
    AnalysisHttp(AnalysisService& service, ReadQueue& reads) : service_(service), reads_(reads) {}

    /// eval_commands() of the game's analysis when it is done; empty otherwise. Reads storage.
    std::vector<std::string> evals_of(const std::string& game);

    void handle(const net::HttpRequest& request, std::string_view path, std::string_view query,
                net::HttpHandler::Respond respond);

  private:
    void analysis(const net::HttpRequest& request, const std::string& game,
                  net::HttpHandler::Respond respond);
    void evaluate(std::string_view query, net::HttpHandler::Respond respond);

    AnalysisService& service_;
    ReadQueue& reads_;
};

}  // namespace arbiter::server::app
