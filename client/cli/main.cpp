// arbiter-cli: play, watch and replay Arbiter games from a terminal. See `arbiter-cli --help`.
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "client/cli/options.hpp"
#include "client/cli/session.hpp"
#include "client/cli/token_store.hpp"

namespace {
void on_interrupt(int) {
    arbiter::client::g_interrupted = true;
}
}  // namespace

int main(int argc, char** argv) {
    using namespace arbiter::client;
    auto options = parse_arguments(std::vector<std::string>(argv + 1, argv + argc));
    if (!options) {
        std::fprintf(stderr, "arbiter-cli: %s\n", options.error().c_str());
        return kExitUsage;
    }
    // Every connection says hello with the session `login` stored for this server.
    if (options->command != Command::help && options->command != Command::login) {
        if (auto store = TokenStore::from_environment()) {
            if (auto session = store->find_session(options->server)) {
                options->session_token = session->token;
            }
        }
    }
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
    switch (options->command) {
        case Command::help:
            std::fputs(usage_text().c_str(), stdout);
            return kExitDone;
        case Command::create:
        case Command::join:
        case Command::resume:
        case Command::watch:
            return run_game(*options);
        case Command::replay:
            return run_replay(*options);
        case Command::analyse:
            return run_analyse(*options);
        case Command::games:
        case Command::lobby:
        case Command::engines:
            return run_listing(*options);
        case Command::login:
        case Command::logout:
        case Command::whoami:
            return run_account(*options);
    }
    return kExitUsage;
}
