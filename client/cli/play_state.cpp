// The game session's decisions. Moves typed before the player's turn wait in order, so a script
// can pipe in all of one side's moves at once; they belong to the game they were typed in.
#include "client/cli/play_state.hpp"

#include <algorithm>
#include <variant>

#include "client/cli/chat.hpp"
#include "client/cli/requests.hpp"
#include "client/cli/text_rules.hpp"
#include "common/core/overloaded.hpp"

namespace arbiter::client {

namespace {

namespace protocol = arbiter::protocol;

// A busy server (too many reads of stored games waiting) refuses for a moment, not for good.
constexpr auto kAskAgainAfter = std::chrono::seconds(1);
// protocol.md, close codes: 1009 is a frame over the server's size limit.
constexpr int kCloseTooBig = 1009;

// Request ids (the server echoes them in its errors). A move's is "m" and its ply.
const char* const kOpenId = "open";  // join, resume or watch
const char* const kCreateId = "create";
const char* const kChatId = "chat";
// A state brings up to 100 chat messages back; a screen shows the last few of them.
constexpr std::size_t kChatHistoryShown = 10;

const char* const kPlayerHelp =
    "commands: MOVE (e2e4, Nf3, h3e3, C2.5, 22x15) | resign | abort | draw [offer|accept|decline]\n"
    "  takeback [offer|accept|decline] | rematch [offer|accept|decline] | claim win|draw\n"
    "  chat TEXT (to your opponent) | mute | unmute (your opponent's chat)\n"
    "  flip | help | quit (the seat stays yours: arbiter-cli resume GAME)\n";
const char* const kSpectatorHelp =
    "commands: chat TEXT (to the other spectators) | flip | help | quit\n";

bool is_one_of(const std::string& value, std::initializer_list<std::string_view> allowed) {
    return std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

}  // namespace

PlayState::PlayState(const CliOptions& options, bool interactive, SteadyClock::time_point now)
    : options_(options), interactive_(interactive), flip_(options.flip), clocks_set_at_(now) {
    if (options.command == Command::create) {
        variant_ = rules::parse_variant(options.variant);
    }
}

std::optional<rules::Variant> PlayState::variant_of(std::string_view /*game*/) const {
    return variant_;
}

std::string PlayState::game() const {
    return game_.empty() ? options_.game : game_;
}

bool PlayState::spectator() const {
    return options_.command == Command::watch;
}

bool PlayState::over() const {
    return view_.status == "ended" || view_.status == "aborted";
}

bool PlayState::needs_token(bool first) const {
    const bool opens_with_token =
        !spectator() &&
        !(first && (options_.command == Command::create || options_.command == Command::join));
    return opens_with_token && token_.empty() && options_.token.empty();
}

void PlayState::use_token(std::string token) {
    token_ = std::move(token);
}

Expected<std::vector<std::string>, std::string> PlayState::open(bool first) {
    std::vector<std::string> sent;
    if (!options_.name.empty() || !options_.session_token.empty()) {
        sent.push_back(requests::hello(
            options_.name.empty() ? "arbiter-cli" : options_.name,
            options_.session_token.empty() ? std::nullopt : std::optional(options_.session_token)));
    }
    const std::optional<std::uint64_t> since =
        view_.have_state ? std::optional(view_.seq) : std::nullopt;
    opening_.clear();
    ask_again_at_.reset();
    closing_too_large_ = false;
    if (first && options_.command == Command::create) {
        sent.push_back(requests::create(options_, kCreateId));
        return sent;
    }
    if (first && options_.command == Command::join) {
        opening_ = requests::join(options_.game, kOpenId);
    } else if (spectator()) {
        opening_ = requests::watch(game(), since, kOpenId);
    } else {
        if (token_.empty()) {
            token_ = options_.token;
        }
        if (token_.empty()) {
            return unexpected("no token for game " + game() + ": pass --token");
        }
        opening_ = requests::resume(game(), token_, since, kOpenId);
    }
    sent.push_back(opening_);
    if (move_in_flight_ && !first) {
        // protocol.md: re-sending the move of that ply is answered like the first time and
        // never applied twice, so a move whose answer was lost is simply sent again.
        sent.push_back(requests::move(game(), last_move_, *move_in_flight_,
                                      "m" + std::to_string(*move_in_flight_), last_think_ms_));
    }
    return sent;
}

Reaction PlayState::on_message(const protocol::ServerMessage& message,
                               SteadyClock::time_point now) {
    return std::visit(
        Overloaded{
            [&](const protocol::SeatGranted& seat) { return on_seat(message, seat); },
            [&](const protocol::ErrorMessage& error) { return on_error(message, error, now); },
            [&](const protocol::SeatLost& lost) { return on_seat_lost(lost); },
            [&](const protocol::SpectatorCount&) { return on_game_message(message, now); },
            [&](const protocol::State& state) {
                if (state.game != game()) {
                    return Reaction{};
                }
                Reaction reaction = on_game_message(message, now);
                show_chat_history(state, reaction);
                return reaction;
            },
            [&](const protocol::ChatEvent& chat) { return on_chat(message, chat); },
            [&](const protocol::ChatMuted& muted) { return on_chat(muted); },
            [&](const protocol::GameEvent auto& event) {
                return event.game == game() ? on_game_message(message, now) : Reaction{};
            },
            [&](const protocol::AnalysisProgress& progress) {
                // Only a connection that replayed the game hears of its analysis.
                Reaction reaction;
                if (progress.game == game()) {
                    reaction.notes.push_back(describe(view_, message));
                }
                return reaction;
            },
            [](const OneOf<protocol::Welcome, protocol::LobbyList, protocol::GamesList,
                           protocol::Record, protocol::Pong> auto&) { return Reaction{}; },
        },
        message.body);
}

Reaction PlayState::on_game_message(const protocol::ServerMessage& message,
                                    SteadyClock::time_point now) {
    Reaction reaction;
    if (const auto* state = std::get_if<protocol::State>(&message.body)) {
        variant_ = state->variant;
    }
    const bool first_state =
        !view_.have_state && std::holds_alternative<protocol::State>(message.body);
    const Applied applied = apply_message(view_, message, elapsed_ms(now));
    if (applied == Applied::gap) {
        resync(reaction);
        return reaction;
    }
    if (applied == Applied::changed || applied == Applied::duplicate) {
        opening_.clear();  // the game is followed again: the opening request was answered
    }
    if (applied != Applied::changed) {
        return reaction;
    }
    // Only state, moved and takeback carry the position and the clocks.
    const auto* moved = std::get_if<protocol::Moved>(&message.body);
    const bool carries_clocks = moved != nullptr ||
                                std::holds_alternative<protocol::TakenBack>(message.body) ||
                                std::holds_alternative<protocol::State>(message.body);
    const bool ended = std::holds_alternative<protocol::Ended>(message.body);
    if (carries_clocks) {
        move_in_flight_.reset();
        // A move after which the side to move has no legal move (checkmate, stalemate, no
        // moves) ended the game: its `ended` follows, and a move typed ahead waits for it
        // rather than go out to be refused as game_over.
        no_legal_move_ = moved != nullptr && view_.legal.empty();
        // The running one counts down from there.
        clocks_set_at_ = now;
        // The player's turn starts now unless it had started already (a resume's state for
        // it); a turn that ends is forgotten, so that a takeback back to its ply starts anew.
        if (spectator() || view_.status != "playing" || view_.turn != view_.you) {
            turn_given_.reset();
        } else if (!turn_given_ || turn_given_->ply != view_.ply) {
            turn_given_ = TurnGiven{view_.ply, now};
        }
    }
    reaction.redraw = true;
    if (first_state && options_.command == Command::resume && !spectator() &&
        game() == options_.game) {
        // Coming back, perhaps to one of two seats held from this folder: which one it is.
        reaction.notes.push_back("Game " + game() + ": you play " + view_.you + " (resumed)");
    }
    if (auto line = describe(view_, message); !line.empty() && !ended) {
        reaction.notes.push_back(line);
    }
    if (over()) {
        drop_pending(reaction, "the game is over");
        if (!interactive_) {
            reaction.exit_code = kExitDone;
        } else if (ended || std::holds_alternative<protocol::State>(message.body)) {
            reaction.notes.push_back(end_hint());
        }
    }
    return reaction;
}

Reaction PlayState::on_seat(const protocol::ServerMessage& message,
                            const protocol::SeatGranted& seat) {
    Reaction reaction;
    const std::string& next = seat.game;
    if (!game_.empty() && next != game_ && view_.rematch != next) {
        return reaction;
    }
    if (!game().empty() && next != game()) {
        // A rematch. Nothing typed for the old game is played in the new one.
        drop_pending(reaction, "a new game starts");
        move_in_flight_.reset();
        turn_given_.reset();
    }
    game_ = next;
    token_ = seat.token;
    variant_ = seat.variant;
    if (view_.game != game_) {
        view_ = GameView{};  // follow the new game from its first state
    }
    reaction.seat = StoredSeat{token_, std::string(rules::seat_name(seat.variant, seat.seat))};
    reaction.notes.push_back(describe(view_, message));
    return reaction;
}

// protocol.md, seat_lost: a `resume` with this seat's token on another connection took the seat.
// The session ends rather than follow a game it can no longer play: resuming by itself (say, on a
// reconnect) would take the seat back and displace the other connection in turn. A session holds
// one seat and does not also watch its game, so it is left with nothing of the game.
Reaction PlayState::on_seat_lost(const protocol::SeatLost& lost) {
    Reaction reaction;
    if (spectator() || lost.game != game()) {
        return reaction;
    }
    drop_pending(reaction, "the seat was taken over");
    move_in_flight_.reset();
    reaction.notes.push_back(
        "This seat was taken over by another connection (resumed elsewhere). To take it back "
        "here: arbiter-cli resume " +
        game());
    reaction.exit_code = kExitSeatTakenOver;
    return reaction;
}

Reaction PlayState::on_error(const protocol::ServerMessage& message,
                             const protocol::ErrorMessage& error, SteadyClock::time_point now) {
    Reaction reaction;
    reaction.notes.push_back(describe(view_, message));
    const protocol::ErrorCode code = error.code;
    const std::string id = message.id.value_or("");
    // The server echoes the id of the request an error is about; an error without one is taken
    // for the opening request only while that waits for its answer.
    const bool opening = !opening_.empty() && (id == kOpenId || id.empty());
    if (opening &&
        (code == protocol::ErrorCode::unavailable || code == protocol::ErrorCode::rate_limited)) {
        // The join, watch or resume was not taken for now; nothing changed, so the same request
        // goes again (a seat is never given up for a busy server).
        reaction.notes.push_back("asking again in a moment");
        ask_again_at_ = now + kAskAgainAfter;
        return reaction;
    }
    if (opening) {
        opening_.clear();  // answered: a later gap asks again
    }
    if (code == protocol::ErrorCode::too_large) {
        drop_too_large(reaction);
        closing_too_large_ = true;
    } else if (id.rfind('m', 0) == 0) {
        move_in_flight_.reset();  // refused: dropped
        // The moves typed after it were meant to follow it: none of them is played instead.
        drop_pending(reaction, "the move was refused");
    }
    // The create, join, watch or resume failed before any state: there is no game to follow.
    if (!view_.have_state && (opening || id == kCreateId || id.empty())) {
        reaction.exit_code = kExitFailed;
    }
    return reaction;
}

Reaction PlayState::on_closed(int close_code) {
    Reaction reaction;
    // The 1009 after a too_large error is that error's close: the move it refused is already
    // dropped, and the next one (if any was sent) was never read.
    if (close_code == kCloseTooBig && !closing_too_large_) {
        drop_too_large(reaction);
    }
    closing_too_large_ = false;
    return reaction;
}

// The server refused a frame as over its size limit (which is a server flag): the move in
// flight, the only request sent again, is not, or every reconnect would end the same way.
void PlayState::drop_too_large(Reaction& reaction) {
    if (move_in_flight_) {
        reaction.notes.push_back("the server refused the move " + last_move_ +
                                 " as too large; it is not sent again");
        move_in_flight_.reset();
    }
}

Reaction PlayState::on_line(std::string_view line) {
    Reaction reaction;
    if (!is_utf8(line)) {
        reaction.notes.push_back("ignored: the line is not valid UTF-8 text");
        return reaction;
    }
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) {
        return reaction;
    }
    const auto last = line.find_last_not_of(" \t\r");
    const std::string text(line.substr(first, last - first + 1));
    if (text == "quit" || text == "exit") {
        reaction.notes.push_back(leaving_note());
        reaction.exit_code = kExitDone;
        return reaction;
    }
    if (command(text, reaction)) {
        return reaction;
    }
    if (auto checked = check_text(text, kMoveRule, "a move"); !checked) {
        reaction.notes.push_back(checked.error() + ": not sent");
    } else if (view_.have_state && over()) {
        reaction.notes.push_back("the game is over (" + text + " not sent): " + end_hint());
    } else {
        const bool waits = !spectator() && (!may_move_now() || !pending_moves_.empty());
        pending_moves_.push_back(text);
        if (waits) {
            reaction.notes.push_back("queued: " + queued_text() + " (sent in turn)");
            reaction.redraw = interactive_ && view_.have_state;  // the screen's queue line
        }
    }
    return reaction;
}

Reaction PlayState::on_end_of_input() {
    Reaction reaction;
    if (interactive_) {
        reaction.notes.push_back(leaving_note());
        reaction.exit_code = kExitDone;
    }
    return reaction;
}

// Runs a typed command; false when the text is not one (so it is a move).
bool PlayState::command(const std::string& text, Reaction& reaction) {
    const auto space = text.find(' ');
    const std::string word = text.substr(0, space);
    const std::string argument = space == std::string::npos ? "" : text.substr(space + 1);
    if (word == "help" || word == "?") {
        reaction.notes.push_back(spectator() ? kSpectatorHelp : kPlayerHelp);
    } else if (word == "flip") {
        flip_ = !flip_;
        reaction.redraw = true;
    } else if (word == "chat") {
        chat(argument, reaction);
    } else if (spectator() && is_one_of(word, {"resign", "abort", "draw", "takeback", "rematch",
                                               "claim", "mute", "unmute"})) {
        reaction.notes.push_back("spectators cannot " + word);
    } else if (word == "mute" || word == "unmute") {
        reaction.requests.push_back(requests::chat_mute(game(), word == "mute", kChatId));
    } else if (word == "resign" || word == "abort") {
        reaction.requests.push_back(requests::game_action(word, game(), word));
    } else if (word == "draw" || word == "takeback" || word == "rematch") {
        const std::string action = offer_action(word, argument);
        if (is_one_of(action, {"offer", "accept", "decline"})) {
            reaction.requests.push_back(requests::offer(word, game(), action, word));
        } else {
            reaction.notes.push_back(word + " takes offer, accept or decline");
        }
    } else if (word == "claim") {
        const std::string kind = argument.empty() ? "win" : argument;
        if (is_one_of(kind, {"win", "draw"})) {
            reaction.requests.push_back(requests::claim(game(), kind, word));
        } else {
            reaction.notes.push_back("claim takes win or draw");
        }
    } else {
        return false;
    }
    return true;
}

// Without an explicit action: accept the opponent's open offer of this kind, else offer.
std::string PlayState::offer_action(const std::string& kind, const std::string& argument) const {
    if (!argument.empty()) {
        return argument;
    }
    for (const auto& [open_kind, by] : view_.offers) {
        if (open_kind == kind && by != view_.you) {
            return "accept";
        }
    }
    return "offer";
}

Reaction PlayState::next_move(SteadyClock::time_point now) {
    Reaction reaction;
    if (pending_moves_.empty() || move_in_flight_ || !view_.have_state || closing_too_large_) {
        return reaction;
    }
    if (spectator()) {
        reaction.notes.push_back("spectators cannot move (" + pending_moves_.front() + " ignored)");
        pending_moves_.pop_front();
        return reaction;
    }
    if (view_.status != "playing" || view_.turn != view_.you || no_legal_move_) {
        return reaction;  // waits for the turn, like a premove
    }
    // The server takes wire notation; display notation is sent as typed for the server to
    // resolve (the client has no rules to translate it).
    last_move_ = pending_moves_.front();
    pending_moves_.pop_front();
    move_in_flight_ = view_.ply;
    last_think_ms_.reset();
    if (turn_given_ && turn_given_->ply == view_.ply) {
        last_think_ms_ = std::max<std::int64_t>(
            0,
            std::chrono::duration_cast<std::chrono::milliseconds>(now - turn_given_->at).count());
    }
    reaction.requests.push_back(requests::move(game(), last_move_, view_.ply,
                                               "m" + std::to_string(view_.ply), last_think_ms_));
    return reaction;
}

void PlayState::drop_pending(Reaction& reaction, const std::string& why) {
    if (pending_moves_.empty()) {
        return;
    }
    reaction.notes.push_back(why + ": queued moves dropped: " + queued_text());
    pending_moves_.clear();
    reaction.redraw = reaction.redraw || (interactive_ && view_.have_state);  // its queue line
}

void PlayState::resync(Reaction& reaction) {
    if (opening_.empty()) {
        opening_ = spectator() ? requests::watch(game(), view_.seq, kOpenId)
                               : requests::resume(game(), token_, view_.seq, kOpenId);
        reaction.requests.push_back(opening_);
    }
}

bool PlayState::may_move_now() const {
    return view_.have_state && view_.status == "playing" && view_.turn == view_.you &&
           !move_in_flight_ && !no_legal_move_;
}

std::string PlayState::queued_text() const {
    std::string text;
    for (const std::string& move : pending_moves_) {
        text += (text.empty() ? "" : " ") + move;
    }
    return text;
}

std::vector<std::string> PlayState::queued() const {
    return {pending_moves_.begin(), pending_moves_.end()};
}

// What may be typed once the game is over: a rematch is for the two players of a game that was
// played; a spectator, or a player of an aborted game, can only leave.
std::string PlayState::end_hint() const {
    if (spectator()) {
        return "the game is over: type quit to leave";
    }
    if (view_.status == "aborted") {
        return "the game was aborted: type quit to leave";
    }
    return "type rematch to play again, or quit";
}

std::string PlayState::leaving_note() const {
    if (game().empty() || (view_.have_state && over())) {
        return "";
    }
    const std::string server =
        options_.server == CliOptions{}.server ? "" : " --server " + options_.server;
    if (spectator()) {
        return "To watch again: arbiter-cli" + server + " watch " + game();
    }
    const std::string seat = view_.have_state && view_.you != "spectator" ? view_.you : "";
    return "Your seat stays yours. To come back: arbiter-cli" + server + " resume " + game() +
           (seat.empty() ? "" : " --seat " + seat);
}

void PlayState::chat(const std::string& argument, Reaction& reaction) const {
    auto text = checked_chat_text(argument);
    if (!text) {
        reaction.notes.push_back(text.error());
        return;
    }
    if (game().empty()) {
        reaction.notes.push_back("no game yet: not sent");
        return;
    }
    // protocol.md, Chat: the seats write to the players' room, watchers to the spectators'.
    const auto room = spectator() ? protocol::ChatRoom::spectators : protocol::ChatRoom::players;
    reaction.requests.push_back(requests::chat(game(), room, *text, kChatId));
}

Reaction PlayState::on_chat(const protocol::ChatMuted& muted) const {
    Reaction reaction;
    if (muted.game == game()) {
        reaction.notes.push_back(muted.mute ? "your opponent's chat is muted (unmute: unmute)"
                                            : "your opponent's chat is shown again");
    }
    return reaction;
}

Reaction PlayState::on_chat(const protocol::ServerMessage& message,
                            const protocol::ChatEvent& event) {
    Reaction reaction;
    if (event.game != game()) {
        return reaction;
    }
    // A chat message is a game event: it takes its place in the seq like a move.
    const Applied applied = apply_message(view_, message);
    if (applied == Applied::gap) {
        resync(reaction);
    } else if (applied == Applied::changed || applied == Applied::duplicate) {
        opening_.clear();
    }
    if (applied == Applied::changed && event.text && event.seq > chat_shown_) {
        chat_shown_ = event.seq;
        reaction.notes.push_back(chat_line_text(event));
    }
    return reaction;
}

void PlayState::show_chat_history(const protocol::State& state, Reaction& reaction) {
    if (state.game != game()) {
        return;
    }
    // state.chat holds only what this connection may read, oldest first.
    std::vector<const protocol::ChatLine*> unseen;
    for (const protocol::ChatLine& line : state.chat) {
        if (line.seq > chat_shown_) {
            unseen.push_back(&line);
        }
    }
    const std::size_t skip =
        unseen.size() > kChatHistoryShown ? unseen.size() - kChatHistoryShown : 0;
    for (std::size_t index = skip; index < unseen.size(); ++index) {
        reaction.notes.push_back(chat_line_text(*unseen[index]));
    }
    if (!unseen.empty()) {
        chat_shown_ = unseen.back()->seq;
    }
}

std::optional<std::string> PlayState::ask_again(SteadyClock::time_point now) {
    if (!ask_again_at_ || now < *ask_again_at_ || opening_.empty()) {
        return std::nullopt;
    }
    ask_again_at_.reset();
    return opening_;
}

std::int64_t PlayState::elapsed_ms(SteadyClock::time_point now) const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(now - clocks_set_at_).count();
}

bool PlayState::settled() const {
    return view_.have_state && opening_.empty() && !move_in_flight_;
}

void ReconnectWindow::lost(SteadyClock::time_point now) {
    if (!give_up_at_) {
        give_up_at_ = now + kReconnectFor;
    }
}

void ReconnectWindow::settled() {
    give_up_at_.reset();
    pause_ = std::chrono::milliseconds(250);
}

std::optional<std::chrono::milliseconds> ReconnectWindow::next_pause(SteadyClock::time_point now) {
    if (!give_up_at_ || now >= *give_up_at_) {
        return std::nullopt;
    }
    const auto pause = pause_;
    pause_ = std::min(pause_ * 2, std::chrono::milliseconds(4000));
    return pause;
}

}  // namespace arbiter::client
