// Draughts: the 8x8 board with pieces on the 32 dark squares, numbered as PDN does (1 = b8,
// 4 = h8, 5 = a7, ..., 32 = g1 as White sees it), White at the bottom unless flipped.
#include <algorithm>
#include <array>
#include <cctype>

#include "client/cli/render.hpp"

namespace arbiter::client {
namespace {

using Squares = std::array<char, 33>;  // [1..32]: 'w' 'W' (king) 'b' 'B' or '.'

Expected<int, std::string> square_number(std::string_view text) {
    if (text.empty() || text.size() > 2 || !std::all_of(text.begin(), text.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c));
        })) {
        return unexpected("\"" + std::string(text) + "\" is not a square");
    }
    const int number = std::stoi(std::string(text));
    if (number < 1 || number > 32) {
        return unexpected("square " + std::string(text) + " is not on the board");
    }
    return number;
}

// One colour's field of a PDN FEN: "W21,22,K23" or with ranges "B1-12".
Expected<void, std::string> read_field(std::string_view field, Squares& squares) {
    const char side = field.empty() ? '?' : field.front();
    if (side != 'W' && side != 'B') {
        return unexpected("a field starts with W or B, not \"" + std::string(field) + "\"");
    }
    std::string_view rest = field.substr(1);
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        std::string_view token = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        const bool king = !token.empty() && token.front() == 'K';
        if (king) {
            token.remove_prefix(1);
        }
        const auto dash = token.find('-');
        auto first = square_number(token.substr(0, dash));
        auto last = dash == std::string_view::npos ? first : square_number(token.substr(dash + 1));
        if (!first || !last) {
            return unexpected(!first ? first.error() : last.error());
        }
        const char piece = side == 'W' ? (king ? 'W' : 'w') : (king ? 'B' : 'b');
        for (int square = *first; square <= *last; ++square) {
            squares[static_cast<std::size_t>(square)] = piece;
        }
    }
    return {};
}

Expected<Squares, std::string> read_position(std::string_view fen) {
    Squares squares{};
    squares.fill('.');
    if (fen.size() < 2 || (fen[0] != 'W' && fen[0] != 'B') || fen[1] != ':') {
        return unexpected("cannot draw \"" + std::string(fen) + "\": expected W: or B: first");
    }
    std::string_view rest = fen.substr(2);
    while (!rest.empty()) {
        const auto colon = rest.find(':');
        auto read = read_field(rest.substr(0, colon), squares);
        if (!read) {
            return unexpected("cannot draw \"" + std::string(fen) + "\": " + read.error());
        }
        rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    }
    return squares;
}

std::string piece_text(char piece, bool unicode) {
    switch (piece) {
        case 'w':
            return unicode ? "⛀" : "w";
        case 'W':
            return unicode ? "⛁" : "W";
        case 'b':
            return unicode ? "⛂" : "b";
        default:
            return unicode ? "⛃" : "B";
    }
}

}  // namespace

Expected<std::string, std::string> draughts_piece_letters(std::string_view position) {
    auto squares = read_position(position);
    if (!squares) {
        return unexpected(squares.error());
    }
    std::string letters;
    for (const char square : *squares) {
        if (square != '.' && square != '\0') {
            letters += square;
        }
    }
    return letters;
}

Expected<std::string, std::string> render_draughts(const BoardRequest& request) {
    auto squares = read_position(request.position);
    if (!squares) {
        return unexpected(squares.error());
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
        const int row = request.flipped ? 7 - line : line;  // 0 = rank 8
        const std::string rank = std::to_string(8 - row);
        text += " " + rank + " ";
        for (int column = 0; column < 8; ++column) {
            const int file = request.flipped ? 7 - column : column;
            // Dark squares: files b d f h on rows 0 2 4 6, a c e g on the others (a1 is dark).
            const bool dark = (row % 2 == 0) == (file % 2 == 1);
            std::string cell = "   ";
            std::string_view paint = ansi::kLightSquare;
            if (dark) {
                const int number = 4 * row + file / 2 + 1;
                const char piece = (*squares)[static_cast<std::size_t>(number)];
                const bool last =
                    std::find(marked.begin(), marked.end(), std::to_string(number)) != marked.end();
                paint = last ? ansi::kHighlightSquare : ansi::kDarkSquare;
                if (piece != '.') {
                    cell = " " + piece_text(piece, style.unicode) + " ";
                    if (style.color) {
                        const bool white = piece == 'w' || piece == 'W';
                        cell.insert(0, white ? ansi::kFirstPiece : ansi::kSecondPiece);
                    }
                } else if (style.numbers) {
                    cell = (number < 10 ? " " : "") + std::to_string(number) + " ";
                } else if (!style.color) {
                    cell = " . ";
                }
            }
            text += style.color ? std::string(paint) + cell + std::string(ansi::kReset) : cell;
        }
        text += " " + rank + "\n";
    }
    return text + files_line;
}

}  // namespace arbiter::client
