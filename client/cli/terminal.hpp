#pragma once
/// \file
/// Where arbiter-cli's output goes: JSON lines for scripts, or boards and notes for people, with
/// in-place clock updates on an interactive terminal.

#include <string>
#include <string_view>

#include "client/cli/options.hpp"
#include "client/cli/render.hpp"

namespace arbiter::client {

/// Standard output as the user asked for it.
class Terminal {
  public:
    /// From the options and whether standard input and output are terminals.
    static Terminal detect(const CliOptions& options);

    /// True for a person at a terminal (not --json, stdin and stdout are terminals).
    bool interactive() const { return interactive_; }
    /// Whether the "> " prompt follows what is printed: only while typed lines are read (a game
    /// or a replay being stepped through), never under a list that takes no input.
    void prompt_for_input(bool prompt) { prompt_ = prompt; }
    const RenderStyle& style() const { return style_; }

    /// --json: the server's message, as it came (one line of JSON), on stdout; otherwise nothing.
    void json_line(std::string_view message) const;
    /// A line for people: stdout, or stderr under --json (whose stdout is JSON only).
    void note(const std::string& text);
    /// A whole game screen; `clock_row` is its 1-based line holding the first clock line.
    void screen(const std::string& text, int clock_row);
    /// Rewrites the two clock lines of the last screen in place (interactive terminals that
    /// take cursor movement, colours or not), unless they have scrolled off the window.
    void update_clocks(const std::string& clock_lines) const;
    /// A line was typed: the prompt moved down.
    void typed();
    /// The program ends: a prompt left waiting (Ctrl-C, Ctrl-D, a refused join) is wiped, or
    /// closed with a newline, so the shell's prompt starts on a line of its own.
    void end();

  private:
    void printed(const std::string& text, bool with_prompt);

    bool json_ = false;
    bool interactive_ = false;
    bool cursor_ = false;  ///< cursor movement and clearing (not TERM=dumb); colours are apart
    bool prompt_ = false;
    bool at_prompt_ = false;  ///< the last thing written was the prompt
    RenderStyle style_;
    int clock_row_ = 0;
    int lines_since_screen_ = 0;  ///< newlines written since the screen was drawn at the top
};

}  // namespace arbiter::client
