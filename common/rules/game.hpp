#pragma once
/// \file
/// The one small face that every game in the rules module presents: parse a position, list the
/// legal moves, play a move, report the status, and write positions, moves and whole games back
/// as text. The server, the engines and the tools see games only through this face; each game's
/// own types (chess::Position, xiangqi::Position, draughts::Position) stay behind it.
///
/// Everything here is pure: no I/O, no clocks, no JSON. Untrusted text is parsed strictly and a
/// failure comes back as a RulesError value with a message a person can read.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/core/expected.hpp"

namespace arbiter::rules {

/// The games Arbiter plays.
enum class Variant : std::uint8_t { chess, xiangqi, draughts };

/// "chess", "xiangqi", "draughts".
std::string_view to_string(Variant variant) noexcept;
/// Inverse of to_string; nullopt for anything else.
std::optional<Variant> parse_variant(std::string_view text) noexcept;

/// The side that moves first (white in chess and draughts, red in xiangqi) or second (black).
enum class Side : std::uint8_t { first, second };

/// The other side.
constexpr Side opponent(Side side) noexcept {
    return side == Side::first ? Side::second : Side::first;
}

/// The seat name of a side in a variant: "white"/"black", or "red"/"black" in xiangqi.
std::string_view seat_name(Variant variant, Side side) noexcept;
/// Inverse of seat_name; nullopt for a name that is not a seat of this variant.
std::optional<Side> parse_seat(Variant variant, std::string_view name) noexcept;

/// How a game stands.
enum class Outcome : std::uint8_t { ongoing, first_wins, second_wins, draw };

/// The rule that ended a game. Names on the wire are the snake_case enumerator names.
enum class Reason : std::uint8_t {
    none,                   ///< the game is ongoing
    checkmate,              ///< chess and xiangqi
    stalemate,              ///< chess (draw) and xiangqi (loss for the stalemated side)
    no_moves,               ///< draughts: the side to move has no piece or no legal move
    repetition,             ///< threefold repetition (xiangqi: neither side perpetually at fault)
    fifty_moves,            ///< chess: 100 plies without capture or pawn move
    insufficient_material,  ///< no sequence of legal moves can win (chess dead position, xiangqi)
    perpetual_check,        ///< xiangqi: one side checked with every move of the repeated cycle
    perpetual_chase,        ///< xiangqi: one side chased the same piece with every move
    move_limit,             ///< xiangqi 120 plies without capture; draughts king-move limits
};

/// "checkmate", "no_moves", ...; "" for Reason::none.
std::string_view to_string(Reason reason) noexcept;

/// Outcome and the rule behind it.
struct Status {
    Outcome outcome = Outcome::ongoing;
    Reason reason = Reason::none;

    bool over() const noexcept { return outcome != Outcome::ongoing; }
    friend bool operator==(const Status&, const Status&) = default;
};

/// "1-0", "0-1", "1/2-1/2" or "*".
std::string_view result_string(Outcome outcome) noexcept;

/// Why a piece of text was refused: a message for a person ("e2e5: a pawn cannot move there").
struct RulesError {
    std::string message;
};

/// The squares a draughts move passes over, for a client to draw it: a move whose wire form
/// names only its start and end ("22x6") may take several pieces on the way.
struct MoveRoute {
    std::vector<int> path;   ///< the start, each landing square in order, the end (PDN numbers)
    std::vector<int> taken;  ///< the squares of the pieces taken, in the order they are jumped
    friend bool operator==(const MoveRoute&, const MoveRoute&) = default;
};

/// A move that was played: its canonical wire form and its display notation.
struct PlayedMove {
    std::string wire;      ///< chess UCI "e7e8q"; xiangqi "h3e3"; draughts PDN "22x15"
    std::string notation;  ///< chess SAN "e8=Q+"; xiangqi WXF "C2.5"; draughts PDN "22x15"
    bool capture = false;  ///< the move took at least one piece
    MoveRoute route = {};  ///< draughts: the squares it passed over; empty in chess and xiangqi
};

/// What a whole-game export (PGN, PDN) needs beyond the moves.
struct ExportInfo {
    std::string event = "Arbiter game";
    std::string site;
    std::string date;  ///< "YYYY.MM.DD", or empty for "????.??.??"
    std::string first_player;
    std::string second_player;
    Outcome outcome = Outcome::ongoing;
    std::string termination;  ///< free text: "normal", "time forfeit", "abandoned", ...
    /// Remaining clock of the mover after each ply, in ms; empty for an untimed game.
    std::vector<std::int64_t> clock_ms;
    /// The engine's evaluation of the position after each ply, as Lichess exports it: the
    /// command "[%eval 0.17]" or "[%eval #-3]"; empty: none for that ply (or no analysis).
    std::vector<std::string> evals;
    /// The TimeControl tag's value (PGN 9.6.1): "300+2" (seconds, and the increment after each
    /// move), "-" for none; empty: no tag.
    std::string time_control;
};

/// A game in progress: its start position and every move played since, with the status that the
/// whole history decides (repetition, move limits, perpetual check). Copy it with clone().
class Game {
  public:
    virtual ~Game() = default;

    virtual Variant variant() const noexcept = 0;
    virtual std::unique_ptr<Game> clone() const = 0;

    /// The start position in the variant's FEN (chess FEN, xiangqi FEN, draughts PDN FEN).
    virtual std::string initial_position() const = 0;
    /// The current position in the same notation.
    virtual std::string position() const = 0;
    /// The side to move.
    virtual Side turn() const noexcept = 0;
    /// Plies played since the start position.
    virtual std::size_t ply() const noexcept = 0;
    /// Wire forms of every move played, in order.
    virtual const std::vector<std::string>& moves() const noexcept = 0;

    /// Every legal move of the side to move in canonical wire form; empty once the game is over.
    virtual std::vector<std::string> legal_moves() const = 0;
    /// The route of each move of legal_moves(), in the same order (draughts); empty in the games
    /// whose moves are one step from a square to a square (chess, xiangqi).
    virtual std::vector<MoveRoute> legal_routes() const { return {}; }
    /// Plays a move given in wire notation. An illegal or malformed move, or any move once the
    /// game is over, is refused with a reason and changes nothing.
    virtual Expected<PlayedMove, RulesError> play(std::string_view move) = 0;
    /// The canonical wire form of a move written in wire or display notation (SAN, WXF, PDN),
    /// or why it is not a legal move here.
    virtual Expected<std::string, RulesError> to_wire(std::string_view text) const = 0;

    /// Ongoing, or over with the result and the rule that ended it. Draw rules apply
    /// automatically (Arbiter does not wait for a claim).
    virtual Status status() const = 0;
    /// Whether the side to move is in check (always false in draughts).
    virtual bool in_check() const = 0;
    /// Whether `side` could still win by any series of legal moves; a flag fall against a side
    /// that cannot win is a draw. Chess: the side can still checkmate (FIDE 6.9). Xiangqi: the
    /// position is not dead, as a side with general, advisors and elephants alone still wins if
    /// the opponent is left without a move or checks or chases perpetually. Draughts: the side
    /// has a piece.
    virtual bool can_win(Side side) const = 0;

    /// The whole game as PGN (chess, xiangqi) or PDN (draughts).
    virtual std::string export_text(const ExportInfo& info) const = 0;

    /// Leaf nodes of the legal-move tree `depth` plies deep from the current position.
    virtual std::uint64_t perft(int depth) const = 0;
    /// perft(depth - 1) below each legal move, keyed by the move's wire form.
    virtual std::vector<std::pair<std::string, std::uint64_t>> divide(int depth) const = 0;
};

/// A new game of `variant` from `position` (the variant's FEN), or from the standard start when
/// `position` is empty or "startpos".
Expected<std::unique_ptr<Game>, RulesError> make_game(Variant variant, std::string_view position);

}  // namespace arbiter::rules
