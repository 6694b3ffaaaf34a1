// Applying server messages to a GameView, and the text of a game screen. The messages come
// decoded by the protocol's codec (protocol::decode_server), which refuses a malformed one whole:
// what arrives here is well formed, and the view keeps the server's names as text to show.
#include "client/cli/game_view.hpp"

#include <algorithm>
#include <variant>

#include "client/cli/analysis_view.hpp"
#include "client/cli/move_list.hpp"
#include "common/core/overloaded.hpp"

namespace arbiter::client {

namespace {

namespace protocol = arbiter::protocol;
using rules::Side;

std::string seat_text(rules::Variant variant, Side side) {
    return std::string(rules::seat_name(variant, side));
}

// A game aborted by the server says why; one a player aborted needs no reason.
std::string aborted_text(protocol::EndReason reason) {
    return reason == protocol::EndReason::abandoned ? "Game aborted: its creator did not come back"
                                                    : "Game aborted";
}

std::string aborted_text(const std::string& reason) {
    return aborted_text(protocol::parse_end_reason(reason).value_or(protocol::EndReason::none));
}

std::optional<ClockView> clock_view(rules::Variant variant,
                                    const std::optional<protocol::ClockState>& clock) {
    if (!clock) {
        return std::nullopt;
    }
    ClockView view;
    view.remaining_ms[seat_text(variant, Side::first)] = clock->first_ms;
    view.remaining_ms[seat_text(variant, Side::second)] = clock->second_ms;
    view.running = clock->running;
    return view;
}

// `state`, `moved` and `takeback`: where the game stands.
template <typename Event>
void read_position(GameView& view, const Event& event) {
    view.position = event.position;
    view.turn = seat_text(event.variant, event.turn);
    view.legal = event.legal;
    view.check = event.check;
    view.clock = clock_view(event.variant, event.clock);
    view.ply = event.ply;
}

SeatView seat_view(const std::optional<protocol::PlayerInfo>& player) {
    if (!player) {
        return SeatView{};
    }
    std::string badge;
    if (player->guest) {
        badge = " (guest)";
    } else if (player->rating) {
        badge =
            " " + std::to_string(player->rating->rating) + (player->rating->provisional ? "?" : "");
    }
    return SeatView{true, player->name, player->connected, badge};
}

// "+12" / "-7" / "+0".
std::string signed_text(int diff) {
    return (diff < 0 ? "" : "+") + std::to_string(diff);
}

void read_state(GameView& view, const protocol::State& state) {
    view.game = state.game;
    view.seq = state.seq;
    view.variant = std::string(rules::to_string(state.variant));
    view.status = std::string(protocol::to_string(state.status));
    view.you = state.you ? seat_text(state.variant, *state.you) : "spectator";
    view.players.clear();
    view.players[seat_text(state.variant, Side::first)] = seat_view(state.first);
    view.players[seat_text(state.variant, Side::second)] = seat_view(state.second);
    read_position(view, state);
    view.initial_position = state.initial_position;
    view.moves = state.moves;
    view.notation = state.notation;
    view.result = std::string(protocol::result_text(state.result));
    view.reason = std::string(protocol::to_string(state.reason));
    view.offers.clear();
    for (const protocol::OpenOffer& offer : state.offers) {
        view.offers.emplace_back(protocol::to_string(offer.kind),
                                 seat_text(state.variant, offer.by));
    }
    view.rematch = state.rematch.value_or("");
    view.spectators = static_cast<int>(state.spectators);
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

// A game that is over, and a move, leave no draw or takeback offer open; a rematch may still be
// offered.
void clear_game_offers(GameView& view) {
    std::erase_if(view.offers, [](const auto& offer) { return offer.first != "rematch"; });
}

void apply_event(GameView& view, const protocol::Moved& moved, std::int64_t /*elapsed_ms*/) {
    if (view.status == "waiting") {
        view.status = "playing";  // a spectator of a waiting game learns of the join here
    }
    read_position(view, moved);
    view.moves.push_back(moved.move);
    view.notation.push_back(moved.notation);
    // protocol.md: a moved event clears the open draw and takeback offers.
    clear_game_offers(view);
}

void apply_event(GameView& view, const protocol::Ended& ended, std::int64_t elapsed_ms) {
    stop_clocks(view, elapsed_ms, ended.reason == protocol::EndReason::timeout);
    view.status = std::string(protocol::to_string(ended.status));
    view.result = std::string(protocol::result_text(ended.result));
    view.reason = std::string(protocol::to_string(ended.reason));
    view.legal.clear();
    // An accepted draw ends the game with only this event.
    clear_game_offers(view);
}

void apply_event(GameView& view, const protocol::OfferEvent& offer, std::int64_t /*elapsed_ms*/) {
    const std::string kind(protocol::to_string(offer.kind));
    std::erase_if(view.offers, [&](const auto& open) { return open.first == kind; });
    if (offer.action == protocol::OfferAction::offer) {
        view.offers.emplace_back(kind, seat_text(offer.variant, offer.by));
    }
}

void apply_event(GameView& view, const protocol::TakenBack& takeback, std::int64_t /*elapsed_ms*/) {
    read_position(view, takeback);
    view.moves.resize(std::min<std::size_t>(view.moves.size(), view.ply));
    view.notation.resize(std::min<std::size_t>(view.notation.size(), view.ply));
    std::erase_if(view.offers, [](const auto& offer) { return offer.first == "takeback"; });
}

void apply_event(GameView& view, const protocol::Presence& presence, std::int64_t /*elapsed_ms*/) {
    view.players[seat_text(presence.variant, presence.seat)].connected = presence.connected;
}

void apply_event(GameView& view, const protocol::RematchEvent& rematch,
                 std::int64_t /*elapsed_ms*/) {
    view.rematch = rematch.next;
}

// The session shows chat as notes (PlayState); its seq still counts here (the gap rule).
void apply_event(GameView& /*view*/, const protocol::ChatEvent& /*chat*/,
                 std::int64_t /*elapsed_ms*/) {}

// A game event (protocol.md, "Events, seq and since"): applied when it is the next of this game.
template <typename Event>
Applied apply_game_event(GameView& view, const Event& event, std::int64_t elapsed_ms) {
    if (!view.have_state || event.game != view.game) {
        return Applied::other;
    }
    if (event.seq <= view.seq) {
        return Applied::duplicate;
    }
    if (event.seq > view.seq + 1) {
        return Applied::gap;
    }
    view.seq = event.seq;
    apply_event(view, event, elapsed_ms);
    return Applied::changed;
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

// The move list under the board: its last lines, as wide as the screen's status line.
constexpr std::size_t kMoveListWidth = 72;
constexpr std::size_t kMoveListLines = 3;

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

Applied apply_message(GameView& view, const protocol::ServerMessage& message,
                      std::int64_t elapsed_ms) {
    return std::visit(
        Overloaded{
            [&](const protocol::State& state) {
                read_state(view, state);
                return Applied::changed;
            },
            [&](const protocol::SpectatorCount& count) {
                if (count.game == view.game) {
                    view.spectators = static_cast<int>(count.count);
                }
                return Applied::other;
            },
            [&](const protocol::GameEvent auto& event) {
                return apply_game_event(view, event, elapsed_ms);
            },
            [](const OneOf<protocol::Welcome, protocol::SeatGranted, protocol::SeatLost,
                           protocol::LobbyList, protocol::GamesList, protocol::Record,
                           protocol::ErrorMessage, protocol::Pong, protocol::ChatMuted,
                           protocol::AnalysisProgress> auto&) { return Applied::other; },
        },
        message.body);
}

namespace {

std::string describe_offer(const GameView& view, const protocol::OfferEvent& offer) {
    const std::string kind(protocol::to_string(offer.kind));
    const std::string by = seat_text(offer.variant, offer.by);
    const std::string who = seat_title(by);
    if (offer.action == protocol::OfferAction::offer) {
        // Only the player the offer is made to can answer it: not the offerer, nor a spectator.
        const bool to_you = view.you != "spectator" && !view.you.empty() && view.you != by;
        return who + " offers " + (kind == "draw" ? "a draw" : "a " + kind) +
               (to_you ? " (answer: " + kind + " accept | " + kind + " decline)" : "");
    }
    return who +
           (offer.action == protocol::OfferAction::accept ? " accepts the " : " declines the ") +
           kind;
}

std::string describe_presence(const GameView& view, const protocol::Presence& presence) {
    const std::string seat = seat_text(presence.variant, presence.seat);
    const std::string who = seat_title(seat);
    if (presence.connected) {
        return who + " is back";
    }
    const std::string after = std::to_string(presence.claim_after_ms.value_or(0) / 1000) + " s";
    // Only the opponent may claim (protocol.md, "Disconnects and claims").
    if (view.you == "spectator" || view.you.empty() || view.you == seat) {
        return who + " disconnected; the opponent may claim after " + after;
    }
    return who + " disconnected; you may claim after " + after + " (claim win | claim draw)";
}

std::string describe_ended(const GameView& view, const protocol::Ended& ended) {
    if (view.status == "aborted") {
        return aborted_text(ended.reason);
    }
    std::string text = "Game over: " + std::string(protocol::result_text(ended.result)) + " (" +
                       std::string(protocol::to_string(ended.reason)) + ")";
    if (ended.ratings) {
        for (const Side side : {Side::first, Side::second}) {
            const auto& change = side == Side::first ? ended.ratings->first : ended.ratings->second;
            text += "; " + seat_text(ended.variant, side) + " " + std::to_string(change.after) +
                    (change.provisional ? "?" : "") + " (" + signed_text(change.diff) + ")";
        }
    }
    return text;
}

// Coming back (a reconnect, a server restart), a player hears from the state when a claim opens
// against an opponent who is away: no presence event says it again.
std::string describe_state(const GameView& view, const protocol::State& state) {
    if (view.you == "spectator" || view.you.empty()) {
        return "";
    }
    for (const Side side : {Side::first, Side::second}) {
        const std::string seat = seat_text(state.variant, side);
        const auto& player = side == Side::first ? state.first : state.second;
        if (seat == view.you || !player || !player->claim_after_ms) {
            continue;
        }
        const std::int64_t after = *player->claim_after_ms;
        return seat_title(seat) + " is away; you may claim " +
               (after == 0 ? std::string("now") : "after " + std::to_string(after / 1000) + " s") +
               " (claim win | claim draw)";
    }
    return "";
}

}  // namespace

std::string describe(const GameView& view, const protocol::ServerMessage& message) {
    return std::visit(
        Overloaded{
            [](const protocol::ErrorMessage& error) {
                // protocol.md: an illegal_move's message is the reason, for people ("e2e5: a
                // pawn cannot move there"): shown as the server wrote it.
                if (error.code == protocol::ErrorCode::illegal_move) {
                    return error.message;
                }
                return "error (" + std::string(protocol::to_string(error.code)) +
                       "): " + error.message;
            },
            [&](const protocol::OfferEvent& offer) { return describe_offer(view, offer); },
            [&](const protocol::Presence& presence) { return describe_presence(view, presence); },
            [](const protocol::TakenBack& takeback) {
                return "Takeback: back to ply " + std::to_string(takeback.ply);
            },
            [](const protocol::RematchEvent& rematch) {
                return "Rematch agreed: the next game is " + rematch.next;
            },
            [&](const protocol::Ended& ended) { return describe_ended(view, ended); },
            [](const protocol::SeatGranted& seat) {
                return "Game " + seat.game + ": you play " + seat_text(seat.variant, seat.seat);
            },
            [&](const protocol::State& state) { return describe_state(view, state); },
            [](const protocol::AnalysisProgress& progress) { return progress_text(progress); },
            [](const OneOf<protocol::Welcome, protocol::Moved, protocol::SpectatorCount,
                           protocol::SeatLost, protocol::LobbyList, protocol::GamesList,
                           protocol::Record, protocol::Pong, protocol::ChatEvent,
                           protocol::ChatMuted> auto&) { return std::string(); },
        },
        message.body);
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
                               : found->second.name + found->second.badge +
                                     (found->second.connected ? "" : " (away)");
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
    BoardRequest request{view.variant,
                         view.position,
                         drawn_flipped(view, flip),
                         view.moves.empty() ? "" : view.moves.back(),
                         style,
                         view.check && view.status == "playing"};
    auto board = render_board(request);
    std::string text = board ? *board : board.error() + "\n";
    text += render_clocks(view, flip, elapsed_ms);
    if (!view.initial_position.empty()) {
        text += captured_line(captured_pieces(view.variant, view.initial_position, view.position),
                              view.variant);
    }
    if (view.notation.size() == view.moves.size() && !view.notation.empty()) {
        // Who moved first: the side to move now, and whether an odd number of plies were played.
        const bool first_to_move = first_seat_to_move(view.variant, view.position);
        const bool second_seat_started = first_to_move == (view.notation.size() % 2 == 1);
        text += move_list_text(move_pairs(view.notation, second_seat_started), kMoveListWidth,
                               kMoveListLines);
    }
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
        text.append("Open offer: ").append(kind).append(" by ").append(by).append("\n");
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
