// Applying server messages to a GameView, and the text of a game screen. Fields are read
// defensively: a field of an unexpected type reads as empty rather than throwing.
#include "client/cli/game_view.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace arbiter::client {

using nlohmann::json;

std::string text_field(const json& message, const char* key) {
    auto found = message.find(key);
    return found != message.end() && found->is_string() ? found->get<std::string>() : "";
}

bool flag_field(const json& message, const char* key) {
    auto found = message.find(key);
    return found != message.end() && found->is_boolean() && found->get<bool>();
}

std::uint64_t count_field(const json& message, const char* key) {
    auto found = message.find(key);
    // Integers parsed from text are unsigned when non-negative; built ones may be signed.
    if (found == message.end() || !found->is_number_integer() || found->get<std::int64_t>() < 0) {
        return 0;
    }
    return found->get<std::uint64_t>();
}

namespace {

// A game aborted by the server says why; one a player aborted needs no reason.
std::string aborted_text(const std::string& reason) {
    return reason == "abandoned" ? "Game aborted: its creator did not come back" : "Game aborted";
}

std::vector<std::string> strings_of(const json& message, const char* key) {
    std::vector<std::string> values;
    auto found = message.find(key);
    if (found != message.end() && found->is_array()) {
        for (const auto& item : *found) {
            values.push_back(item.is_string() ? item.get<std::string>() : "");
        }
    }
    return values;
}

std::optional<ClockView> clock_of(const json& message) {
    auto found = message.find("clock");
    if (found == message.end() || !found->is_object()) {
        return std::nullopt;
    }
    ClockView clock;
    for (const auto& [key, value] : found->items()) {
        const auto suffix = key.rfind("_ms");
        if (suffix != std::string::npos && suffix + 3 == key.size() && value.is_number_integer()) {
            clock.remaining_ms[key.substr(0, suffix)] = value.get<std::int64_t>();
        }
    }
    clock.running = flag_field(*found, "running");
    return clock;
}

void read_position(GameView& view, const json& message) {
    view.position = text_field(message, "position");
    view.turn = text_field(message, "turn");
    view.legal = strings_of(message, "legal");
    view.check = flag_field(message, "check");
    view.clock = clock_of(message);
}

void read_state(GameView& view, const json& message) {
    view.game = text_field(message, "game");
    view.seq = count_field(message, "seq");
    view.variant = text_field(message, "variant");
    view.status = text_field(message, "status");
    view.you = text_field(message, "you");
    view.players.clear();
    if (auto players = message.find("players"); players != message.end() && players->is_object()) {
        for (const auto& [seat, player] : players->items()) {
            SeatView seat_view;
            if (player.is_object()) {
                seat_view = {true, text_field(player, "name"), flag_field(player, "connected")};
            }
            view.players[seat] = seat_view;
        }
    }
    read_position(view, message);
    view.moves = strings_of(message, "moves");
    view.notation = strings_of(message, "notation");
    view.ply = count_field(message, "ply");
    view.result = text_field(message, "result");
    view.reason = text_field(message, "reason");
    view.offers.clear();
    if (auto offers = message.find("offers"); offers != message.end() && offers->is_array()) {
        for (const auto& offer : *offers) {
            view.offers.emplace_back(text_field(offer, "kind"), text_field(offer, "by"));
        }
    }
    view.rematch = text_field(message, "rematch");
    view.spectators = static_cast<int>(count_field(message, "spectators"));
    view.have_state = true;
}

// The running clock (the side to move's, protocol.md "Clocks") stops where the display counted
// it down to; a `timeout` says it reached 0.
void stop_clocks(GameView& view, std::int64_t elapsed_ms, bool ran_out) {
    if (!view.clock) {
        return;
    }
    auto running = view.clock->remaining_ms.find(view.turn);
    if (view.clock->running && view.status == "playing" &&
        running != view.clock->remaining_ms.end()) {
        running->second = ran_out ? 0 : std::max<std::int64_t>(running->second - elapsed_ms, 0);
    }
    view.clock->running = false;
}

void apply_event(GameView& view, const std::string& type, const json& message,
                 std::int64_t elapsed_ms) {
    if (type == "moved") {
        if (view.status == "waiting") {
            view.status = "playing";  // a spectator of a waiting game learns of the join here
        }
        read_position(view, message);
        view.ply = count_field(message, "ply");
        view.moves.push_back(text_field(message, "move"));
        view.notation.push_back(text_field(message, "notation"));
        // protocol.md: a moved event clears the open draw and takeback offers.
        std::erase_if(view.offers, [](const auto& offer) { return offer.first != "rematch"; });
    } else if (type == "ended") {
        stop_clocks(view, elapsed_ms, text_field(message, "reason") == "timeout");
        view.status =
            text_field(message, "status").empty() ? "ended" : text_field(message, "status");
        view.result = text_field(message, "result");
        view.reason = text_field(message, "reason");
        view.legal.clear();
        // A game that is over has no open draw or takeback offer (an accepted draw ends it with
        // only this event); a rematch may still be offered.
        std::erase_if(view.offers, [](const auto& offer) { return offer.first != "rematch"; });
    } else if (type == "offer") {
        const std::string kind = text_field(message, "kind");
        std::erase_if(view.offers, [&](const auto& offer) { return offer.first == kind; });
        if (text_field(message, "action") == "offer") {
            view.offers.emplace_back(kind, text_field(message, "by"));
        }
    } else if (type == "takeback") {
        read_position(view, message);
        view.ply = count_field(message, "ply");
        view.moves.resize(std::min<std::size_t>(view.moves.size(), view.ply));
        view.notation.resize(std::min<std::size_t>(view.notation.size(), view.ply));
        std::erase_if(view.offers, [](const auto& offer) { return offer.first == "takeback"; });
    } else if (type == "presence") {
        view.players[text_field(message, "seat")].connected = flag_field(message, "connected");
    } else if (type == "rematch") {
        view.rematch = text_field(message, "next");
    }
}

// Whether the first seat (white, red) is to move in `position`: a chess or xiangqi FEN names the
// side after the board ("w"; xiangqi's red may be "r"), a PDN FEN opens with it ("W:...").
bool first_seat_to_move(const std::string& variant, const std::string& position) {
    if (variant == "draughts") {
        return position.starts_with('W');
    }
    const auto space = position.find(' ');
    return space != std::string::npos && space + 1 < position.size() &&
           (position[space + 1] == 'w' || position[space + 1] == 'r');
}

// The last move's number as the move list numbers it, in pairs from the game's first ply: "4."
// after the first seat's move, "4..." after the second's (a game from a position with the second
// seat to move opens with "1...").
std::string last_move_number(const GameView& view) {
    const bool second_seat_moved = first_seat_to_move(view.variant, view.position);
    const bool second_seat_started = second_seat_moved == (view.ply % 2 == 1);
    const std::uint64_t slot = view.ply - 1 + (second_seat_started ? 1 : 0);
    return std::to_string(slot / 2 + 1) + (second_seat_moved ? "..." : ".");
}

std::string seat_title(const std::string& seat) {
    return seat.empty() ? seat : static_cast<char>(std::toupper(seat[0])) + seat.substr(1);
}

}  // namespace

std::vector<std::string> seats_of(const std::string& variant) {
    if (variant == "xiangqi") {
        return {"red", "black"};
    }
    return {"white", "black"};
}

Applied apply_message(GameView& view, const json& message, std::int64_t elapsed_ms) {
    const std::string type = text_field(message, "type");
    if (type == "state") {
        read_state(view, message);
        return Applied::changed;
    }
    if (type == "spectators" && text_field(message, "game") == view.game) {
        view.spectators = static_cast<int>(count_field(message, "count"));
        return Applied::other;
    }
    static const std::vector<std::string> kEvents = {"moved",    "ended",    "offer",
                                                     "takeback", "presence", "rematch"};
    if (std::find(kEvents.begin(), kEvents.end(), type) == kEvents.end() || !view.have_state ||
        text_field(message, "game") != view.game) {
        return Applied::other;
    }
    const std::uint64_t seq = count_field(message, "seq");
    if (seq <= view.seq) {
        return Applied::duplicate;
    }
    if (seq > view.seq + 1) {
        return Applied::gap;
    }
    view.seq = seq;
    apply_event(view, type, message, elapsed_ms);
    return Applied::changed;
}

std::string describe(const GameView& view, const json& message) {
    const std::string type = text_field(message, "type");
    if (type == "error") {
        return "error (" + text_field(message, "code") + "): " + text_field(message, "message");
    }
    if (type == "offer") {
        const std::string kind = text_field(message, "kind");
        const std::string action = text_field(message, "action");
        const std::string who = seat_title(text_field(message, "by"));
        if (action == "offer") {
            // Only the player the offer is made to can answer it: not the offerer, nor a
            // spectator.
            const bool to_you = view.you != "spectator" && !view.you.empty() &&
                                view.you != text_field(message, "by");
            return who + " offers " + (kind == "draw" ? "a draw" : "a " + kind) +
                   (to_you ? " (answer: " + kind + " accept | " + kind + " decline)" : "");
        }
        return who + (action == "accept" ? " accepts the " : " declines the ") + kind;
    }
    if (type == "presence") {
        const std::string who = seat_title(text_field(message, "seat"));
        if (flag_field(message, "connected")) {
            return who + " is back";
        }
        const std::string after =
            std::to_string(count_field(message, "claim_after_ms") / 1000) + " s";
        // Only the opponent may claim (protocol.md, "Disconnects and claims").
        if (view.you == "spectator" || view.you.empty() ||
            view.you == text_field(message, "seat")) {
            return who + " disconnected; the opponent may claim after " + after;
        }
        return who + " disconnected; you may claim after " + after + " (claim win | claim draw)";
    }
    if (type == "takeback") {
        return "Takeback: back to ply " + std::to_string(count_field(message, "ply"));
    }
    if (type == "rematch") {
        return "Rematch agreed: the next game is " + text_field(message, "next");
    }
    if (type == "ended") {
        if (view.status == "aborted") {
            return aborted_text(text_field(message, "reason"));
        }
        return "Game over: " + text_field(message, "result") + " (" +
               text_field(message, "reason") + ")";
    }
    if (type == "created" || type == "joined") {
        return "Game " + text_field(message, "game") + ": you play " + text_field(message, "seat");
    }
    if (type == "state" && view.you != "spectator" && !view.you.empty()) {
        // Coming back (a reconnect, a server restart), a player hears from the state when a claim
        // opens against an opponent who is away: no presence event says it again.
        const auto players = message.find("players");
        for (const std::string& seat : seats_of(view.variant)) {
            if (seat == view.you || players == message.end() || !players->is_object()) {
                continue;
            }
            const auto player = players->find(seat);
            if (player == players->end() || !player->is_object() ||
                !player->contains("claim_after_ms")) {
                continue;
            }
            const std::uint64_t after = count_field(*player, "claim_after_ms");
            return seat_title(seat) + " is away; you may claim " +
                   (after == 0 ? std::string("now")
                               : "after " + std::to_string(after / 1000) + " s") +
                   " (claim win | claim draw)";
        }
    }
    return "";
}

bool drawn_flipped(const GameView& view, bool flip) {
    const bool second_seat = view.you == "black";
    return second_seat != flip;
}

std::string render_clocks(const GameView& view, bool flip, std::int64_t elapsed_ms) {
    const auto seats = seats_of(view.variant);
    const bool flipped = drawn_flipped(view, flip);
    const std::string& top = flipped ? seats[0] : seats[1];
    const std::string& bottom = flipped ? seats[1] : seats[0];
    std::string text;
    for (const std::string* seat : {&top, &bottom}) {
        auto found = view.players.find(*seat);
        std::string name = found == view.players.end() || !found->second.taken
                               ? "(open)"
                               : found->second.name + (found->second.connected ? "" : " (away)");
        std::string line = "  " + seat_title(*seat) + "  " + name;
        if (view.clock) {
            const auto remaining = view.clock->remaining_ms.find(*seat);
            std::int64_t ms = remaining == view.clock->remaining_ms.end() ? 0 : remaining->second;
            if (view.clock->running && view.turn == *seat && view.status == "playing") {
                ms -= elapsed_ms;
            }
            line += "  " + format_clock(ms);
        }
        if (view.status == "playing" && view.turn == *seat) {
            line += "  <- to move";
        }
        text += line + "\n";
    }
    return text;
}

std::string render_screen(const GameView& view, const RenderStyle& style, bool flip,
                          std::int64_t elapsed_ms) {
    BoardRequest request{view.variant, view.position, drawn_flipped(view, flip),
                         view.moves.empty() ? "" : view.moves.back(), style};
    auto board = render_board(request);
    std::string text = board ? *board : board.error() + "\n";
    text += render_clocks(view, flip, elapsed_ms);
    if (!view.moves.empty()) {
        const std::string& notation =
            view.notation.size() == view.moves.size() ? view.notation.back() : view.moves.back();
        text += "Last move: " + last_move_number(view) + " " + notation + " (" + view.moves.back() +
                ")";
    } else {
        text += "No moves yet";
    }
    text += "   Game " + view.game + "   spectators: " + std::to_string(view.spectators) + "\n";
    for (const auto& [kind, by] : view.offers) {
        text += "Open offer: " + kind + " by " + by + "\n";
    }
    if (view.status == "waiting") {
        text += "Waiting for an opponent: arbiter-cli join " + view.game + "\n";
    } else if (view.status == "playing") {
        text += view.you == view.turn
                    ? "Your move" + std::string(view.check ? " (check!)" : "")
                    : seat_title(view.turn) + " to move" + (view.check ? " (check)" : "");
        text += "\n";
    } else if (view.status == "aborted") {
        text += aborted_text(view.reason) + "\n";
    } else if (view.status == "ended") {
        text += "Game over: " + view.result + " (" + view.reason + ")\n";
    }
    return text;
}

}  // namespace arbiter::client
