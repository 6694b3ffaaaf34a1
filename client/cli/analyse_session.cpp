// analyse: ask the server to analyse a finished game (POST /api/games/{id}/analysis), follow its
// progress on a connection that asked for the game's replay (its `analysis` messages), then
// print the game with the analysis (GET). Without that connection the progress is asked for
// every second. replay uses stored_analysis() to show an analysis that exists.
#include <chrono>
#include <iostream>
#include <thread>
#include <variant>

#include "client/cli/analysis_view.hpp"
#include "client/cli/http_call.hpp"
#include "client/cli/requests.hpp"
#include "client/cli/session.hpp"
#include "client/cli/terminal.hpp"
#include "client/cli/ws_client.hpp"
#include "common/protocol/codec.hpp"

namespace arbiter::client {
namespace {

namespace protocol = arbiter::protocol;
constexpr auto kHttpTimeout = std::chrono::seconds(10);
constexpr auto kConnectTimeout = std::chrono::seconds(5);
// Without the replay's connection, progress is asked for once a second.
constexpr auto kPollEvery = std::chrono::seconds(1);
// With it, the analysis is asked for again after this long without a message (an analysis
// queued behind others is quiet; protocol.md: a running one is heard of at most 4 times a
// second).
constexpr auto kQuietFor = std::chrono::seconds(5);

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

// The connection that asked for the game's replay: the server tells it how far the game's
// analysis is (protocol.md, Analysis), read by the protocol's codec.
class ProgressFeed {
  public:
    /// Connects and asks for the replay of `game`; false when that cannot be done.
    bool open(const CliOptions& options) {
        game_ = options.game;
        if (!socket_.connect(options.server, kConnectTimeout) ||
            !socket_.send(requests::replay(game_))) {
            socket_.close();
            return false;
        }
        return true;
    }

    /// Tells each progress of the game until it ends, nothing came for `quiet`, the user
    /// interrupts or the connection is lost. False once the connection is lost.
    template <typename Tell>
    bool follow(std::chrono::milliseconds quiet, const Tell& tell_progress) {
        auto quiet_until = std::chrono::steady_clock::now() + quiet;
        while (!g_interrupted && std::chrono::steady_clock::now() < quiet_until) {
            const Received received = socket_.next_message(std::chrono::milliseconds(100));
            if (received.status == ReceiveStatus::closed) {
                return false;
            }
            if (received.status != ReceiveStatus::message) {
                continue;
            }
            // Only `analysis` is wanted here; the record names its variant, nothing else seats.
            const auto message = protocol::decode_server(
                received.text, [](std::string_view) { return std::optional<rules::Variant>(); });
            const auto* progress =
                message ? std::get_if<protocol::AnalysisProgress>(&message->body) : nullptr;
            if (progress == nullptr || progress->game != game_) {
                continue;
            }
            tell_progress(*progress);
            if (protocol::is_finished(progress->status)) {
                break;
            }
            quiet_until = std::chrono::steady_clock::now() + quiet;
        }
        return true;
    }

    ~ProgressFeed() { socket_.close(); }

  private:
    WsClient socket_;
    std::string game_;
};

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
    const auto show = [&shown](const std::string& progress) {
        if (progress != shown) {
            tell(progress);
            shown = progress;
        }
    };
    const auto under_way = [&analysis] {
        return analysis && !protocol::is_finished(analysis->status) && !g_interrupted;
    };
    ProgressFeed feed;
    bool following = false;
    if (under_way()) {
        show(progress_text(*analysis));
        // What happened before the replay was asked for, the next GET says.
        following = feed.open(options);
        analysis = call_analysis(*url, "GET", options, terminal);
    }
    while (under_way()) {
        show(progress_text(*analysis));
        if (following) {
            following = feed.follow(kQuietFor, [&show](const protocol::AnalysisProgress& progress) {
                show(progress_text(progress));
            });
        } else {
            pause_for(kPollEvery);
        }
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
