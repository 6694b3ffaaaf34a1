#include "client/cli/replay_view.hpp"

#include <cctype>
#include <charconv>

#include "client/cli/move_list.hpp"

namespace arbiter::client {

GameRecord read_record(const protocol::Record& message) {
    GameRecord record;
    record.game = message.game;
    record.variant = std::string(rules::to_string(message.variant));
    record.status = std::string(protocol::to_string(message.status));
    record.initial_position = message.initial_position;
    record.initial_check = message.initial_check;
    record.result = std::string(protocol::result_text(message.result));
    record.reason = std::string(protocol::to_string(message.reason));
    for (const rules::Side side : {rules::Side::first, rules::Side::second}) {
        const auto& player = side == rules::Side::first ? message.first : message.second;
        record.players.emplace_back(rules::seat_name(message.variant, side),
                                    player ? player->name : "(open)");
    }
    for (const protocol::RecordMove& move : message.moves) {
        record.moves.push_back({move.ply, move.move, move.notation, move.position, move.check});
    }
    return record;
}

namespace {

// protocol.md: a game's first position is the variant's start unless created from a position.
constexpr std::string_view kChessStart = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
// Movetext lines of PGN export format (PGN standard, 8.2.6: at most 79 characters a line).
constexpr std::size_t kPgnWidth = 79;
constexpr std::size_t kPrintWidth = 72;

std::vector<std::string> record_pairs(const GameRecord& record) {
    std::vector<std::string> notation;
    for (const RecordMove& move : record.moves) {
        notation.push_back(move.notation.empty() ? move.move : move.notation);
    }
    return move_pairs(notation, !first_seat_to_move(record.variant, record.initial_position));
}

// A PGN tag value: backslash and quote escaped (PGN standard, 7: string tokens).
std::string pgn_value(const std::string& value) {
    std::string escaped;
    for (const char letter : value) {
        if (letter == '\\' || letter == '"') {
            escaped += '\\';
        }
        escaped += letter;
    }
    return escaped;
}

std::string title(const std::string& word) {
    return word.empty() ? word
                        : static_cast<char>(std::toupper(static_cast<unsigned char>(word[0]))) +
                              word.substr(1);
}

}  // namespace

std::string print_record(const GameRecord& record) {
    std::string text = "Game " + record.game + " (" + record.variant + ")";
    for (std::size_t index = 0; index < record.players.size(); ++index) {
        text += (index == 0 ? ": " : " vs ") + record.players[index].second + " (" +
                record.players[index].first + ")";
    }
    text += "\n";
    text += move_list_text(record_pairs(record), kPrintWidth, 0);
    text += record.result.empty() ? "Status: " + record.status + "\n"
                                  : "Result: " + record.result + " (" + record.reason + ")\n";
    return text;
}

std::string print_record_pgn(const GameRecord& record) {
    const std::string result = record.result.empty() ? "*" : record.result;
    std::string text = "[Event \"Arbiter game " + pgn_value(record.game) + "\"]\n";
    if (record.variant != "chess") {
        text += "[Variant \"" + pgn_value(title(record.variant)) + "\"]\n";
    }
    for (const auto& [seat, name] : record.players) {
        text += "[" + title(seat) + " \"" + pgn_value(name) + "\"]\n";
    }
    text += "[Result \"" + result + "\"]\n";
    if (record.variant != "chess" || record.initial_position != kChessStart) {
        text += "[SetUp \"1\"]\n[FEN \"" + pgn_value(record.initial_position) + "\"]\n";
    }
    if (!record.reason.empty()) {
        text += "[Termination \"" + pgn_value(record.reason) + "\"]\n";
    }
    auto pairs = record_pairs(record);
    pairs.push_back(result);
    // PGN separates the pairs with one space.
    std::string line;
    std::string movetext;
    for (const std::string& pair : pairs) {
        if (!line.empty() && line.size() + 1 + pair.size() > kPgnWidth) {
            movetext += line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + pair;
    }
    return text + "\n" + movetext + line + "\n";
}

std::string render_record_at(const GameRecord& record, std::size_t ply, const RenderStyle& style,
                             bool flip) {
    const bool at_start = ply == 0 || ply > record.moves.size();
    BoardRequest request{record.variant,
                         at_start ? record.initial_position : record.moves[ply - 1].position, flip,
                         at_start ? "" : record.moves[ply - 1].move, style};
    auto board = render_board(request);
    std::string text = board ? *board : board.error() + "\n";
    text += "Ply " + std::to_string(at_start ? 0 : ply) + "/" + std::to_string(record.moves.size());
    if (!at_start) {
        text += ": " + record.moves[ply - 1].notation + " (" + record.moves[ply - 1].move + ")";
    }
    // As the game screen says it: xiangqi's "+" is a direction, so the record's flag decides.
    if (at_start ? record.initial_check : record.moves[ply - 1].check) {
        text += " (check)";
    }
    text += "\n";
    if (ply == record.moves.size() && !record.result.empty()) {
        text += "Result: " + record.result + " (" + record.reason + ")\n";
    }
    return text + "keys: next (Enter), prev, first, last, NUMBER, flip, quit\n";
}

Expected<ReplayStep, std::string> parse_replay_step(std::string_view line, std::size_t current,
                                                    std::size_t total) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) {
        line.remove_suffix(1);
    }
    while (!line.empty() && line.front() == ' ') {
        line.remove_prefix(1);
    }
    if (line.empty() || line == "n" || line == "next") {
        return ReplayStep{current < total ? current + 1 : total};
    }
    if (line == "p" || line == "prev" || line == "previous") {
        return ReplayStep{current > 0 ? current - 1 : 0};
    }
    if (line == "f" || line == "first") {
        return ReplayStep{0};
    }
    if (line == "l" || line == "last") {
        return ReplayStep{total};
    }
    if (line == "q" || line == "quit" || line == "exit") {
        return ReplayStep{current, true};
    }
    if (line == "flip") {
        return ReplayStep{current, false, true};
    }
    std::size_t ply = 0;
    auto [end, error] = std::from_chars(line.data(), line.data() + line.size(), ply);
    if (error == std::errc{} && end == line.data() + line.size() && ply <= total) {
        return ReplayStep{ply};
    }
    return unexpected("keys: next (Enter), prev, first, last, a ply from 0 to " +
                      std::to_string(total) + ", flip, quit");
}

}  // namespace arbiter::client
