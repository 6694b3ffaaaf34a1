#include "client/cli/replay_view.hpp"

#include <charconv>
#include <cstdio>

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

std::string print_record(const GameRecord& record) {
    std::string text = "Game " + record.game + " (" + record.variant + ")";
    for (std::size_t index = 0; index < record.players.size(); ++index) {
        text += (index == 0 ? ": " : " vs ") + record.players[index].second + " (" +
                record.players[index].first + ")";
    }
    text += "\n";
    for (const RecordMove& move : record.moves) {
        char line[160];
        std::snprintf(line, sizeof line, "%4llu. %-10s %s\n",
                      static_cast<unsigned long long>(move.ply), move.notation.c_str(),
                      move.move.c_str());
        text += line;
    }
    text += record.result.empty() ? "Status: " + record.status + "\n"
                                  : "Result: " + record.result + " (" + record.reason + ")\n";
    return text;
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
