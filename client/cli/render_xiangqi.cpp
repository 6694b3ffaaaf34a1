// Xiangqi: 9 files by 10 ranks of points, red (rank 1) at the bottom unless flipped, with the
// river between ranks 5 and 6 and the palaces (files d-f, ranks 1-3 and 8-10) marked.
#include <algorithm>
#include <array>
#include <cctype>

#include "client/cli/render.hpp"

namespace arbiter::client {
namespace {

char xiangqi_piece(char letter) {
    const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(letter)));
    if (std::string_view("kabenhrcp").find(lower) == std::string_view::npos) {
        return 0;
    }
    // Some writers use e/h for the elephant and horse; draw them as b/n.
    const char canonical = lower == 'e' ? 'b' : lower == 'h' ? 'n' : lower;
    return std::isupper(static_cast<unsigned char>(letter))
               ? static_cast<char>(std::toupper(canonical))
               : canonical;
}

constexpr FenBoard kXiangqiBoard{9, 10, "points", xiangqi_piece};

// Two terminal columns per point: a Chinese character, or a letter and a space.
std::string point_text(char piece, bool palace, bool unicode) {
    static constexpr std::string_view kLetters = "KABNRCPkabnrcp";
    static constexpr std::array<std::string_view, 14> kChinese = {
        "帥", "仕", "相", "傌", "俥", "炮", "兵", "將", "士", "象", "馬", "車", "砲", "卒"};
    if (piece == '.') {
        if (unicode) {
            return palace ? "＋" : "・";
        }
        return palace ? "+ " : ". ";
    }
    if (unicode) {
        return std::string(kChinese[kLetters.find(piece)]);
    }
    return std::string(1, piece) + " ";
}

}  // namespace

Expected<std::string, std::string> xiangqi_piece_letters(std::string_view position) {
    return placement_letters(position, kXiangqiBoard);
}

Expected<std::string, std::string> render_xiangqi(const BoardRequest& request) {
    auto grid = read_placement(request.position, kXiangqiBoard);
    if (!grid) {
        return unexpected(grid.error());
    }
    const auto marked = move_squares(request.last_move);
    const char checked_king = king_in_check(request);
    const RenderStyle& style = request.style;
    std::string files_line = "    ";
    for (int column = 0; column < 9; ++column) {
        const int file = request.flipped ? 8 - column : column;
        files_line += std::string(1, static_cast<char>('a' + file)) + "  ";
    }
    files_line += "\n";
    std::string text = files_line;
    for (int line = 0; line < 10; ++line) {
        const int row = request.flipped ? 9 - line : line;
        const int rank = 10 - row;
        const std::string label = (rank < 10 ? " " : "") + std::to_string(rank);
        text += label + "  ";
        for (int column = 0; column < 9; ++column) {
            const int file = request.flipped ? 8 - column : column;
            const char piece = (*grid)[row][file];
            const bool palace = file >= 3 && file <= 5 && (rank <= 3 || rank >= 8);
            std::string point = point_text(piece, palace, style.unicode);
            const bool in_check = piece == checked_king;
            if (in_check && !style.color && !style.unicode) {
                point = std::string(1, piece) + "!";  // without colours: K! for the general
            }
            if (style.color) {
                const std::string square =
                    std::string(1, static_cast<char>('a' + file)) + std::to_string(rank);
                const bool last = std::find(marked.begin(), marked.end(), square) != marked.end();
                std::string paint = piece == '.' ? std::string(ansi::kDim)
                                    : std::isupper(static_cast<unsigned char>(piece))
                                        ? std::string(ansi::kRedPiece)
                                        : std::string(ansi::kBluePiece);
                if (in_check) {
                    paint += std::string(ansi::kCheckSquare);
                } else if (last) {
                    paint += std::string(ansi::kHighlightSquare);
                }
                point.insert(0, paint);
                point += ansi::kReset;
            }
            text += point + (column < 8 ? " " : "");
        }
        text += "  " + label + "\n";
        if (line == 4) {
            // The river between ranks 5 and 6 (楚河 漢界: "Chu river, Han border").
            text += style.unicode ? "    ～～～ 楚 河 ～～～ 漢 界 ～～～\n"
                                  : "    ~~~~~~~~~~ river ~~~~~~~~~~\n";
        }
    }
    return text + files_line;
}

}  // namespace arbiter::client
