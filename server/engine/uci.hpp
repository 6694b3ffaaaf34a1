#pragma once
/// \file
/// The text side of UCI, as pure functions: reading an engine's lines, writing the commands
/// the server sends, and how a level 1..8 maps to UCI options and think time. No I/O here, so
/// all of it is unit-tested.

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arbiter::server::engines {

/// One line from a UCI engine, classified.
struct UciLine {
    enum class Kind : std::uint8_t { uciok, readyok, bestmove, option, other };
    Kind kind = Kind::other;
    std::string word;        ///< bestmove: the move ("(none)" too); option: the option's name
    std::optional<int> min;  ///< option: "min" of a spin option
    std::optional<int> max;  ///< option: "max" of a spin option
};
/// Classifies one line (without its newline). Unknown lines (id, info, copyright) are `other`.
UciLine parse_uci_line(std::string_view line);

/// What an `info` line says of the search, as analysis reads it: the score from the side to
/// move's view and the principal variation. Lines without a score (currmove, string, ...) and
/// lines of a second or later multipv line are not infos (nullopt).
struct UciInfo {
    std::optional<int> cp;    ///< "score cp N"
    std::optional<int> mate;  ///< "score mate N": moves to mate, negative when mated
    bool bound = false;       ///< "lowerbound"/"upperbound": not the final score of its depth
    std::vector<std::string> pv;
    bool operator==(const UciInfo&) const = default;
};
/// Parses an `info ... score ...` line.
std::optional<UciInfo> parse_uci_info(std::string_view line);

/// `go nodes N` when `nodes` is given, else `go movetime N`: a bounded search for analysis.
std::string analysis_go_command(std::optional<std::uint64_t> nodes,
                                std::chrono::milliseconds movetime);

/// Of the options a UCI engine announces in its handshake, those the server sets. Nothing else is
/// kept: an engine may announce any number of options.
struct UciOptions {
    bool uci_variant = false;
    bool threads = false;
    bool skill_level = false;
    bool limit_strength = false;
    bool elo = false;
    std::optional<int> elo_min;  ///< UCI_Elo's bounds, as announced
    std::optional<int> elo_max;
    /// Notes an `option` line; any other line, or an option the server does not set, is ignored.
    void note(const UciLine& line);
    bool operator==(const UciOptions&) const = default;
};

/// How strong a UCI engine plays at a level.
struct UciStrength {
    int skill_level = 20;    ///< "Skill Level" 0..20 (Stockfish, Fairy-Stockfish)
    std::optional<int> elo;  ///< UCI_LimitStrength + UCI_Elo; nullopt: not limited
    /// Think time per move: in an untimed game, and the cap in a timed one (think_budget).
    std::chrono::milliseconds movetime{0};
};
/// The strength of a level 1..8 (clamped into that range).
UciStrength uci_strength(int level);

/// `position fen <fen>[ moves m1 m2 ...]`.
std::string position_command(std::string_view fen, const std::vector<std::string>& moves);
/// Timed: `go wtime W btime B winc I binc I movetime N` (the first seat is UCI's white, also
/// xiangqi's red): the engine knows the clock and stops at N at the latest, which its own time
/// management, by the clock alone, did not (Stockfish at Skill Level 3 took 26-30 s a move at
/// 5+3). Untimed: `go movetime N`.
std::string go_command(const std::optional<std::array<std::int64_t, 2>>& remaining_ms,
                       std::int64_t increment_ms, std::chrono::milliseconds movetime);
/// `setoption name <name> value <value>`.
std::string setoption_command(std::string_view name, std::string_view value);

/// "Stockfish", "Fairy-Stockfish", "Arbiter builtin", or the configured name itself.
std::string display_name(std::string_view engine);
/// "Stockfish (level 3)": the engine seat's player name (at most 32 characters).
std::string seat_name(std::string_view engine, int level);

}  // namespace arbiter::server::engines
