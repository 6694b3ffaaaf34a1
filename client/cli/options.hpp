#pragma once
/// \file
/// The command line of arbiter-cli: a subcommand (create, join, resume, watch, replay, games,
/// lobby, engines, login, logout, whoami, help) and options that may come before or after it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/core/expected.hpp"

namespace arbiter::client {

/// What the user asked arbiter-cli to do.
enum class Command {
    help,
    create,
    join,
    resume,
    watch,
    replay,
    analyse,
    games,
    lobby,
    engines,
    login,
    logout,
    whoami
};

/// arbiter-cli's exit statuses; usage_text() lists them for scripts.
inline constexpr int kExitDone = 0;           ///< the game ended or was left; a listing completed
inline constexpr int kExitFailed = 1;         ///< no connection, or the server refused to open it
inline constexpr int kExitUsage = 2;          ///< a mistake on the command line
inline constexpr int kExitInterrupted = 130;  ///< Ctrl-C, as a shell reports SIGINT
/// A `resume` on another connection took the seat (protocol.md, seat_lost): apart from
/// kExitFailed, so that a script can tell a game opened elsewhere from a failure.
inline constexpr int kExitSeatTakenOver = 3;

/// The level `create --opponent` asks for when --level is not given.
inline constexpr int kDefaultEngineLevel = 3;

/// A Fischer time control as `create` sends it.
struct ClockSetting {
    std::uint64_t initial_ms = 0;
    std::uint64_t increment_ms = 0;
};

/// A rated seek's rating range from the command line (either bound open).
struct RatingRangeSetting {
    std::optional<int> min;
    std::optional<int> max;
};

/// Every option, already checked; fields that a command does not use keep their defaults.
struct CliOptions {
    Command command = Command::help;
    std::string server = "ws://127.0.0.1:8080/ws";
    std::string name;      ///< sent in `hello` when set
    bool json = false;     ///< print each server message as one JSON line, nothing else
    bool color = true;     ///< ANSI colours
    bool unicode = true;   ///< Unicode pieces (false: ASCII letters)
    bool numbers = false;  ///< draughts: show square numbers
    bool flip = false;     ///< draw the board from the other side
    std::string variant;   ///< create: the game; games: a filter
    std::string side = "random";
    std::optional<ClockSetting> clock;
    bool is_private = false;
    bool rated = false;                              ///< create: a rated game
    std::optional<RatingRangeSetting> rating_range;  ///< create: a rated seek's range
    std::string position;                            ///< create: a start FEN
    std::string opponent;  ///< create: an engine to play against (a name from welcome.engines)
    int level = kDefaultEngineLevel;  ///< create: the engine's level 1..8
    std::string game;                 ///< join, resume, watch, replay, analyse
    std::string token;                ///< resume: overrides the stored token
    std::string seat;                 ///< resume: which stored seat (empty: the only one)
    bool print = false;               ///< replay: print the whole game instead of stepping
    bool pgn = false;                 ///< replay: print it as PGN
    std::string status;               ///< games: a filter
    std::optional<int> limit;
    bool once = false;  ///< lobby: print the list once and exit
    std::string user;   ///< login: the username (asked for when not given)
    /// Not an option: the session `login` stored for this server, sent in every hello (empty:
    /// none, a guest).
    std::string session_token;
};

/// Parses `1400-1800`, `1400-` or `-1800` (a rated seek's rating range; one side may be open).
Expected<RatingRangeSetting, std::string> parse_rating_range(std::string_view text);

/// Parses `5+3` (minutes + seconds of increment; minutes may have a fraction, as in `0.5+0`).
Expected<ClockSetting, std::string> parse_clock(std::string_view text);

/// Parses the arguments after the program name. The error is a one-line message for the user.
Expected<CliOptions, std::string> parse_arguments(const std::vector<std::string>& arguments);

/// The --help text.
std::string usage_text();

}  // namespace arbiter::client
