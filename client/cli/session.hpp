#pragma once
/// \file
/// The commands of arbiter-cli over one WebSocket: playing (create, join, resume), watching,
/// replaying and the game lists. Each returns the process exit code.

#include <atomic>

#include "client/cli/options.hpp"

namespace arbiter::client {

/// Set from a SIGINT handler: the running command closes its connection and returns.
extern std::atomic<bool> g_interrupted;

/// create, join, resume and watch: draws the game, sends what is typed, follows it to its end,
/// and reconnects and resumes by itself when the connection drops.
int run_game(const CliOptions& options);

/// replay: steps through a stored game, or prints it whole.
int run_replay(const CliOptions& options);

/// games (one answer), lobby (live list) and engines (the welcome's list).
int run_listing(const CliOptions& options);

/// login, logout and whoami: the session of this server (account_commands.cpp).
int run_account(const CliOptions& options);

}  // namespace arbiter::client
