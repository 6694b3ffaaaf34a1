#pragma once
/// \file
/// The commands of arbiter-cli over one WebSocket: playing (create, join, resume), watching,
/// replaying and the game lists. Each returns the process exit code.

#include <atomic>
#include <optional>

#include "client/cli/analysis_view.hpp"
#include "client/cli/options.hpp"
#include "common/protocol/messages.hpp"

namespace arbiter::client {

class Terminal;

/// Set from a SIGINT handler: the running command closes its connection and returns.
extern std::atomic<bool> g_interrupted;

/// create, join, resume and watch: draws the game, sends what is typed, follows it to its end,
/// and reconnects and resumes by itself when the connection drops.
int run_game(const CliOptions& options);

/// replay: steps through a stored game, or prints it whole; with its analysis when done.
int run_replay(const CliOptions& options);

/// analyse: starts or finds the analysis of a finished game, shows its progress, and prints the
/// game with it (analyse_session.cpp). A full queue is refused with when to try again.
int run_analyse(const CliOptions& options);

/// The stored game options.game (a `replay` request), its refusal told on `terminal`.
std::optional<protocol::Record> fetch_record(const CliOptions& options, Terminal& terminal);

/// The finished analysis of options.game, when the server has one (GET, never starts one).
std::optional<GameAnalysis> stored_analysis(const CliOptions& options);

/// games (one answer), lobby (live list) and engines (the welcome's list).
int run_listing(const CliOptions& options);

/// login, logout and whoami: the session of this server (account_commands.cpp).
int run_account(const CliOptions& options);

}  // namespace arbiter::client
