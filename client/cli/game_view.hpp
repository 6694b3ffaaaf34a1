#pragma once
/// \file
/// What the client knows of one game, kept up to date from the server's `state` and game events
/// (protocol.md, "Events, seq and since"), and the text shown for it. No I/O here.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "client/cli/render.hpp"
#include "common/protocol/messages.hpp"

namespace arbiter::client {

/// One seat as `state.players` describes it.
struct SeatView {
    bool taken = false;
    std::string name;
    bool connected = false;
    /// What follows the name: " (guest)" for a guest, " 1512" or " 1512?" (provisional) in a
    /// rated game, "" otherwise.
    std::string badge;
};

/// The clocks as the server last sent them.
struct ClockView {
    std::map<std::string, std::int64_t> remaining_ms;  ///< by seat
    bool running = false;
};

/// The game as drawn.
struct GameView {
    std::string game;
    std::string variant;
    std::string status;  ///< waiting, playing, ended, aborted
    std::string you;     ///< a seat or "spectator"
    std::uint64_t seq = 0;
    std::map<std::string, SeatView> players;
    std::string initial_position;  ///< where the game started: what was taken is counted from it
    std::string position;
    std::vector<std::string> moves;     ///< wire notation
    std::vector<std::string> notation;  ///< display notation
    std::uint64_t ply = 0;
    std::string turn;
    std::vector<std::string> legal;
    bool check = false;
    std::optional<ClockView> clock;
    std::string result;
    std::string reason;
    std::vector<std::pair<std::string, std::string>> offers;  ///< (kind, by)
    std::string rematch;                                      ///< the next game once agreed
    int spectators = 0;
    bool have_state = false;
};

/// What apply_message() did with a message.
enum class Applied {
    changed,    ///< the view changed: redraw
    duplicate,  ///< an event already seen (seq <= last): ignored
    gap,        ///< events were missed: resume or watch with since = view.seq
    other,      ///< not about this game's state
};

/// The seats of a variant, first mover first: chess/draughts white, black; xiangqi red, black.
std::vector<std::string> seats_of(const std::string& variant);

/// Updates `view` from one server message. `elapsed_ms` is how long the running clock has counted
/// down since the server last sent the clocks: `ended` carries no clock, so the clocks stop at
/// the values shown then (at 0 for the side whose time ran out), not at the last move's.
Applied apply_message(GameView& view, const protocol::ServerMessage& message,
                      std::int64_t elapsed_ms = 0);

/// A line of text for an event or error worth telling ("Black offers a draw", "error
/// (illegal_move): ..."); empty when the redrawn board says it all.
std::string describe(const GameView& view, const protocol::ServerMessage& message);

/// The whole screen: board (from `you`'s side, reversed by `flip`, the king in check marked),
/// both clocks with the opponent's on top (`elapsed_ms` is taken off the running clock), the
/// pieces taken, the move list (its last lines), last move, status line.
std::string render_screen(const GameView& view, const RenderStyle& style, bool flip,
                          std::int64_t elapsed_ms);

/// The two clock lines of render_screen(), for redrawing them in place as time passes.
std::string render_clocks(const GameView& view, bool flip, std::int64_t elapsed_ms);

/// True when the board is drawn with the second seat at the bottom.
bool drawn_flipped(const GameView& view, bool flip);

}  // namespace arbiter::client
