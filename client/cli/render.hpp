#pragma once
/// \file
/// Boards and clocks as terminal text, drawn from the FEN the server sends. The client knows no
/// rules: these functions only read piece placement, and a position they cannot read is an error
/// for the caller to show, never a crash.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/core/expected.hpp"

namespace arbiter::client {

/// How to draw.
struct RenderStyle {
    bool color = true;     ///< ANSI colours for squares and pieces
    bool unicode = true;   ///< Unicode pieces (chess symbols, Chinese characters); else letters
    bool numbers = false;  ///< draughts: square numbers on the empty dark squares
};

/// What to draw.
struct BoardRequest {
    std::string variant;    ///< chess, xiangqi or draughts
    std::string position;   ///< the variant's FEN
    bool flipped = false;   ///< true: the second seat (black) at the bottom
    std::string last_move;  ///< wire notation; its squares are highlighted when colours are on
    RenderStyle style;
    bool check = false;  ///< the side to move is in check: its king is marked
};

/// Whether the first seat (white, red) is to move in `position`: a chess or xiangqi FEN names the
/// side after the board ("w"; xiangqi's red may be "r"), a PDN FEN opens with it ("W:...").
bool first_seat_to_move(const std::string& variant, std::string_view position);

/// The FEN letter of the king (general) to mark as in check, or 0 for none.
char king_in_check(const BoardRequest& request);

/// The board as lines of text (each ending in '\n').
Expected<std::string, std::string> render_board(const BoardRequest& request);

/// The shape of a FEN board: its size, what a cell is called, and which letters are pieces.
struct FenBoard {
    int files = 8;
    int ranks = 8;
    std::string_view cell = "squares";  ///< for messages: "not 8 ranks of 8 squares"
    /// The letter to draw for a FEN letter, or 0 when the letter is no piece of the game.
    char (*piece)(char letter) = nullptr;
};
/// The piece placement of a chess or xiangqi FEN as rows of letters ('.' for empty), the far
/// rank (8 or 10) first; or why it cannot be drawn.
Expected<std::vector<std::string>, std::string> read_placement(std::string_view fen,
                                                               const FenBoard& board);
/// Every piece of read_placement's board, one FEN letter each, far rank first.
Expected<std::string, std::string> placement_letters(std::string_view fen, const FenBoard& board);

/// Every piece on the board of a position, one letter each in no particular order: chess and
/// xiangqi as their FEN letters (xiangqi's e/h read as b/n), draughts as w/W (a white man, king)
/// and b/B. For counting what was taken; the error when the position cannot be read.
Expected<std::string, std::string> piece_letters(const std::string& variant,
                                                 std::string_view position);
Expected<std::string, std::string> chess_piece_letters(std::string_view position);
Expected<std::string, std::string> xiangqi_piece_letters(std::string_view position);
Expected<std::string, std::string> draughts_piece_letters(std::string_view position);

Expected<std::string, std::string> render_chess(const BoardRequest& request);
Expected<std::string, std::string> render_xiangqi(const BoardRequest& request);
Expected<std::string, std::string> render_draughts(const BoardRequest& request);

/// Remaining time: `1:02:03`, `4:05`, and tenths under 20 s (`0:09.4`); negative shows as 0.
std::string format_clock(std::int64_t milliseconds);

/// The squares a wire move touches, as they appear in it ("e2e4" -> {"e2","e4"};
/// "a8a10" -> {"a8","a10"}; "22x15x6" -> {"22","15","6"}).
std::vector<std::string> move_squares(std::string_view wire_move);

namespace ansi {
inline constexpr std::string_view kReset = "\x1b[0m";
inline constexpr std::string_view kBold = "\x1b[1m";
inline constexpr std::string_view kLightSquare = "\x1b[48;5;180m";
inline constexpr std::string_view kDarkSquare = "\x1b[48;5;137m";
inline constexpr std::string_view kHighlightSquare = "\x1b[48;5;143m";
inline constexpr std::string_view kCheckSquare = "\x1b[48;5;167m";  ///< a king in check
inline constexpr std::string_view kFirstPiece = "\x1b[1;97m";       ///< white / red pieces
inline constexpr std::string_view kSecondPiece = "\x1b[1;30m";      ///< black pieces
inline constexpr std::string_view kRedPiece = "\x1b[1;31m";
inline constexpr std::string_view kBluePiece = "\x1b[1;34m";
inline constexpr std::string_view kDim = "\x1b[2m";
}  // namespace ansi

}  // namespace arbiter::client
