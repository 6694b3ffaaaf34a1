// replay, games, lobby and engines: one request, then its answer (and, for the lobby, its
// updates).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <thread>
#include <variant>

#include "client/cli/engines.hpp"
#include "client/cli/game_view.hpp"
#include "client/cli/line_input.hpp"
#include "client/cli/replay_view.hpp"
#include "client/cli/requests.hpp"
#include "client/cli/session.hpp"
#include "client/cli/terminal.hpp"
#include "client/cli/ws_client.hpp"
#include "common/protocol/codec.hpp"

namespace arbiter::client {
namespace {

namespace protocol = arbiter::protocol;
constexpr auto kConnectTimeout = std::chrono::seconds(5);
constexpr auto kAnswerTimeout = std::chrono::seconds(15);

// The answers a listing waits for carry their variants (welcome, lobby, games, record): no game
// is followed, so no other variant is known.
std::optional<rules::Variant> no_game_followed(std::string_view /*game*/) {
    return std::nullopt;
}

// Connects, sends `request`, and waits for the message that answers it (or an error).
template <typename Wanted>
std::optional<Wanted> ask(WsClient& socket, const CliOptions& options, Terminal& terminal,
                          const std::string& request) {
    auto connected = socket.connect(options.server, kConnectTimeout);
    if (!connected) {
        terminal.note("cannot connect to " + options.server + ": " + connected.error());
        return std::nullopt;
    }
    (void)socket.send(request);
    const auto deadline = std::chrono::steady_clock::now() + kAnswerTimeout;
    while (!g_interrupted && std::chrono::steady_clock::now() < deadline) {
        Received received = socket.next_message(std::chrono::milliseconds(100));
        if (received.status == ReceiveStatus::closed) {
            terminal.note("connection closed: " + received.text);
            return std::nullopt;
        }
        if (received.status != ReceiveStatus::message) {
            continue;
        }
        auto message = protocol::decode_server(received.text, no_game_followed);
        if (!message) {
            continue;
        }
        terminal.json_line(received.text);
        if (std::holds_alternative<protocol::ErrorMessage>(message->body)) {
            terminal.note(describe(GameView{}, *message));
            return std::nullopt;
        }
        if (auto* wanted = std::get_if<Wanted>(&message->body)) {
            return std::move(*wanted);
        }
    }
    if (!g_interrupted) {
        terminal.note("no answer from the server");
    }
    return std::nullopt;
}

int step_through(const GameRecord& record, const std::optional<GameAnalysis>& analysis,
                 Terminal& terminal, const CliOptions& options) {
    LineInput input;
    std::size_t ply = record.moves.size();
    bool flip = options.flip;
    terminal.prompt_for_input(true);
    for (;;) {
        std::string screen = render_record_at(record, ply, terminal.style(), flip);
        if (analysis) {
            // Above the keys line: the evaluation here, and the figures at the end.
            std::string lines = analysis_line_at(*analysis, ply);
            if (ply == record.moves.size()) {
                lines += accuracy_text(record, *analysis);
            }
            const auto keys = screen.rfind("keys: ");
            screen.insert(keys == std::string::npos ? screen.size() : keys, lines);
        }
        terminal.screen(screen, 0);
        std::optional<TypedLine> line;
        while (!(line = input.next())) {
            if (input.finished() || g_interrupted) {
                terminal.end();
                return g_interrupted ? kExitInterrupted : kExitDone;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
        }
        terminal.typed();
        if (!*line) {
            terminal.note(line->error());
            continue;
        }
        auto step = parse_replay_step(**line, ply, record.moves.size());
        if (!step) {
            terminal.note(step.error());
            continue;
        }
        if (step->quit) {
            return kExitDone;
        }
        if (step->flip) {
            flip = !flip;
        }
        ply = step->ply;
    }
}

std::string name_or_unknown(const std::string& name) {
    return name.empty() ? "?" : name;
}

std::string summary_line(const protocol::GameSummary& game) {
    std::ostringstream line;
    std::string players;
    for (const rules::Side side : {rules::Side::first, rules::Side::second}) {
        const auto& player = side == rules::Side::first ? game.first : game.second;
        const std::string_view seat = rules::seat_name(game.variant, side);
        players += (players.empty() ? "" : " vs ") +
                   (player ? name_or_unknown(player->name) : std::string("(open)")) + " (" +
                   std::string(seat) + ")";
    }
    line << game.game << "  " << rules::to_string(game.variant) << "  "
         << protocol::to_string(game.status) << "  " << players << "  ply " << game.ply;
    if (game.result != rules::Outcome::ongoing) {
        line << "  " << protocol::result_text(game.result) << " ("
             << protocol::to_string(game.reason) << ")";
    }
    return line.str();
}

void print_list(Terminal& terminal, const std::vector<protocol::GameSummary>& games) {
    if (games.empty()) {
        terminal.note("(no games)");
        return;
    }
    for (const auto& game : games) {
        terminal.note(summary_line(game));
    }
}

}  // namespace

std::optional<protocol::Record> fetch_record(const CliOptions& options, Terminal& terminal) {
    WsClient socket;
    auto answer = ask<protocol::Record>(socket, options, terminal, requests::replay(options.game));
    socket.close();
    return answer;
}

int run_replay(const CliOptions& options) {
    Terminal terminal = Terminal::detect(options);
    auto answer = fetch_record(options, terminal);
    if (!answer) {
        return g_interrupted ? kExitInterrupted : kExitFailed;
    }
    if (options.json) {
        return kExitDone;
    }
    auto record = read_record(*answer);
    // issue 42: a game analysed is shown with its evaluations and marks (PGN stays the game's:
    // the server's export carries the evaluations).
    const auto analysis =
        options.pgn || record.result.empty() ? std::nullopt : stored_analysis(options);
    if (options.print || !terminal.interactive()) {
        std::cout << (options.pgn ? print_record_pgn(record)
                      : analysis  ? print_analysed_record(record, *analysis)
                                  : print_record(record))
                  << std::flush;
        return kExitDone;
    }
    return step_through(record, analysis, terminal, options);
}

int run_listing(const CliOptions& options) {
    Terminal terminal = Terminal::detect(options);
    WsClient socket;
    if (options.command == Command::engines) {
        // The engines come with the welcome that answers hello (protocol.md).
        auto welcome = ask<protocol::Welcome>(
            socket, options, terminal,
            requests::hello(options.name.empty() ? "arbiter-cli" : options.name,
                            options.session_token.empty() ? std::nullopt
                                                          : std::optional(options.session_token)));
        socket.close();
        if (!welcome) {
            return g_interrupted ? kExitInterrupted : kExitFailed;
        }
        if (!options.json) {
            for (const std::string& line : engine_lines(*welcome)) {
                terminal.note(line);
            }
        }
        return kExitDone;
    }
    const bool lobby = options.command == Command::lobby;
    std::optional<std::vector<protocol::GameSummary>> answer;
    if (lobby) {
        if (auto list = ask<protocol::LobbyList>(socket, options, terminal, requests::lobby())) {
            answer = std::move(list->games);
        }
    } else if (auto list =
                   ask<protocol::GamesList>(socket, options, terminal, requests::games(options))) {
        answer = std::move(list->games);
    }
    if (!answer) {
        return g_interrupted ? kExitInterrupted : kExitFailed;
    }
    if (!options.json) {
        print_list(terminal, *answer);
    }
    if (!lobby || options.once) {
        socket.close();
        return kExitDone;
    }
    while (!g_interrupted) {
        Received received = socket.next_message(std::chrono::milliseconds(200));
        if (received.status == ReceiveStatus::closed) {
            terminal.note("connection closed: " + received.text);
            return kExitFailed;
        }
        if (received.status != ReceiveStatus::message) {
            continue;
        }
        const auto message = protocol::decode_server(received.text, no_game_followed);
        if (!message) {
            continue;
        }
        terminal.json_line(received.text);
        const auto* list = std::get_if<protocol::LobbyList>(&message->body);
        if (!options.json && list != nullptr) {
            terminal.note("-- open games --");
            print_list(terminal, list->games);
        }
    }
    socket.close();
    return kExitInterrupted;
}

}  // namespace arbiter::client
