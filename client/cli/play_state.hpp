#pragma once
/// \file
/// The decisions of create, join, resume and watch, apart from the socket, the terminal and the
/// waiting, so that tests can drive them: which requests to send for each server message and
/// typed line, the moves typed ahead of the turn, the move awaiting its answer, when the running
/// clock was last set, and how long to keep reconnecting. Time is passed in.

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/cli/game_view.hpp"
#include "client/cli/options.hpp"
#include "client/cli/token_store.hpp"
#include "common/core/expected.hpp"
#include "common/protocol/messages.hpp"

namespace arbiter::client {

using SteadyClock = std::chrono::steady_clock;

/// What to do after a server message or a typed line, in this order: keep the seat, redraw,
/// tell the notes, send the requests, and end with `exit_code` when it is set.
struct Reaction {
    std::optional<StoredSeat> seat;  ///< a seat was taken in PlayState::game(): keep its token
    bool redraw = false;
    std::vector<std::string> notes;
    std::vector<std::string> requests;
    std::optional<int> exit_code;
};

/// One player's or spectator's session with one game (and the rematches that follow it).
class PlayState {
  public:
    /// `interactive`: a person at a terminal, who stays after the end of a game (a script's
    /// session ends with the game).
    PlayState(const CliOptions& options, bool interactive, SteadyClock::time_point now);

    const GameView& view() const { return view_; }
    /// The game followed: the command line's, or the one a seat was taken in.
    std::string game() const;
    bool flip() const { return flip_; }

    /// True when open() needs a token from the token store (given with use_token()).
    bool needs_token(bool first) const;
    void use_token(std::string token);
    /// The requests that open the game on a new connection: hello, then on the first connection
    /// the command's create or join, else resume (and the move awaiting its answer, again) or
    /// watch, with `since` once there is a state. Fails when there is no token to resume with.
    Expected<std::vector<std::string>, std::string> open(bool first);

    /// The variant of `game` as far as this session knows it (from the command line's create,
    /// or a created, joined or state), for decoding the server's messages: a session follows one
    /// game and the rematches that follow it, all of one variant.
    std::optional<rules::Variant> variant_of(std::string_view game) const;

    /// A server message, received at `now`.
    Reaction on_message(const protocol::ServerMessage& message, SteadyClock::time_point now);
    /// The connection closed; `close_code` is the server's close code (0: none).
    Reaction on_closed(int close_code);
    /// The moves typed ahead of the turn, oldest first (the screen shows them).
    std::vector<std::string> queued() const;
    /// What to tell a user leaving a game that goes on (quit, Ctrl-C, Ctrl-D): the command that
    /// comes back to it, with the seat; empty once the game is over.
    std::string leaving_note() const;
    /// A line typed (or piped) in: a command, or a move to send when it is the player's turn.
    Reaction on_line(std::string_view line);
    /// Standard input ended. At a terminal that is Ctrl-D, which leaves like `quit` (nothing typed
    /// afterwards could be read); a script's session follows the game to its end.
    Reaction on_end_of_input();
    /// The first move typed ahead, once it may go (the player's turn, and no move in flight), sent
    /// at `now` with the think time from the arrival of the turn (`move.think_ms`).
    Reaction next_move(SteadyClock::time_point now);
    /// The join, resume or watch that the server refused as busy, once it is time to ask again.
    std::optional<std::string> ask_again(SteadyClock::time_point now);

    /// How long the running clock has counted down since the server last sent the clocks.
    std::int64_t elapsed_ms(SteadyClock::time_point now) const;
    /// True once the game is followed again: a state, the last opening request answered, and no
    /// move waiting for its answer. Until then a lost connection is part of the same trouble.
    bool settled() const;

  private:
    Reaction on_seat(const protocol::ServerMessage& message, const protocol::SeatGranted& seat);
    Reaction on_seat_lost(const protocol::SeatLost& lost);
    Reaction on_error(const protocol::ServerMessage& message, const protocol::ErrorMessage& error,
                      SteadyClock::time_point now);
    /// A state, a game event or a spectator count of the game followed.
    Reaction on_game_message(const protocol::ServerMessage& message, SteadyClock::time_point now);
    bool command(const std::string& text, Reaction& reaction);
    std::string offer_action(const std::string& kind, const std::string& argument) const;
    bool spectator() const;
    bool over() const;
    void drop_pending(Reaction& reaction, const std::string& why);
    /// Events were missed: resume or watch with since, unless an opening request is on its way.
    void resync(Reaction& reaction);
    bool may_move_now() const;
    std::string queued_text() const;
    std::string end_hint() const;
    void chat(const std::string& argument, Reaction& reaction) const;
    /// A `chat` event of the game followed: a numbered game event, shown when readable.
    Reaction on_chat(const protocol::ServerMessage& message, const protocol::ChatEvent& event);
    /// The answer to `mute` or `unmute`.
    Reaction on_chat(const protocol::ChatMuted& muted) const;
    /// The chat history of a `state`: the messages not shown yet (the last few), after its notes.
    void show_chat_history(const protocol::State& state, Reaction& reaction);
    void drop_too_large(Reaction& reaction);

    CliOptions options_;
    bool interactive_ = false;
    GameView view_;
    std::optional<rules::Variant> variant_;
    std::string game_;
    std::string token_;
    bool flip_ = false;
    std::deque<std::string> pending_moves_;
    std::optional<std::uint64_t> move_in_flight_;  ///< the ply of a move sent, not yet answered
    /// The server answered `too_large` on this connection and closes it with 1009 next: nothing
    /// more is sent on it, and the close is that same refusal, not another one.
    bool closing_too_large_ = false;
    std::string last_move_;
    /// The think time sent with last_move_: a resend reports it again (the player took that long;
    /// the time the connection was down is the network's).
    std::optional<std::int64_t> last_think_ms_;
    /// The ply of the player's turn and when the state or move that gave it arrived; a state for
    /// the same turn (a resume) keeps the first arrival.
    struct TurnGiven {
        std::uint64_t ply = 0;
        SteadyClock::time_point at;
    };
    std::optional<TurnGiven> turn_given_;
    /// The last move left the side to move without a legal move: the game is ending.
    bool no_legal_move_ = false;
    /// The join, watch or resume awaiting its answer (sent again when refused as busy); empty
    /// once answered. While set, a gap asks nothing more: the answer brings the game up to date.
    std::string opening_;
    std::optional<SteadyClock::time_point> ask_again_at_;
    SteadyClock::time_point clocks_set_at_;
    /// The seq of the last chat message shown: a state's history after a reconnect repeats none.
    std::uint64_t chat_shown_ = 0;
};

/// How long a session keeps reconnecting: kReconnectFor from the first lost connection, until the
/// session is settled again. A request that breaks every new connection therefore cannot open a
/// new window on each reconnect and be sent forever. The pauses double up to 4 s.
class ReconnectWindow {
  public:
    static constexpr std::chrono::seconds kReconnectFor{60};

    /// A connection was lost at `now`: the window opens unless it is open.
    void lost(SteadyClock::time_point now);
    /// The session works again: the next loss opens a new window.
    void settled();
    /// The pause before the next attempt, or nothing once the window has passed.
    std::optional<std::chrono::milliseconds> next_pause(SteadyClock::time_point now);

  private:
    std::optional<SteadyClock::time_point> give_up_at_;
    std::chrono::milliseconds pause_{250};
};

}  // namespace arbiter::client
