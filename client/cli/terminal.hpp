#pragma once
/// \file
/// Where arbiter-cli's output goes: JSON lines for scripts, or boards and notes for people, with
/// in-place clock updates on an interactive terminal.

#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "client/cli/options.hpp"
#include "client/cli/render.hpp"

namespace arbiter::client {

/// The rows of a window `columns` wide that `text` takes when printed from the start of a line:
/// one per line end, and more for a line longer than the window (which wraps). Escape sequences
/// take no room; each code point is taken for one column. `columns` 0: unknown, no wrapping.
int rows_taken(std::string_view text, int columns);

/// Where the clock lines of a screen drawn from the top row are now: at `clock_row` while
/// nothing printed since (`rows_used`, the screen and what followed it, the cursor's line
/// included) has filled the window of `rows` rows (0: unknown); nullopt once the window has
/// scrolled, when the screen must be drawn again instead.
std::optional<int> clock_row_now(int clock_row, int rows_used, int rows);

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
    /// take cursor movement, colours or not). False when the screen has scrolled since it was
    /// drawn: the caller draws it again (redraw()), as the rows it was drawn at are gone.
    bool update_clocks(const std::string& clock_lines) const;
    /// The screen drawn again (fresh clocks), with the notes written after it that fit below.
    void redraw(const std::string& text, int clock_row);
    /// A line was typed: the prompt moved down.
    void typed();
    /// The program ends: a prompt left waiting (Ctrl-C, Ctrl-D, a refused join) is wiped, or
    /// closed with a newline, so the shell's prompt starts on a line of its own.
    void end();

  private:
    void printed(const std::string& text, bool with_prompt);
    int rows_used() const;

    bool json_ = false;
    bool interactive_ = false;
    bool cursor_ = false;  ///< cursor movement and clearing (not TERM=dumb); colours are apart
    bool prompt_ = false;
    bool at_prompt_ = false;  ///< the last thing written was the prompt
    RenderStyle style_;
    int clock_row_ = 0;
    int lines_since_screen_ = 0;  ///< rows written since the screen was drawn at the top
    /// The notes written since the screen, the last few, for a redraw to show again.
    std::deque<std::string> notes_since_screen_;
};

}  // namespace arbiter::client
