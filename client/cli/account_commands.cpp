// login, logout and whoami: the session of one server, kept beside the seat tokens
// (token_store.hpp). The password is read without echo at a terminal, or as one line of standard
// input otherwise (a script pipes it in); it is sent once, to POST /api/session, and never kept.
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include "client/cli/http_call.hpp"
#include "client/cli/requests.hpp"
#include "client/cli/session.hpp"
#include "client/cli/token_store.hpp"
#include "client/cli/ws_client.hpp"
#include "common/protocol/account_api.hpp"
#include "common/protocol/codec.hpp"

namespace arbiter::client {
namespace {

constexpr auto kTimeout = std::chrono::seconds(10);

/// One line of standard input, prompted on standard error; with `hidden` at a terminal, its
/// echo is off while it is typed.
std::optional<std::string> read_line(const char* prompt, bool hidden) {
    const bool terminal = ::isatty(STDIN_FILENO) != 0;
    if (terminal) {
        std::fputs(prompt, stderr);
        std::fflush(stderr);
    }
    termios saved{};
    const bool hide = hidden && terminal && ::tcgetattr(STDIN_FILENO, &saved) == 0;
    if (hide) {
        termios quiet = saved;
        quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
        ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
    }
    std::string line;
    const bool read = static_cast<bool>(std::getline(std::cin, line));
    if (hide) {
        ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
        std::fputs("\n", stderr);
    }
    if (!read) {
        return std::nullopt;
    }
    if (!line.empty() && line.back() == '\r') {
        line.pop_back();
    }
    return line;
}

/// The error answer's message, or the status.
std::string refusal_of(const HttpAnswer& answer) {
    if (const auto error = protocol::decode_api_error(answer.body); error) {
        return error->message;
    }
    return "the server answered " + std::to_string(answer.status);
}

int login(const CliOptions& options, const WsUrl& url, const TokenStore& store) {
    std::string user = options.user;
    if (user.empty()) {
        auto typed = read_line("username: ", false);
        if (!typed || typed->empty()) {
            std::fputs("arbiter-cli: login needs a username (--user NAME)\n", stderr);
            return kExitUsage;
        }
        user = *typed;
    }
    auto password = read_line("password: ", true);
    if (!password) {
        std::fputs("arbiter-cli: no password given\n", stderr);
        return kExitFailed;
    }
    auto answer = http_call(
        url, {"POST", "/api/session", protocol::encode_credentials(user, *password), {}}, kTimeout);
    if (!answer) {
        std::fprintf(stderr, "arbiter-cli: %s\n", answer.error().c_str());
        return kExitFailed;
    }
    if (answer->status != 200) {
        std::fprintf(stderr, "arbiter-cli: %s\n", refusal_of(*answer).c_str());
        return kExitFailed;
    }
    auto signed_in = protocol::decode_signed_in(answer->body);
    if (!signed_in) {
        std::fprintf(stderr, "arbiter-cli: unexpected answer: %s\n", signed_in.error().c_str());
        return kExitFailed;
    }
    if (auto saved = store.save_session(options.server, {signed_in->username, signed_in->token});
        !saved) {
        std::fprintf(stderr, "arbiter-cli: %s\n", saved.error().c_str());
        return kExitFailed;
    }
    std::printf("signed in as %s\n", signed_in->username.c_str());
    return kExitDone;
}

int logout(const CliOptions& options, const WsUrl& url, const TokenStore& store) {
    const auto session = store.find_session(options.server);
    if (!session) {
        std::puts("not signed in");
        return kExitDone;
    }
    auto answer = http_call(url, {"DELETE", "/api/session", "", session->token}, kTimeout);
    if (!answer) {
        std::fprintf(stderr, "arbiter-cli: %s\n", answer.error().c_str());
        return kExitFailed;
    }
    // 401: the session had ended already (a password change elsewhere): forgotten all the same.
    if (answer->status != 204 && answer->status != 401) {
        std::fprintf(stderr, "arbiter-cli: %s\n", refusal_of(*answer).c_str());
        return kExitFailed;
    }
    if (auto forgotten = store.forget_session(options.server); !forgotten) {
        std::fprintf(stderr, "arbiter-cli: %s\n", forgotten.error().c_str());
        return kExitFailed;
    }
    std::printf("signed out %s\n", session->username.c_str());
    return kExitDone;
}

int whoami(const CliOptions& options) {
    WsClient socket;
    if (auto connected = socket.connect(options.server, kTimeout); !connected) {
        std::fprintf(stderr, "arbiter-cli: cannot connect to %s: %s\n", options.server.c_str(),
                     connected.error().c_str());
        return kExitFailed;
    }
    (void)socket.send(requests::hello(
        options.name.empty() ? "arbiter-cli" : options.name,
        options.session_token.empty() ? std::nullopt : std::optional(options.session_token)));
    const auto deadline = std::chrono::steady_clock::now() + kTimeout;
    while (!g_interrupted && std::chrono::steady_clock::now() < deadline) {
        Received received = socket.next_message(std::chrono::milliseconds(100));
        if (received.status == ReceiveStatus::closed) {
            std::fprintf(stderr, "arbiter-cli: connection closed: %s\n", received.text.c_str());
            return kExitFailed;
        }
        if (received.status != ReceiveStatus::message) {
            continue;
        }
        auto message = protocol::decode_server(
            received.text, [](std::string_view) { return std::optional<rules::Variant>(); });
        if (!message) {
            continue;
        }
        if (const auto* welcome = std::get_if<protocol::Welcome>(&message->body)) {
            socket.close();
            std::puts(welcome->user ? welcome->user->username.c_str() : "guest");
            return kExitDone;
        }
        if (const auto* error = std::get_if<protocol::ErrorMessage>(&message->body)) {
            socket.close();
            if (error->code == protocol::ErrorCode::unauthorized) {
                std::puts("guest (the stored session has ended: arbiter-cli login)");
                return kExitDone;
            }
            std::fprintf(stderr, "arbiter-cli: %s\n", error->message.c_str());
            return kExitFailed;
        }
    }
    socket.close();
    std::fputs("arbiter-cli: no answer from the server\n", stderr);
    return g_interrupted ? kExitInterrupted : kExitFailed;
}

}  // namespace

int run_account(const CliOptions& options) {
    if (options.command == Command::whoami) {
        return whoami(options);
    }
    auto url = parse_ws_url(options.server);
    auto store = TokenStore::from_environment();
    if (!url || !store) {
        std::fprintf(stderr, "arbiter-cli: %s\n",
                     !url ? url.error().c_str() : store.error().c_str());
        return kExitFailed;
    }
    return options.command == Command::login ? login(options, *url, *store)
                                             : logout(options, *url, *store);
}

}  // namespace arbiter::client
