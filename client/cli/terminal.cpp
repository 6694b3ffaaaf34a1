#include "client/cli/terminal.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

namespace arbiter::client {

Terminal Terminal::detect(const CliOptions& options) {
    Terminal terminal;
    terminal.json_ = options.json;
    const bool tty_out = ::isatty(STDOUT_FILENO) == 1;
    terminal.interactive_ = !options.json && tty_out && ::isatty(STDIN_FILENO) == 1;
    // Colours only on a terminal, and never when the user set NO_COLOR (no-color.org).
    terminal.ansi_ = options.color && tty_out && std::getenv("NO_COLOR") == nullptr;
    terminal.style_ = {terminal.ansi_, options.unicode, options.numbers};
    return terminal;
}

void Terminal::json_line(const nlohmann::json& message) const {
    if (json_) {
        std::cout << message.dump() << '\n' << std::flush;
    }
}

void Terminal::note(const std::string& text) const {
    if (text.empty()) {
        return;
    }
    std::ostream& out = json_ ? std::cerr : std::cout;
    out << text << (text.back() == '\n' ? "" : "\n");
    if (interactive_) {
        out << "> ";
    }
    out << std::flush;
}

void Terminal::screen(const std::string& text, int clock_row) {
    if (json_) {
        return;
    }
    if (interactive_ && ansi_) {
        std::cout << "\x1b[2J\x1b[H";  // clear and home: the clock lines get a fixed row
        clock_row_ = clock_row;
    }
    std::cout << text << (interactive_ ? "> " : "\n") << std::flush;
}

void Terminal::update_clocks(const std::string& clock_lines) const {
    if (!interactive_ || !ansi_ || clock_row_ == 0) {
        return;
    }
    std::string out =
        "\x1b"
        "7";  // save the cursor (the user may be typing)
    int row = clock_row_;
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
