#include "common/rules/pgn_writer.hpp"

#include <algorithm>
#include <utility>

namespace arbiter::rules::pgn {

namespace {

// PGN 8.2: an export format line is "less than 80 characters".
constexpr std::size_t kMaxLineLength = 79;

/// A tag pair line with '\\' and '"' escaped (PGN 7) and line breaks dropped (a tag pair is one
/// line); "?" for an unknown value.
std::string tag_line(std::string_view name, std::string_view value) {
    std::string escaped;
    for (const char c : value) {
        if (c == '\\' || c == '"') {
            escaped += '\\';
        }
        if (c != '\n' && c != '\r') {
            escaped += c;
        }
    }
    if (escaped.empty()) {
        escaped = "?";
    }
    return "[" + std::string(name) + " \"" + escaped + "\"]\n";
}

std::string two_digits(std::int64_t value) {
    return {static_cast<char>('0' + value / 10), static_cast<char>('0' + value % 10)};
}

/// The Seven Tag Roster with `result`, then `other` and info's TimeControl (when set) in ASCII
/// order of their names, then the empty line.
std::string roster_and_tags(const ExportInfo& info, std::string_view round, std::string_view result,
                            std::vector<Tag> other) {
    if (!info.time_control.empty()) {
        other.push_back({"TimeControl", info.time_control});
    }
    std::string text;
    text += tag_line("Event", info.event);
    text += tag_line("Site", info.site);
    text += tag_line("Date", info.date.empty() ? "????.??.??" : info.date);
    text += tag_line("Round", round);
    text += tag_line("White", info.first_player);
    text += tag_line("Black", info.second_player);
    text += tag_line("Result", result);
    // PGN 8.1.1: after the roster, the other tags in ASCII order of their names.
    std::sort(other.begin(), other.end(),
              [](const Tag& a, const Tag& b) { return a.name < b.name; });
    for (const Tag& tag : other) {
        text += tag_line(tag.name, tag.value);
    }
    return text + '\n';
}

}  // namespace

std::string tag_section(const ExportInfo& info, std::string_view round, Outcome outcome,
                        std::vector<Tag> other) {
    return roster_and_tags(info, round, result_string(outcome), std::move(other));
}

std::string pdn_tag_section(const ExportInfo& info, std::string_view round, std::string_view result,
                            std::vector<Tag> other) {
    return roster_and_tags(info, round, result, std::move(other));
}

std::string clock_command(std::int64_t ms) {
    const std::int64_t seconds = ms > 0 ? ms / 1000 : 0;
    return "[%clk " + std::to_string(seconds / 3600) + ":" + two_digits(seconds / 60 % 60) + ":" +
           two_digits(seconds % 60) + "]";
}

std::string eval_command_centipawns(int centipawns) {
    // Pawns with two decimals, written from the integer: exact, no floating point rounding.
    const long long magnitude = centipawns < 0 ? -static_cast<long long>(centipawns) : centipawns;
    return "[%eval " + std::string(centipawns < 0 ? "-" : "") + std::to_string(magnitude / 100) +
           "." + two_digits(magnitude % 100) + "]";
}

std::string eval_command_mate(int moves) {
    return "[%eval #" + std::to_string(moves) + "]";
}

std::string move_commands(const ExportInfo& info, std::size_t ply) {
    std::string commands = ply < info.evals.size() ? info.evals[ply] : std::string();
    if (ply < info.clock_ms.size()) {
        commands += (commands.empty() ? "" : " ") + clock_command(info.clock_ms[ply]);
    }
    return commands;
}

void Movetext::move(std::string_view notation) {
    if (mover_ == Side::first) {
        add(std::to_string(number_) + ". " + std::string(notation));
    } else if (number_due_) {
        add(std::to_string(number_) + "... " + std::string(notation));
    } else {
        add(notation);
    }
    number_due_ = false;
    if (mover_ == Side::second) {
        ++number_;
    }
    mover_ = opponent(mover_);
}

void Movetext::comment(std::string_view comment) {
    add(comment);
    number_due_ = true;
}

std::string Movetext::finish(std::string_view result) {
    add(result);
    return text_ + line_ + "\n\n";
}

void Movetext::add(std::string_view token) {
    if (!line_.empty() && line_.size() + 1 + token.size() > kMaxLineLength) {
        text_ += line_ + '\n';
        line_.clear();
    }
    if (!line_.empty()) {
        line_ += ' ';
    }
    line_ += token;
}

}  // namespace arbiter::rules::pgn
