#include "client/cli/terminal.hpp"

#include <langinfo.h>
#include <locale.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string_view>

namespace arbiter::client {
namespace {

// The size of the terminal on standard output, or 0 x 0 when unknown.
winsize window_size() {
    winsize size{};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0) {
        return winsize{};
    }
    return size;
}

int window_rows() {
    return window_size().ws_row;
}

// A redraw shows again at most this many notes written after the screen (chat, offers, errors).
constexpr std::size_t kNotesKept = 20;

// True when the user's locale (LC_ALL, LC_CTYPE, LANG) says the terminal takes UTF-8. Asked of
// a locale object of its own, so the program's locale stays "C".
bool locale_is_utf8() {
    const locale_t user = ::newlocale(LC_CTYPE_MASK, "", static_cast<locale_t>(nullptr));
    if (user == static_cast<locale_t>(nullptr)) {
        return false;
    }
    const std::string_view codeset = ::nl_langinfo_l(CODESET, user);
    const bool utf8 = codeset == "UTF-8" || codeset == "utf8";
    ::freelocale(user);
    return utf8;
}

}  // namespace

int rows_taken(std::string_view text, int columns) {
    int rows = 0;
    int column = 0;
    for (std::size_t at = 0; at < text.size(); ++at) {
        const auto byte = static_cast<unsigned char>(text[at]);
        if (byte == '\x1b') {
            // CSI ("ESC [ ... letter") or a two-byte sequence ("ESC 7").
            if (at + 1 < text.size() && text[at + 1] == '[') {
                at += 2;
                while (at < text.size() && !std::isalpha(static_cast<unsigned char>(text[at]))) {
                    ++at;
                }
            } else {
                ++at;
            }
        } else if (byte == '\n') {
            ++rows;
            column = 0;
        } else if (byte == '\r') {
            column = 0;
        } else if ((byte & 0xc0) != 0x80) {  // the first byte of a code point
            if (columns > 0 && column == columns) {
                ++rows;  // the line wrapped
                column = 0;
            }
            ++column;
        }
    }
    return rows;
}

std::optional<int> clock_row_now(int clock_row, int rows_used, int rows) {
    if (clock_row < 1 || (rows > 0 && rows_used > rows)) {
        return std::nullopt;
    }
    return clock_row;
}

Terminal Terminal::detect(const CliOptions& options) {
    Terminal terminal;
    terminal.json_ = options.json;
    const bool tty_out = ::isatty(STDOUT_FILENO) == 1;
    terminal.interactive_ = !options.json && tty_out && ::isatty(STDIN_FILENO) == 1;
    // A terminal without a TERM, or TERM=dumb, takes no escape sequences at all.
    const char* term = std::getenv("TERM");
    const bool dumb = term == nullptr || term[0] == '\0' || std::string_view(term) == "dumb";
    terminal.cursor_ = terminal.interactive_ && !dumb;
    // Colours only on a terminal, and never when the user set NO_COLOR (no-color.org), which
    // turns off colours only: the clocks still count down in place.
    const bool ansi = options.color && tty_out && !dumb && std::getenv("NO_COLOR") == nullptr;
    // Unicode pieces only on a terminal whose locale is UTF-8: on another the bytes would show as
    // garbage. Output to a file or a pipe is UTF-8 as asked.
    const bool unicode = options.unicode && (!tty_out || locale_is_utf8());
    terminal.style_ = {ansi, unicode, options.numbers};
    return terminal;
}

void Terminal::json_line(std::string_view message) const {
    if (json_) {
        std::cout << message << '\n' << std::flush;
    }
}

void Terminal::printed(const std::string& text, bool with_prompt) {
    lines_since_screen_ += rows_taken(text, window_size().ws_col);
    at_prompt_ = with_prompt;
}

int Terminal::rows_used() const {
    return lines_since_screen_ + 1;  // the cursor's line counts too
}

void Terminal::note(const std::string& text) {
    if (text.empty()) {
        return;
    }
    std::ostream& out = json_ ? std::cerr : std::cout;
    const std::string line = text + (text.back() == '\n' ? "" : "\n");
    const bool with_prompt = interactive_ && prompt_;
    out << line << (with_prompt ? "> " : "") << std::flush;
    if (!json_) {
        printed(line, with_prompt);
        notes_since_screen_.push_back(line);
        if (notes_since_screen_.size() > kNotesKept) {
            notes_since_screen_.pop_front();
        }
    }
}

void Terminal::screen(const std::string& text, int clock_row) {
    if (json_) {
        return;
    }
    const bool with_prompt = interactive_ && prompt_;
    if (cursor_) {
        std::cout << "\x1b[2J\x1b[H";  // clear and home: the clock lines get a fixed row
        clock_row_ = clock_row;
        lines_since_screen_ = 0;
    }
    notes_since_screen_.clear();
    std::cout << text << (with_prompt ? "> " : interactive_ ? "" : "\n") << std::flush;
    printed(text, with_prompt);
}

void Terminal::typed() {
    if (at_prompt_) {
        ++lines_since_screen_;  // the Enter that ended the line
    }
    at_prompt_ = false;
}

void Terminal::end() {
    if (at_prompt_) {
        // Nothing more will be read: the prompt is wiped where the cursor can go back, else
        // closed with a newline.
        std::cout << (cursor_ ? "\r\x1b[2K" : "\n") << std::flush;
        at_prompt_ = false;
    }
}

bool Terminal::update_clocks(const std::string& clock_lines) const {
    if (!cursor_ || clock_row_ == 0) {
        return true;  // nothing is drawn in place here
    }
    // The screen was drawn from the top row. Once what followed it filled the window, it
    // scrolled, by an amount this program cannot know for sure (a line the user typed may have
    // wrapped): its clock lines are no longer at a row it could write them to.
    const auto row_now = clock_row_now(clock_row_, rows_used(), window_rows());
    if (!row_now) {
        return false;
    }
    int row = *row_now;
    std::string out =
        "\x1b"
        "7";  // save the cursor (the user may be typing)
    std::size_t start = 0;
    while (start < clock_lines.size()) {
        const auto end = clock_lines.find('\n', start);
        out +=
            "\x1b[" + std::to_string(row++) + ";1H\x1b[2K" + clock_lines.substr(start, end - start);
        start = end == std::string::npos ? clock_lines.size() : end + 1;
    }
    out +=
        "\x1b"
        "8";
    std::cout << out << std::flush;
    return true;
}

void Terminal::redraw(const std::string& text, int clock_row) {
    std::deque<std::string> notes = std::move(notes_since_screen_);
    const bool prompt = prompt_;
    prompt_ = false;  // the prompt follows the notes
    screen(text, clock_row);
    prompt_ = prompt;
    // The notes that fit below the screen without scrolling it (the prompt's line kept free).
    const int rows = window_rows();
    while (!notes.empty() && rows > 0 &&
           rows_used() + rows_taken(notes.front(), window_size().ws_col) > rows) {
        notes.pop_front();
    }
    std::string shown;
    for (std::string& line : notes) {
        shown += line;
        notes_since_screen_.push_back(std::move(line));
    }
    const bool with_prompt = interactive_ && prompt_;
    std::cout << shown << (with_prompt ? "> " : "") << std::flush;
    printed(shown, with_prompt);
}

}  // namespace arbiter::client
