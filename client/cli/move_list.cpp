#include "client/cli/move_list.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "client/cli/render.hpp"

namespace arbiter::client {
namespace {

// The pieces that can be taken, strongest first (the kings/generals never are).
std::string_view takeable(const std::string& variant) {
    if (variant == "xiangqi") {
        return "rnbacp";
    }
    return "qrbnp";
}

std::array<int, 128> count_letters(const std::string& variant, const std::string& position) {
    std::array<int, 128> counts{};
    auto letters = piece_letters(variant, position);
    if (!letters) {
        return counts;
    }
    for (const char letter : *letters) {
        char counted = letter;
        if (variant == "draughts") {
            // Men and kings together: 'W' counts white's pieces, 'B' black's.
            counted = static_cast<char>(std::toupper(static_cast<unsigned char>(letter)));
        }
        counts[static_cast<unsigned char>(counted) & 0x7f] += 1;
    }
    return counts;
}

// The pieces of one side missing from `now`: `upper` selects the first seat's letters.
std::string missing(const std::string& variant, const std::array<int, 128>& before,
                    const std::array<int, 128>& now, bool upper) {
    std::string taken;
    const auto letter_of = [upper](char piece) {
        return upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(piece))) : piece;
    };
    // Chess: a promoted pawn shows as a piece more than the start had, not as a pawn taken.
    int promoted = 0;
    if (variant == "chess") {
        for (const char piece : std::string_view("qrbn")) {
            const auto index = static_cast<unsigned char>(letter_of(piece));
            promoted += std::max(0, now[index] - before[index]);
        }
    }
    for (const char piece : takeable(variant)) {
        const auto index = static_cast<unsigned char>(letter_of(piece));
        int count = std::max(0, before[index] - now[index]);
        if (piece == 'p' && variant == "chess") {
            count = std::max(0, count - promoted);
        }
        taken.append(static_cast<std::size_t>(count), letter_of(piece));
    }
    return taken;
}

}  // namespace

std::vector<std::string> move_pairs(const std::vector<std::string>& notation,
                                    bool second_seat_started) {
    std::vector<std::string> pairs;
    std::size_t index = 0;
    if (second_seat_started && !notation.empty()) {
        pairs.push_back("1... " + notation[0]);
        index = 1;
    }
    for (; index < notation.size(); index += 2) {
        const std::size_t number = (index + (second_seat_started ? 1 : 0)) / 2 + 1;
        std::string pair = std::to_string(number) + ". " + notation[index];
        if (index + 1 < notation.size()) {
            pair += " " + notation[index + 1];
        }
        pairs.push_back(std::move(pair));
    }
    return pairs;
}

std::string move_list_text(const std::vector<std::string>& pairs, std::size_t width,
                           std::size_t max_lines) {
    std::vector<std::string> lines;
    for (const std::string& pair : pairs) {
        if (lines.empty() || lines.back().size() + 2 + pair.size() > width) {
            lines.push_back(pair);
        } else {
            lines.back() += "  " + pair;
        }
    }
    const std::size_t first =
        max_lines == 0 || lines.size() <= max_lines ? 0 : lines.size() - max_lines;
    std::string text;
    for (std::size_t index = first; index < lines.size(); ++index) {
        text += lines[index] + "\n";
    }
    return text;
}

CapturedPieces captured_pieces(const std::string& variant, const std::string& initial,
                               const std::string& position) {
    const auto before = count_letters(variant, initial);
    const auto now = count_letters(variant, position);
    if (variant == "draughts") {
        const int white_lost = std::max(0, before['W'] - now['W']);
        const int black_lost = std::max(0, before['B'] - now['B']);
        return {std::string(static_cast<std::size_t>(black_lost), 'b'),
                std::string(static_cast<std::size_t>(white_lost), 'w')};
    }
    return {missing(variant, before, now, false), missing(variant, before, now, true)};
}

std::string captured_line(const CapturedPieces& captured, const std::string& variant) {
    if (captured.by_first.empty() && captured.by_second.empty()) {
        return "";
    }
    const bool draughts = variant == "draughts";
    const auto shown = [draughts](const std::string& taken) {
        if (taken.empty()) {
            return std::string("-");
        }
        if (draughts) {
            return std::to_string(taken.size());
        }
        std::string text;
        for (const char piece : taken) {
            text += (text.empty() ? "" : " ") + std::string(1, piece);
        }
        return text;
    };
    const std::string first = variant == "xiangqi" ? "Red" : "White";
    return "Captured: by " + first + " " + shown(captured.by_first) + ", by Black " +
           shown(captured.by_second) + "\n";
}

}  // namespace arbiter::client
