// Chess: the 8x8 board of a FEN's piece placement, rank 8 at the top unless flipped.
#include <algorithm>
#include <array>

#include "client/cli/render.hpp"

namespace arbiter::client {
namespace {

char chess_piece(char letter) {
    return std::string_view("pnbrqkPNBRQK").find(letter) != std::string_view::npos ? letter : 0;
}

constexpr FenBoard kChessBoard{8, 8, "squares", chess_piece};

std::string_view symbol(char piece, bool unicode) {
    static constexpr std::string_view kLetters = "KQRBNPkqrbnp";
    // Solid shapes for both sides: colour tells them apart; outlines when there is no colour.
    static constexpr std::array<std::string_view, 12> kOutlined = {"♔", "♕", "♖", "♗", "♘", "♙",
                                                                   "♚", "♛", "♜", "♝", "♞", "♟"};
    const auto index = kLetters.find(piece);
    if (!unicode || index == std::string_view::npos) {
        return {};
    }
    return kOutlined[index];
}

}  // namespace

Expected<std::string, std::string> chess_piece_letters(std::string_view position) {
    return placement_letters(position, kChessBoard);
}

Expected<std::string, std::string> render_chess(const BoardRequest& request) {
    auto grid = read_placement(request.position, kChessBoard);
    if (!grid) {
        return unexpected(grid.error());
    }
    const auto marked = move_squares(request.last_move);
    const char checked_king = king_in_check(request);
    const RenderStyle& style = request.style;
    std::string files_line = "   ";
    for (int column = 0; column < 8; ++column) {
        const int file = request.flipped ? 7 - column : column;
        files_line += " " + std::string(1, static_cast<char>('a' + file)) + " ";
    }
    files_line += "\n";
    std::string text = files_line;
    for (int line = 0; line < 8; ++line) {
        const int row = request.flipped ? 7 - line : line;
        const std::string rank = std::to_string(8 - row);
        text += " " + rank + " ";
        for (int column = 0; column < 8; ++column) {
            const int file = request.flipped ? 7 - column : column;
            const char piece = (*grid)[row][file];
            const std::string square = std::string(1, static_cast<char>('a' + file)) + rank;
            const bool light = (row + file) % 2 == 0;
            std::string glyph =
                piece == '.' ? (style.color ? " " : (light ? " " : ".")) : std::string(1, piece);
            if (piece != '.' && style.unicode) {
                // With colour both sides use the solid shapes, painted white or black.
                const char shape =
                    style.color ? static_cast<char>(std::tolower(static_cast<unsigned char>(piece)))
                                : piece;
                glyph = std::string(symbol(shape, true));
            }
            const bool in_check = piece == checked_king;
            if (style.color) {
                const bool last = std::find(marked.begin(), marked.end(), square) != marked.end();
                text += std::string(in_check ? ansi::kCheckSquare
                                    : last   ? ansi::kHighlightSquare
                                    : light  ? ansi::kLightSquare
                                             : ansi::kDarkSquare);
                if (piece != '.') {
                    text += std::string(std::isupper(static_cast<unsigned char>(piece))
                                            ? ansi::kFirstPiece
                                            : ansi::kSecondPiece);
                }
                text += " " + glyph + " " + std::string(ansi::kReset);
            } else {
                // Without colours the king in check is framed: (K).
                text += (in_check ? "(" : " ") + glyph + (in_check ? ")" : " ");
            }
        }
        text += " " + rank + "\n";
    }
    return text + files_line;
}

}  // namespace arbiter::client
