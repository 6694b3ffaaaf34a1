// Playing and watching: one loop that takes server messages and typed lines in turn, keeps a
// GameView up to date, and redraws. Moves typed before the player's turn wait in order, so a
// script can pipe in all of one side's moves at once.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "client/cli/game_view.hpp"
#include "client/cli/line_input.hpp"
#include "client/cli/requests.hpp"
#include "client/cli/session.hpp"
#include "client/cli/terminal.hpp"
#include "client/cli/token_store.hpp"
#include "client/cli/ws_client.hpp"

namespace arbiter::client {

std::atomic<bool> g_interrupted{false};

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
constexpr auto kPoll = std::chrono::milliseconds(50);
constexpr auto kConnectTimeout = std::chrono::seconds(5);
constexpr auto kReconnectFor = std::chrono::seconds(60);
// A busy server (too many reads of stored games waiting) refuses for a moment, not for good.
constexpr auto kAskAgainAfter = std::chrono::seconds(1);

const char* const kCommandHelp =
    "commands: MOVE (e2e4, Nf3, h3e3, C2.5, 22x15) | resign | abort | draw [offer|accept|decline]\n"
    "  takeback [offer|accept|decline] | rematch [offer|accept|decline] | claim win|draw\n"
    "  flip | help | quit (the seat stays yours: arbiter-cli resume GAME)\n";

class GameSession {
  public:
    explicit GameSession(const CliOptions& options)
        : options_(options), terminal_(Terminal::detect(options)), flip_(options.flip) {}

    int run() {
        if (auto store = TokenStore::from_environment()) {
            store_.emplace(*store);
        }
        if (!start_connection(true)) {
            return 1;
        }
        input_.emplace();
        while (!g_interrupted) {
            Received received = socket_.next_message(kPoll);
            if (received.status == ReceiveStatus::message) {
                if (auto code = on_message(received.text)) {
                    socket_.close();
                    return *code;
                }
            } else if (received.status == ReceiveStatus::closed) {
                terminal_.note("connection closed: " + received.text);
                if (!reconnect()) {
                    return 1;
                }
            }
            if (auto code = take_input()) {
                socket_.close();
                return *code;
            }
            send_queued_move();
            ask_again_if_due();
            tick();
        }
        socket_.close();
        return 130;
    }

  private:
    bool spectator() const { return options_.command == Command::watch; }

    // Connects and sends the opening request: the command's on the first connection, resume or
    // watch with `since` after a reconnect.
    bool start_connection(bool first) {
        auto connected = socket_.connect(options_.server, kConnectTimeout);
        if (!connected) {
            terminal_.note("cannot connect to " + options_.server + ": " + connected.error());
            return false;
        }
        if (!options_.name.empty()) {
            (void)socket_.send(requests::hello(options_.name));
        }
        const std::optional<std::uint64_t> since =
            view_.have_state ? std::optional(view_.seq) : std::nullopt;
        opening_.clear();
        if (first && options_.command == Command::create) {
            (void)socket_.send(requests::create(options_));
        } else if (first && options_.command == Command::join) {
            opening_ = requests::join(options_.game);
            (void)socket_.send(opening_);
        } else if (spectator()) {
            opening_ = requests::watch(game(), since);
            (void)socket_.send(opening_);
        } else {
            if (token_.empty()) {
                token_ = options_.token;
            }
            if (token_.empty() && store_) {
                if (auto stored = store_->find(options_.server, game())) {
                    token_ = stored->token;
                }
            }
            if (token_.empty()) {
                terminal_.note(
                    "no token for game " + game() + ": pass --token (stored ones are in " +
                    (store_ ? store_->path() : std::string("the config directory")) + ")");
                return false;
            }
            opening_ = requests::resume(game(), token_, since);
            (void)socket_.send(opening_);
            if (move_in_flight_ && !first) {
                // protocol.md: re-sending the move of that ply is answered like the first time
                // and never applied twice, so a move whose answer was lost is simply sent again.
                (void)socket_.send(requests::move(game(), last_move_, *move_in_flight_,
                                                  "m" + std::to_string(*move_in_flight_)));
            }
        }
        resyncing_ = false;
        return true;
    }

    std::string game() const { return game_.empty() ? options_.game : game_; }

    bool reconnect() {
        if (game().empty()) {
            return false;  // nothing to resume: the game was never created
        }
        const auto give_up = Clock::now() + kReconnectFor;
        auto pause = std::chrono::milliseconds(250);
        while (!g_interrupted && Clock::now() < give_up) {
            std::this_thread::sleep_for(pause);
            pause = std::min(pause * 2, std::chrono::milliseconds(4000));
            if (start_connection(false)) {
                terminal_.note("reconnected");
                return true;
            }
        }
        terminal_.note("gave up reconnecting");
        return false;
    }

    // Returns an exit code when the session is over.
    std::optional<int> on_message(const std::string& text) {
        const json message = json::parse(text, nullptr, false);
        if (message.is_discarded() || !message.is_object()) {
            terminal_.note("the server sent something that is not JSON: " + text);
            return std::nullopt;
        }
        terminal_.json_line(message);
        const std::string type = text_field(message, "type");
        if (type == "created" || type == "joined") {
            return on_seat(message);
        }
        if (type == "error") {
            terminal_.note(describe(view_, message));
            const std::string code = text_field(message, "code");
            const std::string id = text_field(message, "id");
            if (id.empty() && !opening_.empty() &&
                (code == "unavailable" || code == "rate_limited")) {
                // The join, watch or resume was not taken for now; nothing changed, so the
                // same request goes again (a seat is never given up for a busy server).
                terminal_.note("asking again in a moment");
                ask_again_at_ = Clock::now() + kAskAgainAfter;
                return std::nullopt;
            }
            if (id.rfind("m", 0) == 0) {
                move_in_flight_.reset();
            }
            // The opening request failed: there is no game to follow.
            return view_.have_state ? std::nullopt : std::optional(1);
        }
        if (text_field(message, "game") != game() && type != "spectators") {
            return std::nullopt;
        }
        const Applied applied = apply_message(view_, message);
        if (applied == Applied::gap) {
            if (resyncing_) {
                return std::nullopt;  // one request catches up; its answer is on its way
            }
            resyncing_ = true;
            opening_ = spectator() ? requests::watch(game(), view_.seq)
                                   : requests::resume(game(), token_, view_.seq);
            (void)socket_.send(opening_);
            return std::nullopt;
        }
        if (applied != Applied::changed) {
            return std::nullopt;
        }
        resyncing_ = false;
        if (type == "moved" || type == "takeback" || type == "state") {
            move_in_flight_.reset();
        }
        last_update_ = Clock::now();
        draw();
        if (auto line = describe(view_, message); !line.empty() && type != "ended") {
            terminal_.note(line);
        }
        const bool over = view_.status == "ended" || view_.status == "aborted";
        if (over && !terminal_.interactive()) {
            return 0;
        }
        if (over && (type == "ended" || type == "state")) {
            terminal_.note("type rematch to play again, or quit");
        }
        return std::nullopt;
    }

    std::optional<int> on_seat(const json& message) {
        const std::string next = text_field(message, "game");
        if (!game_.empty() && next != game_ && view_.rematch != next) {
            return std::nullopt;
        }
        game_ = next;
        token_ = text_field(message, "token");
        if (view_.game != game_) {
            view_ = GameView{};  // a rematch: follow the new game from its first state
        }
        if (store_) {
            auto saved =
                store_->save(options_.server, game_, {token_, text_field(message, "seat")});
            if (!saved) {
                terminal_.note("warning: " + saved.error());
            }
        }
        terminal_.note(describe(view_, message));
        return std::nullopt;
    }

    void draw() {
        if (!view_.have_state) {
            return;
        }
        const std::string screen = render_screen(view_, terminal_.style(), flip_, 0);
        const std::string clocks = render_clocks(view_, flip_, 0);
        const auto at = screen.find(clocks);
        const auto row =
            at == std::string::npos ? 0 : std::count(screen.begin(), screen.begin() + at, '\n') + 1;
        terminal_.screen(screen, static_cast<int>(row));
    }

    void ask_again_if_due() {
        if (ask_again_at_ && Clock::now() >= *ask_again_at_ && socket_.is_open()) {
            ask_again_at_.reset();
            (void)socket_.send(opening_);
        }
    }

    void tick() {
        if (!terminal_.interactive() || !view_.clock || !view_.clock->running ||
            view_.status != "playing" || Clock::now() - last_tick_ < std::chrono::seconds(1)) {
            return;
        }
        last_tick_ = Clock::now();
        const auto elapsed =
            std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - last_update_)
                .count();
        terminal_.update_clocks(render_clocks(view_, flip_, elapsed));
    }

    std::optional<int> take_input() {
        while (auto line = input_->next()) {
            const auto first = line->find_first_not_of(" \t\r");
            if (first == std::string::npos) {
                continue;
            }
            const auto last = line->find_last_not_of(" \t\r");
            const std::string text = line->substr(first, last - first + 1);
            terminal_.typed();
            if (text == "quit" || text == "exit") {
                return 0;
            }
            if (!command(text)) {
                pending_moves_.push_back(text);
            }
        }
        return std::nullopt;
    }

    // Runs a typed command; false when the text is not one (so it is a move).
    bool command(const std::string& text) {
        const auto space = text.find(' ');
        const std::string word = text.substr(0, space);
        const std::string argument = space == std::string::npos ? "" : text.substr(space + 1);
        if (word == "help" || word == "?") {
            terminal_.note(kCommandHelp);
        } else if (word == "flip") {
            flip_ = !flip_;
            draw();
        } else if (spectator() && (word == "resign" || word == "abort" || word == "draw" ||
                                   word == "takeback" || word == "rematch" || word == "claim")) {
            terminal_.note("spectators cannot " + word);
        } else if (word == "resign" || word == "abort") {
            (void)socket_.send(requests::game_action(word, game()));
        } else if (word == "draw" || word == "takeback" || word == "rematch") {
            (void)socket_.send(requests::offer(word, game(), offer_action(word, argument)));
        } else if (word == "claim") {
            (void)socket_.send(requests::claim(game(), argument.empty() ? "win" : argument));
        } else {
            return false;
        }
        return true;
    }

    // Without an explicit action: accept the opponent's open offer of this kind, else offer.
    std::string offer_action(const std::string& kind, const std::string& argument) const {
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

    void send_queued_move() {
        if (pending_moves_.empty() || move_in_flight_ || !view_.have_state) {
            return;
        }
        if (spectator()) {
            terminal_.note("spectators cannot move (" + pending_moves_.front() + " ignored)");
            pending_moves_.pop_front();
            return;
        }
        if (view_.status != "playing" || view_.turn != view_.you || !socket_.is_open()) {
            return;  // waits for the turn, like a premove
        }
        // The server takes wire notation; display notation is sent as typed for the server to
        // resolve (the client has no rules to translate it).
        const std::string move = pending_moves_.front();
        pending_moves_.pop_front();
        move_in_flight_ = view_.ply;
        last_move_ = move;
        (void)socket_.send(
            requests::move(game(), move, view_.ply, "m" + std::to_string(view_.ply)));
    }

    const CliOptions& options_;
    Terminal terminal_;
    WsClient socket_;
    std::optional<LineInput> input_;
    std::optional<TokenStore> store_;
    GameView view_;
    std::string game_;
    std::string token_;
    bool flip_ = false;
    bool resyncing_ = false;
    std::deque<std::string> pending_moves_;
    std::optional<std::uint64_t> move_in_flight_;  ///< the ply of a move sent, not yet answered
    std::string last_move_;
    /// The join, watch or resume that (re)opened the game here: sent again when refused as busy.
    std::string opening_;
    std::optional<Clock::time_point> ask_again_at_;
    Clock::time_point last_update_ = Clock::now();
    Clock::time_point last_tick_ = Clock::now();
};

}  // namespace

int run_game(const CliOptions& options) {
    return GameSession(options).run();
}

}  // namespace arbiter::client
