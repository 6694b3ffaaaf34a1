// Hand-rolled parsing: subcommands with positional operands and a dozen flags do not need a
// library, and a plain function over a vector of strings is easy to test.
#include "client/cli/options.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "client/cli/text_rules.hpp"
#include "client/cli/ws_client.hpp"

namespace arbiter::client {
namespace {

constexpr std::array<std::pair<std::string_view, Command>, 14> kCommands = {{
    {"help", Command::help},
    {"create", Command::create},
    {"join", Command::join},
    {"resume", Command::resume},
    {"watch", Command::watch},
    {"replay", Command::replay},
    {"analyse", Command::analyse},
    {"analyze", Command::analyse},
    {"games", Command::games},
    {"lobby", Command::lobby},
    {"engines", Command::engines},
    {"login", Command::login},
    {"logout", Command::logout},
    {"whoami", Command::whoami},
}};

// The options that belong to one command, and its name: given with another command they would
// be ignored, and a user who typed them meant something else.
constexpr std::array<std::pair<std::string_view, std::string_view>, 17> kCommandOptions = {{
    {"--side", "create"},
    {"--clock", "create"},
    {"--private", "create"},
    {"--rated", "create"},
    {"--rating-range", "create"},
    {"--position", "create"},
    {"--opponent", "create"},
    {"--level", "create"},
    {"--token", "resume"},
    {"--seat", "resume"},
    {"--print", "replay"},
    {"--pgn", "replay"},
    {"--status", "games"},
    {"--variant", "games"},
    {"--limit", "games"},
    {"--once", "lobby"},
    {"--user", "login"},
}};

bool is_one_of(std::string_view value, std::initializer_list<std::string_view> allowed) {
    for (auto candidate : allowed) {
        if (value == candidate) {
            return true;
        }
    }
    return false;
}

Expected<double, std::string> parse_number(std::string_view text, std::string_view what) {
    double value = 0;
    const auto* end = text.data() + text.size();
    auto [stop, error] = std::from_chars(text.data(), end, value);
    if (text.empty() || error != std::errc{} || stop != end || !std::isfinite(value) || value < 0) {
        return unexpected("the " + std::string(what) + " \"" + std::string(text) +
                          "\" is not a number");
    }
    return value;
}

// The value of an option such as --limit or --level: a whole number from `low` to `high`.
Expected<int, std::string> whole_number(const Expected<std::string, std::string>& text,
                                        std::string_view flag, int low, int high) {
    if (!text) {
        return unexpected(text.error());
    }
    auto number = parse_number(*text, flag);
    if (!number || *number < low || *number > high || *number != std::floor(*number)) {
        return unexpected(std::string(flag) + " is a whole number from " + std::to_string(low) +
                          " to " + std::to_string(high));
    }
    return static_cast<int>(*number);
}

// Takes the value of an option that needs one: `--side first` or `--side=first`.
Expected<std::string, std::string> take_value(const std::vector<std::string>& arguments,
                                              std::size_t& index, std::string_view flag,
                                              std::optional<std::string> inline_value) {
    if (inline_value) {
        return *inline_value;
    }
    if (index + 1 >= arguments.size()) {
        return unexpected("option " + std::string(flag) + " needs a value");
    }
    return arguments[++index];
}

Expected<void, std::string> check_operands(CliOptions& options,
                                           const std::vector<std::string>& operands) {
    const Command command = options.command;
    const bool needs_game = command == Command::join || command == Command::resume ||
                            command == Command::watch || command == Command::replay ||
                            command == Command::analyse;
    const std::size_t wanted = options.command == Command::create || needs_game ? 1 : 0;
    if (operands.size() != wanted) {
        return unexpected(wanted == 0 ? "unexpected argument \"" + operands.front() + "\""
                          : operands.empty()
                              ? std::string(options.command == Command::create
                                                ? "create needs a variant: chess, xiangqi or "
                                                  "draughts"
                                                : "this command needs a game id")
                              : "too many arguments");
    }
    if (options.command == Command::create) {
        options.variant = operands.front();
        if (!is_one_of(options.variant, {"chess", "xiangqi", "draughts"})) {
            return unexpected("unknown variant \"" + options.variant +
                              "\" (chess, xiangqi or draughts)");
        }
    } else if (needs_game) {
        options.game = operands.front();
        return check_text(options.game, kGameIdRule, "a game id");
    }
    return {};
}

// protocol.md's limits on the text these options put into requests: refused here, naming the
// option, rather than sent for the server to refuse (or, over 64 KiB, to close the connection).
Expected<void, std::string> check_texts(const CliOptions& options) {
    struct Field {
        const std::string& text;
        TextRule rule;
        std::string_view what;
    };
    const Field fields[] = {{options.name, kNameRule, "--name"},
                            {options.position, kPositionRule, "--position"},
                            {options.opponent, kEngineRule, "--opponent"},
                            {options.token, kTokenRule, "--token"}};
    for (const Field& field : fields) {
        if (field.text.empty()) {
            continue;  // not given
        }
        if (auto checked = check_text(field.text, field.rule, field.what); !checked) {
            return checked;
        }
    }
    return {};
}

}  // namespace

Expected<RatingRangeSetting, std::string> parse_rating_range(std::string_view text) {
    const auto dash = text.find('-');
    const auto bound = [](std::string_view part) -> Expected<std::optional<int>, std::string> {
        if (part.empty()) {
            return std::optional<int>();
        }
        int value = 0;
        const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
        if (error != std::errc() || end != part.data() + part.size() || value < 0 ||
            value > 10000) {
            return unexpected("a rating bound is a whole number from 0 to 10000, not \"" +
                              std::string(part) + "\"");
        }
        return std::optional<int>(value);
    };
    if (dash == std::string_view::npos) {
        return unexpected("a rating range is MIN-MAX, MIN- or -MAX, as in 1400-1800, not \"" +
                          std::string(text) + "\"");
    }
    auto min = bound(text.substr(0, dash));
    auto max = bound(text.substr(dash + 1));
    if (!min) {
        return unexpected(min.error());
    }
    if (!max) {
        return unexpected(max.error());
    }
    if ((!*min && !*max) || (*min && *max && **min > **max)) {
        return unexpected("a rating range needs a bound, and MIN no higher than MAX");
    }
    return RatingRangeSetting{*min, *max};
}

Expected<ClockSetting, std::string> parse_clock(std::string_view text) {
    const auto plus = text.find('+');
    if (plus == std::string_view::npos) {
        return unexpected("a clock is MINUTES+SECONDS, as in 5+3, not \"" + std::string(text) +
                          "\"");
    }
    auto minutes = parse_number(text.substr(0, plus), "clock minutes");
    auto seconds = parse_number(text.substr(plus + 1), "clock increment");
    if (!minutes) {
        return unexpected(minutes.error());
    }
    if (!seconds) {
        return unexpected(seconds.error());
    }
    // protocol.md: 0 < initial_ms <= 24 h, increment_ms <= 1 h.
    if (*minutes <= 0 || *minutes > 24 * 60 || *seconds > 3600) {
        return unexpected(std::string(
            "a clock needs more than 0 and at most 1440 minutes, and at most 3600 s increment"));
    }
    return ClockSetting{static_cast<std::uint64_t>(std::llround(*minutes * 60'000)),
                        static_cast<std::uint64_t>(std::llround(*seconds * 1000))};
}

Expected<CliOptions, std::string> parse_arguments(const std::vector<std::string>& arguments) {
    CliOptions options;
    bool level_given = false;
    std::optional<Command> command;
    std::vector<std::string> operands;
    std::vector<std::string> flags;  // every option given, without its value
    // Text that is not UTF-8 cannot go into a JSON request (nor be echoed in a message).
    for (std::size_t index = 0; index < arguments.size(); ++index) {
        if (!is_utf8(arguments[index])) {
            return unexpected("argument " + std::to_string(index + 1) + " is not valid UTF-8 text");
        }
    }
    for (std::size_t index = 0; index < arguments.size(); ++index) {
        std::string flag = arguments[index];
        std::optional<std::string> inline_value;
        if (flag.rfind("--", 0) == 0 && flag.find('=') != std::string::npos) {
            inline_value = flag.substr(flag.find('=') + 1);
            flag = flag.substr(0, flag.find('='));
        }
        if (flag.starts_with('-')) {
            flags.push_back(flag);
        }
        auto value = [&]() { return take_value(arguments, index, flag, inline_value); };
        auto set = [&](std::string& target) -> Expected<void, std::string> {
            auto taken = value();
            if (!taken) {
                return unexpected(taken.error());
            }
            target = std::move(*taken);
            return {};
        };
        Expected<void, std::string> outcome{};
        if (flag == "--help" || flag == "-h") {
            command = Command::help;
        } else if (flag == "--server") {
            outcome = set(options.server);
            if (outcome) {
                // A URL that cannot work is a mistake on the command line (exit 2), not a server
                // that cannot be reached (exit 1).
                if (auto url = parse_ws_url(options.server); !url) {
                    return unexpected("--server: " + url.error());
                }
            }
        } else if (flag == "--name") {
            outcome = set(options.name);
        } else if (flag == "--side") {
            outcome = set(options.side);
            if (outcome && !is_one_of(options.side, {"first", "second", "random"})) {
                return unexpected("--side is first, second or random, not \"" + options.side +
                                  "\"");
            }
        } else if (flag == "--clock") {
            std::string text;
            outcome = set(text);
            if (outcome) {
                auto clock = parse_clock(text);
                if (!clock) {
                    return unexpected(clock.error());
                }
                options.clock = *clock;
            }
        } else if (flag == "--position") {
            outcome = set(options.position);
        } else if (flag == "--opponent") {
            outcome = set(options.opponent);
            if (outcome && options.opponent.empty()) {
                return unexpected(std::string("--opponent needs an engine name (see: engines)"));
            }
        } else if (flag == "--level") {
            // protocol.md: create.opponent.level is an integer 1 (weakest) .. 8 (strongest).
            auto level = whole_number(value(), flag, 1, 8);
            if (!level) {
                return unexpected(level.error());
            }
            options.level = *level;
            level_given = true;
        } else if (flag == "--user") {
            outcome = set(options.user);
        } else if (flag == "--token") {
            outcome = set(options.token);
        } else if (flag == "--seat") {
            outcome = set(options.seat);
            if (outcome && !is_one_of(options.seat, {"white", "black", "red"})) {
                return unexpected(std::string("--seat is white, black or red"));
            }
        } else if (flag == "--status") {
            outcome = set(options.status);
            if (outcome && !is_one_of(options.status, {"waiting", "playing", "ended", "aborted"})) {
                return unexpected("--status is waiting, playing, ended or aborted");
            }
        } else if (flag == "--variant") {
            outcome = set(options.variant);
            if (outcome && !is_one_of(options.variant, {"chess", "xiangqi", "draughts"})) {
                return unexpected(std::string("--variant is chess, xiangqi or draughts"));
            }
        } else if (flag == "--limit") {
            auto limit = whole_number(value(), flag, 1, 200);
            if (!limit) {
                return unexpected(limit.error());
            }
            options.limit = *limit;
        } else if (inline_value) {
            return unexpected("option " + flag + " takes no value");
        } else if (flag == "--json") {
            options.json = true;
        } else if (flag == "--no-color") {
            options.color = false;
            options.unicode = false;
        } else if (flag == "--ascii") {
            options.unicode = false;
        } else if (flag == "--numbers") {
            options.numbers = true;
        } else if (flag == "--flip") {
            options.flip = true;
        } else if (flag == "--private") {
            options.is_private = true;
        } else if (flag == "--rated") {
            options.rated = true;
        } else if (flag == "--rating-range") {
            std::string text;
            outcome = set(text);
            if (outcome) {
                auto range = parse_rating_range(text);
                if (!range) {
                    return unexpected(range.error());
                }
                options.rating_range = *range;
            }
        } else if (flag == "--print") {
            options.print = true;
        } else if (flag == "--pgn") {
            options.print = true;
            options.pgn = true;
        } else if (flag == "--once") {
            options.once = true;
        } else if (flag.size() > 1 && flag[0] == '-') {
            return unexpected("unknown option " + flag + " (see --help)");
        } else if (!command) {
            for (const auto& [name, candidate] : kCommands) {
                if (flag == name) {
                    command = candidate;
                }
            }
            if (!command) {
                return unexpected("unknown command \"" + flag + "\" (see --help)");
            }
        } else {
            operands.push_back(flag);
        }
        if (!outcome) {
            return unexpected(outcome.error());
        }
    }
    options.command = command.value_or(Command::help);
    if (options.command == Command::help) {
        return options;
    }
    auto checked = check_operands(options, operands);
    if (!checked) {
        return unexpected(checked.error());
    }
    for (const auto& [option, owner] : kCommandOptions) {
        const bool given = std::find(flags.begin(), flags.end(), option) != flags.end();
        // Captured by name: clang before 16 cannot capture a structured binding.
        const bool owned =
            std::any_of(kCommands.begin(), kCommands.end(), [&, owner = owner](const auto& entry) {
                return entry.first == owner && entry.second == options.command;
            });
        if (given && !owned) {
            return unexpected(std::string(option) + " is for " + std::string(owner));
        }
    }
    if (level_given && options.opponent.empty()) {
        return unexpected(std::string("--level needs --opponent ENGINE"));
    }
    if (auto texts = check_texts(options); !texts) {
        return unexpected(texts.error());
    }
    return options;
}

std::string usage_text() {
    return R"(arbiter-cli: play, watch and replay Arbiter games from a terminal

usage: arbiter-cli [options] COMMAND [arguments]

commands:
  create chess|xiangqi|draughts   open a game and play it
         [--side first|second|random] [--clock MIN+SEC] [--private] [--position FEN]
         [--rated [--rating-range MIN-MAX]]   a rated game (signed in, timed); MIN- or -MAX
                                  leaves one side open
         [--opponent ENGINE [--level 1-8]]   play the computer: an engine listed by
                                  `engines` takes the other seat (level default 3, 8 strongest)
  join GAME                       take the open seat of a game and play it
  resume GAME [--seat SEAT] [--token TOKEN]   come back to your seat (the token is remembered
                                  per game and seat; --seat picks one when you hold both)
  watch GAME                      follow a game as a spectator
  replay GAME [--print|--pgn]     step through a stored game (next, prev, first, last, quit),
                                  or print it whole in move pairs (--print, or when input is
                                  not a terminal), or as PGN (--pgn); with the evaluations
                                  and marks of its analysis when there is one
  analyse GAME                    have the server's engine analyse a finished game (or find its
                                  analysis), show the progress, then print the game with an
                                  evaluation per move, the mistakes marked (?! ? ??) and each
                                  side's accuracy
  games [--status S] [--variant V] [--limit N]   list stored games
  lobby [--once]                  follow the open public games
  engines                         list the engines this server offers and the games they play
  login [--user NAME]             sign in (the password is asked for without echo, or read from
                                  standard input when it is not a terminal); every later
                                  connection to this server says hello with the session
  logout                          sign out and forget the session
  whoami                          say whom this server sees: your username, or guest

options:
  --server URL   the server (default ws://127.0.0.1:8080/ws)
  --name NAME    your name for the seats you take
  --json         print every server message as one JSON line, and nothing else
  --no-color     no ANSI colours, ASCII pieces (NO_COLOR=1 turns colours off too)
  --ascii        ASCII pieces (letters), colours kept; also the default at a terminal whose
                 locale is not UTF-8
  --numbers      draughts: show the square numbers
  --flip         draw the board from the other side

While playing, type a move (wire notation such as e2e4, h3e3, 22x15, or display notation such
as Nf3, C2.5) or a command: resign, draw [accept|decline], takeback [accept|decline], abort,
claim win|draw, rematch [accept|decline], flip, help, quit. A move typed before your turn waits
for it. Moves are read from standard input line by line, so scripts can pipe them in; a line
over 4096 bytes is refused and nothing of it is sent.
Seat tokens and the session of `login` are kept, per server, in
$XDG_CONFIG_HOME/arbiter/tokens.json (or ~/.config/arbiter/), readable by you only.

exit status:
  0    the game ended, or you left it (quit, Ctrl-D); a listing, replay or analysis completed
  1    no connection, or the server refused to open the game (or to analyse it: busy says
       when to try again)
  2    a mistake on the command line
  3    the seat was taken over: `resume` of it from another connection (another window or
       device); arbiter-cli resume GAME takes it back here
  130  interrupted (Ctrl-C)
)";
}

}  // namespace arbiter::client
