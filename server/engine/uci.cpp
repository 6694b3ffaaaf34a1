#include "server/engine/uci.hpp"

#include <algorithm>
#include <charconv>

namespace arbiter::server::engines {

namespace {

// The next space-separated token of `text` from `pos` on; empty at the end.
std::string_view next_token(std::string_view text, std::size_t& pos) {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) {
        ++pos;
    }
    const std::size_t start = pos;
    while (pos < text.size() && text[pos] != ' ' && text[pos] != '\t') {
        ++pos;
    }
    return text.substr(start, pos - start);
}

std::optional<int> to_int(std::string_view token) {
    int value = 0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (error != std::errc{} || end != token.data() + token.size()) {
        return std::nullopt;
    }
    return value;
}

// "option name <name words> type <type> [default x] [min x] [max x] [var x]*"
UciLine parse_option(std::string_view line, std::size_t pos) {
    UciLine parsed;
    if (next_token(line, pos) != "name") {
        return parsed;
    }
    std::string name;
    for (std::string_view token = next_token(line, pos); !token.empty() && token != "type";
         token = next_token(line, pos)) {
        name += name.empty() ? "" : " ";
        name += token;
    }
    if (name.empty()) {
        return parsed;
    }
    parsed.kind = UciLine::Kind::option;
    parsed.word = std::move(name);
    for (std::string_view token = next_token(line, pos); !token.empty();
         token = next_token(line, pos)) {
        if (token == "min") {
            parsed.min = to_int(next_token(line, pos));
        } else if (token == "max") {
            parsed.max = to_int(next_token(line, pos));
        }
    }
    return parsed;
}

}  // namespace

UciLine parse_uci_line(std::string_view line) {
    std::size_t pos = 0;
    const std::string_view command = next_token(line, pos);
    UciLine parsed;
    if (command == "uciok") {
        parsed.kind = UciLine::Kind::uciok;
    } else if (command == "readyok") {
        parsed.kind = UciLine::Kind::readyok;
    } else if (command == "bestmove") {
        parsed.kind = UciLine::Kind::bestmove;
        parsed.word = std::string(next_token(line, pos));
    } else if (command == "option") {
        return parse_option(line, pos);
    }
    return parsed;
}

std::optional<UciInfo> parse_uci_info(std::string_view line) {
    std::size_t pos = 0;
    if (next_token(line, pos) != "info") {
        return std::nullopt;
    }
    UciInfo info;
    bool scored = false;
    for (std::string_view token = next_token(line, pos); !token.empty();
         token = next_token(line, pos)) {
        if (token == "multipv") {
            if (to_int(next_token(line, pos)).value_or(1) != 1) {
                return std::nullopt;
            }
        } else if (token == "score") {
            const std::string_view kind = next_token(line, pos);
            const auto value = to_int(next_token(line, pos));
            if (!value || (kind != "cp" && kind != "mate")) {
                return std::nullopt;
            }
            (kind == "cp" ? info.cp : info.mate) = *value;
            scored = true;
        } else if (token == "lowerbound" || token == "upperbound") {
            info.bound = true;
        } else if (token == "pv") {
            // The principal variation runs to the end of the line (UCI: "pv" comes last).
            for (std::string_view move = next_token(line, pos); !move.empty();
                 move = next_token(line, pos)) {
                info.pv.emplace_back(move);
            }
        } else if (token == "string") {
            return std::nullopt;  // free text to the end of the line
        }
    }
    if (!scored) {
        return std::nullopt;
    }
    return info;
}

std::string analysis_go_command(std::optional<std::uint64_t> nodes,
                                std::chrono::milliseconds movetime) {
    if (nodes) {
        return "go nodes " + std::to_string(*nodes);
    }
    return "go movetime " + std::to_string(std::max<std::int64_t>(1, movetime.count()));
}

void UciOptions::note(const UciLine& line) {
    if (line.kind != UciLine::Kind::option) {
        return;
    }
    if (line.word == "UCI_Variant") {
        uci_variant = true;
    } else if (line.word == "Threads") {
        threads = true;
    } else if (line.word == "Skill Level") {
        skill_level = true;
    } else if (line.word == "UCI_LimitStrength") {
        limit_strength = true;
    } else if (line.word == "UCI_Elo") {
        elo = true;
        elo_min = line.min;
        elo_max = line.max;
    }
}

UciStrength uci_strength(int level) {
    // Levels 1..4 weaken by Skill Level alone (Stockfish's UCI_Elo does not go below ~1350);
    // 5..7 limit the Elo; 8 is full strength. Think time in untimed games grows with the level.
    struct Row {
        int skill;
        int elo;  // 0: not limited
        int movetime_ms;
    };
    static constexpr std::array<Row, 8> kLevels = {{{0, 0, 50},
                                                    {3, 0, 100},
                                                    {6, 0, 200},
                                                    {10, 0, 300},
                                                    {20, 1700, 500},
                                                    {20, 2000, 800},
                                                    {20, 2300, 1200},
                                                    {20, 0, 2000}}};
    const Row& row = kLevels[static_cast<std::size_t>(std::clamp(level, 1, 8) - 1)];
    UciStrength strength;
    strength.skill_level = row.skill;
    if (row.elo != 0) {
        strength.elo = row.elo;
    }
    strength.movetime = std::chrono::milliseconds(row.movetime_ms);
    return strength;
}

std::string position_command(std::string_view fen, const std::vector<std::string>& moves) {
    std::string command = "position fen ";
    command += fen;
    if (!moves.empty()) {
        command += " moves";
        for (const auto& move : moves) {
            command += ' ';
            command += move;
        }
    }
    return command;
}

std::string go_command(const std::optional<std::array<std::int64_t, 2>>& remaining_ms,
                       std::int64_t increment_ms, std::chrono::milliseconds movetime) {
    if (!remaining_ms) {
        return "go movetime " + std::to_string(movetime.count());
    }
    const auto at_least_1 = [](std::int64_t ms) {
        return std::to_string(std::max<std::int64_t>(1, ms));
    };
    return "go wtime " + at_least_1((*remaining_ms)[0]) + " btime " +
           at_least_1((*remaining_ms)[1]) + " winc " + std::to_string(increment_ms) + " binc " +
           std::to_string(increment_ms) + " movetime " + at_least_1(movetime.count());
}

std::string setoption_command(std::string_view name, std::string_view value) {
    return "setoption name " + std::string(name) + " value " + std::string(value);
}

std::string display_name(std::string_view engine) {
    if (engine == "stockfish") {
        return "Stockfish";
    }
    if (engine == "fairy-stockfish") {
        return "Fairy-Stockfish";
    }
    if (engine == "builtin") {
        return "Arbiter builtin";
    }
    return std::string(engine);
}

std::string seat_name(std::string_view engine, int level) {
    const std::string suffix = " (level " + std::to_string(level) + ")";
    // Player names are at most 32 characters (protocol.md); engine names are ASCII.
    std::string name = display_name(engine).substr(0, 32 - suffix.size());
    return name + suffix;
}

}  // namespace arbiter::server::engines
