#include "client/cli/terminal.hpp"

#include <langinfo.h>
#include <locale.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string_view>

namespace arbiter::client {
namespace {

// The rows of the terminal on standard output, or 0 when unknown.
int window_rows() {
    winsize size{};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0) {
        return 0;
    }
    return size.ws_row;
}

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
    lines_since_screen_ += static_cast<int>(std::count(text.begin(), text.end(), '\n'));
    at_prompt_ = with_prompt;
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

void Terminal::update_clocks(const std::string& clock_lines) const {
    if (!cursor_ || clock_row_ == 0) {
        return;
    }
    // The screen was drawn from the top row; once what followed it filled the window it scrolled
    // up by the excess, and clock lines scrolled off the top cannot be rewritten (writing at their
    // old row would overwrite the board, or the line being typed).
    const int rows = window_rows();
    const int lines_used = lines_since_screen_ + 1;  // the cursor's line counts too
    const int scrolled = rows > 0 ? std::max(0, lines_used - rows) : 0;
    int row = clock_row_ - scrolled;
    const int clock_line_count =
        static_cast<int>(std::count(clock_lines.begin(), clock_lines.end(), '\n'));
    if (row < 1 || (rows > 0 && row + clock_line_count - 1 > rows)) {
        return;
    }
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
}

}  // namespace arbiter::client
