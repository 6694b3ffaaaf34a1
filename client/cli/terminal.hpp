#pragma once
/// \file
/// Where arbiter-cli's output goes: JSON lines for scripts, or boards and notes for people, with
/// in-place clock updates on an interactive terminal.

#include <nlohmann/json_fwd.hpp>
#include <string>

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
    const RenderStyle& style() const { return style_; }

    /// --json: the message as one line on stdout; otherwise nothing.
    void json_line(const nlohmann::json& message) const;
    /// A line for people: stdout, or stderr under --json (whose stdout is JSON only).
    void note(const std::string& text) const;
    /// A whole game screen; `clock_row` is its 1-based line holding the first clock line.
    void screen(const std::string& text, int clock_row);
    /// Rewrites the two clock lines of the last screen in place (interactive colour terminals).
    void update_clocks(const std::string& clock_lines) const;
    /// A line was typed: the prompt moved down.
    void typed() {}

  private:
    bool json_ = false;
    bool interactive_ = false;
    bool ansi_ = false;
    RenderStyle style_;
    int clock_row_ = 0;
};

}  // namespace arbiter::client
