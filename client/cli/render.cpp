// Shared pieces of the renderers: dispatch by variant, clock text, squares of a wire move.
#include "client/cli/render.hpp"

#include <cctype>

namespace arbiter::client {

Expected<std::string, std::string> render_board(const BoardRequest& request) {
    if (request.variant == "chess") {
        return render_chess(request);
    }
    if (request.variant == "xiangqi") {
        return render_xiangqi(request);
    }
    if (request.variant == "draughts") {
        return render_draughts(request);
    }
    return unexpected("cannot draw the variant \"" + request.variant + "\"");
}

bool first_seat_to_move(const std::string& variant, std::string_view position) {
    if (variant == "draughts") {
        return position.starts_with('W');
    }
    const auto space = position.find(' ');
    return space != std::string_view::npos && space + 1 < position.size() &&
           (position[space + 1] == 'w' || position[space + 1] == 'r');
}

char king_in_check(const BoardRequest& request) {
    if (!request.check || request.variant == "draughts") {
        return 0;
    }
    return first_seat_to_move(request.variant, request.position) ? 'K' : 'k';
}

Expected<std::string, std::string> piece_letters(const std::string& variant,
                                                 std::string_view position) {
    if (variant == "chess") {
        return chess_piece_letters(position);
    }
    if (variant == "xiangqi") {
        return xiangqi_piece_letters(position);
    }
    if (variant == "draughts") {
        return draughts_piece_letters(position);
    }
    return unexpected("unknown variant \"" + variant + "\"");
}

std::string format_clock(std::int64_t milliseconds) {
    const std::int64_t ms = milliseconds < 0 ? 0 : milliseconds;
    const std::int64_t total_seconds = ms / 1000;
    const std::int64_t hours = total_seconds / 3600;
    const std::int64_t minutes = total_seconds / 60 % 60;
    const std::int64_t seconds = total_seconds % 60;
    auto two = [](std::int64_t value) { return (value < 10 ? "0" : "") + std::to_string(value); };
    std::string text = hours > 0 ? std::to_string(hours) + ":" + two(minutes) + ":" + two(seconds)
                                 : std::to_string(minutes) + ":" + two(seconds);
    if (ms < 20'000) {
        text += "." + std::to_string(ms / 100 % 10);
    }
    return text;
}

std::vector<std::string> move_squares(std::string_view wire_move) {
    std::vector<std::string> squares;
    std::string current;
    auto flush = [&] {
        if (!current.empty()) {
            squares.push_back(current);
            current.clear();
        }
    };
    const bool numeric =
        !wire_move.empty() && std::isdigit(static_cast<unsigned char>(wire_move[0]));
    for (char c : wire_move) {
        if (numeric) {
            if (std::isdigit(static_cast<unsigned char>(c))) {
                current += c;
            } else {
                flush();
            }
        } else if (std::isalpha(static_cast<unsigned char>(c))) {
            // A letter starts a square, except a promotion letter after a complete square.
            if (squares.size() == 2 || (current.size() > 1 && squares.size() == 1)) {
                flush();
                break;
            }
            flush();
            current += c;
        } else if (std::isdigit(static_cast<unsigned char>(c))) {
            current += c;
        }
    }
    flush();
    return squares;
}

Expected<std::vector<std::string>, std::string> read_placement(std::string_view fen,
                                                               const FenBoard& board) {
    const auto refuse = [&](const std::string& why) {
        return unexpected("cannot draw \"" + std::string(fen) + "\": " + why);
    };
    const auto files = static_cast<std::size_t>(board.files);
    const auto ranks = static_cast<std::size_t>(board.ranks);
    std::vector<std::string> grid(ranks, std::string(files, '.'));
    std::size_t row = 0;
    std::size_t file = 0;
    for (const char c : fen.substr(0, fen.find(' '))) {
        if (c == '/') {
            if (file != files || ++row >= ranks) {
                return refuse("bad rank");
            }
            file = 0;
        } else if (c >= '1' && c <= '9' && static_cast<std::size_t>(c - '0') <= files) {
            file += static_cast<std::size_t>(c - '0');
        } else if (const char piece = board.piece(c); piece != 0 && file < files) {
            grid[row][file++] = piece;
        } else {
            return refuse("unexpected '" + std::string(1, c) + "'");
        }
        if (file > files) {
            return refuse("a rank is too long");
        }
    }
    if (row != ranks - 1 || file != files) {
        return refuse("not " + std::to_string(ranks) + " ranks of " + std::to_string(files) + " " +
                      std::string(board.cell));
    }
    return grid;
}

Expected<std::string, std::string> placement_letters(std::string_view fen, const FenBoard& board) {
    auto grid = read_placement(fen, board);
    if (!grid) {
        return unexpected(grid.error());
    }
    std::string letters;
    for (const std::string& row : *grid) {
        for (const char cell : row) {
            if (cell != '.') {
                letters += cell;
            }
        }
    }
    return letters;
}

}  // namespace arbiter::client
