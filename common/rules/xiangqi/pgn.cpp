#include "common/rules/xiangqi/pgn.hpp"

#include <cstdio>

namespace arbiter::rules::xiangqi {

namespace {

std::string tag(std::string_view name, std::string_view value) {
    std::string escaped;
    for (char c : value) {
        if (c == '"' || c == '\\') {
            escaped += '\\';
        }
        escaped += c;
    }
    return "[" + std::string(name) + " \"" + escaped + "\"]\n";
}

std::string or_unknown(const std::string& value) {
    return value.empty() ? "?" : value;
}

std::string clock_comment(std::int64_t milliseconds) {
    const std::int64_t seconds = milliseconds < 0 ? 0 : milliseconds / 1000;
    char text[48];
    std::snprintf(text, sizeof text, " { [%%clk %lld:%02lld:%02lld] }",
                  static_cast<long long>(seconds / 3600), static_cast<long long>(seconds / 60 % 60),
                  static_cast<long long>(seconds % 60));
    return text;
}

}  // namespace

std::string export_pgn(const ExportInfo& info, const PgnGame& game) {
    const Outcome outcome = info.outcome != Outcome::ongoing ? info.outcome : game.status.outcome;
    const std::string result(result_string(outcome));
    std::string text;
    text += tag("Event", or_unknown(info.event));
    text += tag("Site", or_unknown(info.site));
    text += tag("Date", info.date.empty() ? "????.??.??" : info.date);
    text += tag("Round", "?");
    text += tag("White", or_unknown(info.first_player));
    text += tag("Black", or_unknown(info.second_player));
    text += tag("Result", result);
    text += tag("Variant", "xiangqi");
    const std::string fen = game.start.fen();
    if (fen != kStartFen) {
        text += tag("FEN", fen);
        text += tag("SetUp", "1");
    }
    if (!info.termination.empty()) {
        text += tag("Termination", info.termination);
    }
    text += '\n';
    int number = game.start.fullmove();
    bool red = game.start.side_to_move() == Color::red;
    for (std::size_t ply = 0; ply < game.san.size(); ++ply) {
        if (red) {
            text += std::to_string(number) + ". ";
        } else if (ply == 0) {
            text += std::to_string(number) + "... ";
        }
        text += game.san[ply];
        if (ply < info.clock_ms.size()) {
            text += clock_comment(info.clock_ms[ply]);
        }
        text += ' ';
        if (!red) {
            ++number;
        }
        red = !red;
    }
    text += result + "\n";
    return text;
}

}  // namespace arbiter::rules::xiangqi
