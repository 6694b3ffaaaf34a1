// Playing and watching: one loop that takes server messages and typed lines in turn, hands them
// to a PlayState, and carries out what it decides: send, redraw, tell, save a token, reconnect.
#include <algorithm>
#include <chrono>
#include <thread>

#include "client/cli/game_view.hpp"
#include "client/cli/line_input.hpp"
#include "client/cli/play_state.hpp"
#include "client/cli/session.hpp"
#include "client/cli/terminal.hpp"
#include "client/cli/token_store.hpp"
#include "client/cli/ws_client.hpp"
#include "common/protocol/codec.hpp"

namespace arbiter::client {

std::atomic<bool> g_interrupted{false};

namespace {

using Clock = SteadyClock;
constexpr auto kPoll = std::chrono::milliseconds(50);
constexpr auto kConnectTimeout = std::chrono::seconds(5);

class GameSession {
  public:
    explicit GameSession(const CliOptions& options)
        : options_(options),
          terminal_(Terminal::detect(options)),
          state_(options, terminal_.interactive(), Clock::now()) {}

    int run() {
        const int code = play();
        terminal_.end();
        return code;
    }

  private:
    int play() {
        if (auto store = TokenStore::from_environment()) {
            store_.emplace(*store);
        }
        if (!start_connection(true)) {
            return kExitFailed;
        }
        input_.emplace();
        terminal_.prompt_for_input(true);
        while (!g_interrupted) {
            Received received = socket_.next_message(kPoll);
            if (received.status == ReceiveStatus::message) {
                if (auto code = on_message(received.text)) {
                    socket_.close();
                    return *code;
                }
            } else if (received.status == ReceiveStatus::closed) {
                terminal_.note("connection closed: " + received.text);
                (void)act(state_.on_closed(received.close_code));
                if (!reconnect()) {
                    return kExitFailed;
                }
            }
            if (auto code = take_input()) {
                socket_.close();
                return *code;
            }
            if (socket_.is_open()) {
                (void)act(state_.next_move(Clock::now()));
                if (auto again = state_.ask_again(Clock::now())) {
                    (void)socket_.send(*again);
                }
            }
            tick();
        }
        socket_.close();
        terminal_.note(state_.leaving_note());
        return kExitInterrupted;
    }

    // Connects and sends the opening requests: the command's on the first connection, resume or
    // watch with `since` after a reconnect.
    bool start_connection(bool first) {
        auto connected = socket_.connect(options_.server, kConnectTimeout);
        if (!connected) {
            terminal_.note("cannot connect to " + options_.server + ": " + connected.error());
            return false;
        }
        if (state_.needs_token(first) && store_) {
            // Both seats of a game may be stored (played from one folder): --seat picks one.
            auto stored = choose_seat(store_->seats(options_.server, state_.game()), options_.seat,
                                      state_.game());
            if (!stored) {
                terminal_.note(stored.error() + " (stored ones are in " + store_->path() + ")");
                return false;
            }
            state_.use_token(stored->token);
        }
        auto requests = state_.open(first);
        if (!requests) {
            terminal_.note(requests.error() + " (stored ones are in " +
                           (store_ ? store_->path() : std::string("the config directory")) + ")");
            return false;
        }
        for (std::string& request : *requests) {
            (void)socket_.send(std::move(request));
        }
        return true;
    }

    // Tries again with growing pauses. The window of time it tries for is not renewed by a
    // connection that closes again before the session has settled (ReconnectWindow).
    bool reconnect() {
        if (state_.game().empty()) {
            return false;  // nothing to resume: the game was never created
        }
        reconnect_window_.lost(Clock::now());
        while (!g_interrupted) {
            const auto pause = reconnect_window_.next_pause(Clock::now());
            if (!pause) {
                break;
            }
            std::this_thread::sleep_for(*pause);
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
        const auto message = protocol::decode_server(
            text, [this](std::string_view game) { return state_.variant_of(game); });
        if (!message) {
            terminal_.note("the server sent a message this client cannot read (" +
                           message.error().message + "): " + text);
            return std::nullopt;
        }
        auto code = act(state_.on_message(*message, Clock::now()), text);
        if (state_.settled()) {
            reconnect_window_.settled();
        }
        return code;
    }

    std::optional<int> take_input() {
        while (auto line = input_->next()) {
            terminal_.typed();
            if (!*line) {
                terminal_.note(line->error());
                continue;
            }
            if (auto code = act(state_.on_line(**line))) {
                return code;
            }
        }
        if (!input_ended_ && input_->finished()) {
            input_ended_ = true;
            return act(state_.on_end_of_input());
        }
        return std::nullopt;
    }

    // Carries out a reaction to `received` (a server message shown as a JSON line); returns its
    // exit code. The seat's token is stored before the message that gave it is shown: a script
    // that reads `created` or `joined` from --json finds the token already in the file.
    std::optional<int> act(const Reaction& reaction, std::string_view received = {}) {
        if (reaction.seat && store_) {
            auto saved = store_->save(options_.server, state_.game(), *reaction.seat);
            if (!saved) {
                terminal_.note("warning: " + saved.error());
            }
        }
        if (!received.empty()) {
            terminal_.json_line(received);
        }
        if (reaction.redraw) {
            draw(false);
        }
        for (const std::string& note : reaction.notes) {
            terminal_.note(note);
        }
        for (const std::string& request : reaction.requests) {
            (void)socket_.send(request);
        }
        return reaction.exit_code;
    }

    // `again`: the same screen with fresh clocks, the notes written after it kept.
    void draw(bool again) {
        const GameView& view = state_.view();
        if (!view.have_state) {
            return;
        }
        const auto elapsed = state_.elapsed_ms(Clock::now());
        std::string screen = render_screen(view, terminal_.style(), state_.flip(), elapsed);
        if (const auto queued = state_.queued(); !queued.empty()) {
            screen += "Queued:";
            for (const std::string& move : queued) {
                screen += " " + move;
            }
            screen += "\n";
        }
        const std::string clocks = render_clocks(view, state_.flip(), elapsed);
        const auto at = screen.find(clocks);
        const auto row =
            at == std::string::npos ? 0 : std::count(screen.begin(), screen.begin() + at, '\n') + 1;
        if (again) {
            terminal_.redraw(screen, static_cast<int>(row));
        } else {
            terminal_.screen(screen, static_cast<int>(row));
        }
    }

    void tick() {
        const GameView& view = state_.view();
        if (!terminal_.interactive() || !view.clock || !view.clock->running ||
            view.status != "playing" || Clock::now() - last_tick_ < std::chrono::seconds(1)) {
            return;
        }
        last_tick_ = Clock::now();
        // Once the screen has scrolled its clock lines are not where they were drawn: the whole
        // screen is drawn again rather than clocks written over other lines.
        if (!terminal_.update_clocks(
                render_clocks(view, state_.flip(), state_.elapsed_ms(Clock::now())))) {
            draw(true);
        }
    }

    const CliOptions& options_;
    Terminal terminal_;
    PlayState state_;
    WsClient socket_;
    std::optional<LineInput> input_;
    bool input_ended_ = false;
    std::optional<TokenStore> store_;
    ReconnectWindow reconnect_window_;
    Clock::time_point last_tick_ = Clock::now();
};

}  // namespace

int run_game(const CliOptions& options) {
    return GameSession(options).run();
}

}  // namespace arbiter::client
