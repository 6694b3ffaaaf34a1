// replay, games, lobby and engines: one request, then its answer (and, for the lobby, its
// updates).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "client/cli/engines.hpp"
#include "client/cli/game_view.hpp"
#include "client/cli/line_input.hpp"
#include "client/cli/replay_view.hpp"
#include "client/cli/requests.hpp"
#include "client/cli/session.hpp"
#include "client/cli/terminal.hpp"
#include "client/cli/ws_client.hpp"

namespace arbiter::client {
namespace {

using nlohmann::json;
constexpr auto kConnectTimeout = std::chrono::seconds(5);
constexpr auto kAnswerTimeout = std::chrono::seconds(15);

// Connects, sends `request`, and waits for a message of type `wanted` (or an error).
std::optional<json> ask(WsClient& socket, const CliOptions& options, Terminal& terminal,
                        const std::string& request, const std::string& wanted) {
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
        json message = json::parse(received.text, nullptr, false);
        if (message.is_discarded() || !message.is_object()) {
            continue;
        }
        terminal.json_line(message);
        const std::string type = text_field(message, "type");
        if (type == "error") {
            terminal.note(describe(GameView{}, message));
            return std::nullopt;
        }
        if (type == wanted) {
            return message;
        }
    }
    if (!g_interrupted) {
        terminal.note("no answer from the server");
    }
    return std::nullopt;
}

int step_through(const GameRecord& record, Terminal& terminal, const CliOptions& options) {
    LineInput input;
    std::size_t ply = record.moves.size();
    bool flip = options.flip;
    terminal.prompt_for_input(true);
    for (;;) {
        terminal.screen(render_record_at(record, ply, terminal.style(), flip), 0);
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

std::string name_or_unknown(std::string name) {
    return name.empty() ? "?" : name;
}

std::string summary_line(const json& game) {
    std::ostringstream line;
    std::string players;
    const auto found = game.find("players");
    for (const std::string& seat : seats_of(text_field(game, "variant"))) {
        const bool taken = found != game.end() && found->is_object() && found->contains(seat) &&
                           found->at(seat).is_object();
        players +=
            (players.empty() ? "" : " vs ") +
            (taken ? name_or_unknown(text_field(found->at(seat), "name")) : std::string("(open)")) +
            " (" + seat + ")";
    }
    auto text = [&](const char* key) {
        auto field = game.find(key);
        return field != game.end() && field->is_string() ? field->get<std::string>() : "";
    };
    line << text("game") << "  " << text("variant") << "  " << text("status") << "  " << players
         << "  ply " << count_field(game, "ply");
    if (!text("result").empty()) {
        line << "  " << text("result") << " (" << text("reason") << ")";
    }
    return line.str();
}

void print_list(Terminal& terminal, const json& message) {
    const auto games = message.find("games");
    if (games == message.end() || !games->is_array() || games->empty()) {
        terminal.note("(no games)");
        return;
    }
    for (const auto& game : *games) {
        terminal.note(summary_line(game));
    }
}

}  // namespace

int run_replay(const CliOptions& options) {
    Terminal terminal = Terminal::detect(options);
    WsClient socket;
    auto answer = ask(socket, options, terminal, requests::replay(options.game), "record");
    socket.close();
    if (!answer) {
        return g_interrupted ? kExitInterrupted : kExitFailed;
    }
    if (options.json) {
        return kExitDone;
    }
    auto record = read_record(*answer);
    if (options.print || !terminal.interactive()) {
        std::cout << print_record(record) << std::flush;
        return kExitDone;
    }
    return step_through(record, terminal, options);
}

int run_listing(const CliOptions& options) {
    Terminal terminal = Terminal::detect(options);
    WsClient socket;
    if (options.command == Command::engines) {
        // The engines come with the welcome that answers hello (protocol.md).
        auto welcome =
            ask(socket, options, terminal,
                requests::hello(options.name.empty() ? "arbiter-cli" : options.name), "welcome");
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
    auto answer =
        ask(socket, options, terminal, lobby ? requests::lobby() : requests::games(options),
            lobby ? "lobby" : "games");
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
        json message = json::parse(received.text, nullptr, false);
        if (message.is_discarded() || !message.is_object()) {
            continue;
        }
        terminal.json_line(message);
        if (!options.json && text_field(message, "type") == "lobby") {
            terminal.note("-- open games --");
            print_list(terminal, message);
        }
    }
    socket.close();
    return kExitInterrupted;
}

}  // namespace arbiter::client
