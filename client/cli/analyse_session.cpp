// analyse: ask the server to analyse a finished game (POST /api/games/{id}/analysis), follow its
// progress by asking again every second (GET), then print the game with the analysis. replay
// uses stored_analysis() to show an analysis that exists.
#include <chrono>
#include <iostream>
#include <thread>

#include "client/cli/analysis_view.hpp"
#include "client/cli/http_call.hpp"
#include "client/cli/session.hpp"
#include "client/cli/terminal.hpp"
#include "client/cli/ws_client.hpp"

namespace arbiter::client {
namespace {

namespace protocol = arbiter::protocol;
constexpr auto kHttpTimeout = std::chrono::seconds(10);
// protocol.md, Analysis: progress is asked for once a second.
constexpr auto kPollEvery = std::chrono::seconds(1);

std::string analysis_target(const std::string& game) {
    return "/api/games/" + game + "/analysis";
}

// Progress and refusals go to standard error, as login's do: standard output holds the analysed
// game alone (or, with --json, the analysis bodies), for a script to keep.
void tell(const std::string& text) {
    std::cerr << text << '\n' << std::flush;
}

// Waits `pause`, or less when interrupted.
void pause_for(std::chrono::milliseconds pause) {
    const auto until = std::chrono::steady_clock::now() + pause;
    while (!g_interrupted && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

// One call; the analysis it answers, or what to tell the user (kept in `refusal`).
Expected<GameAnalysis, std::string> call_analysis(const WsUrl& url, const std::string& method,
                                                  const CliOptions& options, Terminal& terminal) {
    auto answer = http_call(url, {method, analysis_target(options.game), "", {}}, kHttpTimeout);
    if (!answer) {
        return unexpected(answer.error());
    }
    if (answer->status != 200 && answer->status != 202) {
        return unexpected(
            refusal_text(read_analysis_refusal(answer->status, answer->body), options.game));
    }
    terminal.json_line(answer->body);
    auto analysis = protocol::decode_analysis(answer->body);
    if (!analysis) {
        return unexpected("the server sent an analysis this client cannot read (" +
                          analysis.error() + ")");
    }
    return analysis;
}

}  // namespace

std::optional<GameAnalysis> stored_analysis(const CliOptions& options) {
    auto url = parse_ws_url(options.server);
    if (!url) {
        return std::nullopt;
    }
    auto answer = http_call(*url, {"GET", analysis_target(options.game), "", {}}, kHttpTimeout);
    if (!answer || answer->status != 200) {
        return std::nullopt;  // none (404 no_analysis), or none to be had now: replay without
    }
    auto analysis = protocol::decode_analysis(answer->body);
    if (!analysis || analysis->status != protocol::AnalysisStatus::done) {
        return std::nullopt;
    }
    return std::move(*analysis);
}

int run_analyse(const CliOptions& options) {
    Terminal terminal = Terminal::detect(options);
    auto url = parse_ws_url(options.server);
    if (!url) {
        tell("arbiter-cli: " + url.error());
        return kExitFailed;
    }
    auto analysis = call_analysis(*url, "POST", options, terminal);
    std::string shown;
    while (analysis && !protocol::is_finished(analysis->status) && !g_interrupted) {
        if (const std::string progress = progress_text(*analysis); progress != shown) {
            tell(progress);
            shown = progress;
        }
        pause_for(kPollEvery);
        if (!g_interrupted) {
            analysis = call_analysis(*url, "GET", options, terminal);
        }
    }
    if (g_interrupted) {
        tell("the analysis goes on at the server: arbiter-cli analyse " + options.game +
             " shows it");
        return kExitInterrupted;
    }
    if (!analysis) {
        tell("arbiter-cli: " + analysis.error());
        return kExitFailed;
    }
    if (analysis->status == protocol::AnalysisStatus::failed) {
        tell("arbiter-cli: the analysis of " + options.game + " failed (" + analysis->engine +
             "); a new request tries again: arbiter-cli analyse " + options.game);
        return kExitFailed;
    }
    if (options.json) {
        return kExitDone;
    }
    auto record = fetch_record(options, terminal);
    if (!record) {
        return g_interrupted ? kExitInterrupted : kExitFailed;
    }
    std::cout << print_analysed_record(read_record(*record), *analysis) << std::flush;
    return kExitDone;
}

}  // namespace arbiter::client
