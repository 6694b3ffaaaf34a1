#include "common/rules/chess/pgn.hpp"

namespace arbiter::rules::chess {

namespace {

constexpr std::size_t max_line = 80;  // PGN standard 8.2.1: lines of at most 255, 80 is kind

/// A tag value with '\\' and '"' escaped (PGN standard 7); "?" for an unknown value.
std::string tag(std::string_view name, std::string_view value) {
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

/// "{[%clk h:mm:ss]}" (the lichess/chess.com clock comment), whole seconds rounded down.
std::string clock_comment(std::int64_t ms) {
    const std::int64_t seconds = ms > 0 ? ms / 1000 : 0;
    return "{[%clk " + std::to_string(seconds / 3600) + ":" + two_digits(seconds / 60 % 60) + ":" +
           two_digits(seconds % 60) + "]}";
}

class Wrapper {
  public:
    void add(const std::string& token) {
        if (!line_.empty() && line_.size() + 1 + token.size() > max_line) {
            text_ += line_ + '\n';
            line_.clear();
        }
        line_ += line_.empty() ? token : ' ' + token;
    }
    std::string finish() { return text_ + line_ + '\n'; }

  private:
    std::string text_;
    std::string line_;
};

}  // namespace

std::string write_pgn(const PgnMoves& moves, const ExportInfo& info, Outcome outcome,
                      const std::string& termination) {
    std::string out;
    out += tag("Event", info.event);
    out += tag("Site", info.site);
    out += tag("Date", info.date.empty() ? "????.??.??" : info.date);
    out += tag("Round", "-");
    out += tag("White", info.first_player);
    out += tag("Black", info.second_player);
    out += tag("Result", result_string(outcome));
    if (!moves.standard_start) {
        out += tag("SetUp", "1");
        out += tag("FEN", moves.start_fen);
    }
    out += tag("Termination", termination);
    out += '\n';

    Wrapper movetext;
    int number = moves.first_move_number;
    Color mover = moves.first_mover;
    for (std::size_t ply = 0; ply < moves.san.size(); ++ply) {
        if (mover == white) {
            movetext.add(std::to_string(number) + ". " + moves.san[ply]);
        } else if (ply == 0) {
            movetext.add(std::to_string(number) + "... " + moves.san[ply]);
        } else {
            movetext.add(moves.san[ply]);
        }
        if (ply < info.clock_ms.size()) {
            movetext.add(clock_comment(info.clock_ms[ply]));
        }
        if (mover == black) {
            ++number;
        }
        mover = ~mover;
    }
    movetext.add(std::string(result_string(outcome)));
    return out + movetext.finish();
}

}  // namespace arbiter::rules::chess
