// Chess: the 8x8 board of a FEN's piece placement, rank 8 at the top unless flipped.
#include <algorithm>
#include <array>

#include "client/cli/render.hpp"

namespace arbiter::client {
namespace {

using Grid = std::array<std::array<char, 8>, 8>;  // [row from rank 8][file a..h], '.' empty

Expected<Grid, std::string> read_placement(std::string_view fen) {
    const std::string_view placement = fen.substr(0, fen.find(' '));
    Grid grid{};
    for (auto& row : grid) {
        row.fill('.');
    }
    std::size_t row = 0;
    std::size_t file = 0;
    for (char c : placement) {
        if (c == '/') {
            if (file != 8 || ++row >= 8) {
                return unexpected("cannot draw \"" + std::string(fen) + "\": bad rank");
            }
            file = 0;
        } else if (c >= '1' && c <= '8') {
            file += static_cast<std::size_t>(c - '0');
        } else if (std::string_view("pnbrqkPNBRQK").find(c) != std::string_view::npos && file < 8) {
            grid[row][file++] = c;
        } else {
            return unexpected("cannot draw \"" + std::string(fen) + "\": unexpected '" +
                              std::string(1, c) + "'");
        }
        if (file > 8) {
            return unexpected("cannot draw \"" + std::string(fen) + "\": a rank is too long");
        }
    }
    if (row != 7 || file != 8) {
        return unexpected("cannot draw \"" + std::string(fen) + "\": not 8 ranks of 8 squares");
    }
    return grid;
}

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

Expected<std::string, std::string> render_chess(const BoardRequest& request) {
    auto grid = read_placement(request.position);
    if (!grid) {
        return unexpected(grid.error());
    }
    const auto marked = move_squares(request.last_move);
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
            if (style.color) {
                const bool last = std::find(marked.begin(), marked.end(), square) != marked.end();
                text += std::string(last    ? ansi::highlight_square
                                    : light ? ansi::light_square
                                            : ansi::dark_square);
                if (piece != '.') {
                    text += std::string(std::isupper(static_cast<unsigned char>(piece))
                                            ? ansi::first_piece
                                            : ansi::second_piece);
                }
                text += " " + glyph + " " + std::string(ansi::reset);
            } else {
                text += " " + glyph + " ";
            }
        }
        text += " " + rank + "\n";
    }
    return text + files_line;
}

}  // namespace arbiter::client
