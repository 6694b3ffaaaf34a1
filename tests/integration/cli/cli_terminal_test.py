#!/usr/bin/env python3
"""arbiter-cli at a terminal (a pseudo-terminal), against a real arbiter-server (127.0.0.1, port 0,
temporary database). Each case was found in exploratory QA:

- `games` and `engines` take no input, yet printed the "> " prompt after every line and left one
  before the shell's prompt.
- Ctrl-D at the game prompt left the client running with its input gone: nothing typed afterwards
  was read. It now leaves like `quit`, on a line of its own; Ctrl-C leaves with 130, likewise.
- NO_COLOR (colours off) also stopped the clocks from counting down in place and the screen from
  being redrawn; TERM=dumb still got escape sequences.
- Unicode pieces were written whatever the locale: garbage on a terminal that is not UTF-8.
- On a terminal shorter than the game screen the clock lines scroll off the top, and the clock
  updates were written at their old rows: over the board, or over the line being typed. Once
  the screen has scrolled (a short terminal, or notes that filled a tall one) a clock tick now
  draws the whole screen again (issue 41: clock lines were still written in the wrong place).
- Ctrl-C while stepping through a replay exited 0, as if the replay had been quit.

Usage: cli_terminal_test.py --server PATH --cli PATH
"""
import fcntl
import os
import pty
import re
import select
import signal
import struct
import termios
import time

from cli_game_test import Process, check, fail, is_type, run_against_server

TIMEOUT = 30.0
CURSOR_TO_ROW = re.compile(rb"\x1b\[(\d+);1H")


class Terminal:
    """arbiter-cli on a pseudo-terminal of `rows` x `columns`, its output collected."""

    def __init__(self, name, command, env, rows=50, columns=100):
        self.name = name
        self.command = command
        self.output = b""
        self.status = None
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvpe(command[0], command, env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))

    def _read(self, seconds):
        ready, _, _ = select.select([self.fd], [], [], seconds)
        if not ready:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # EIO: the child has closed the terminal
            data = b""
        self.output += data
        return bool(data)

    def wait_for(self, predicate, what, seconds=TIMEOUT):
        deadline = time.monotonic() + seconds
        while not predicate(self.output):
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(min(left, 0.1)):
                if predicate(self.output):
                    return
                self.fail(f"no {what}")

    def wait_for_text(self, text, seconds=TIMEOUT):
        self.wait_for(lambda output: text.encode() in output, repr(text), seconds)

    def pump(self, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and self._read(0.05):
            pass

    def type(self, text):
        os.write(self.fd, text.encode())

    def exit_code(self, seconds=TIMEOUT):
        """The exit code, once the client has exited by itself within `seconds`."""
        deadline = time.monotonic() + seconds
        while self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                break
            if time.monotonic() >= deadline:
                self.fail("did not exit")
            self._read(0.05)
        while self._read(0.05):
            pass
        return self.status

    def kill(self):
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.status = -signal.SIGKILL
        os.close(self.fd)

    def fail(self, message):
        tail = self.output[-1500:].decode(errors="replace")
        os.kill(self.pid, signal.SIGKILL) if self.status is None else None
        fail(f"{self.name}: {message}\n--- {' '.join(self.command)}\n{tail!r}")


def screen_of(output, rows, columns=100):
    """What a terminal of `rows` x `columns` shows after `output`: a small emulator of the
    sequences arbiter-cli writes (clear, home, cursor to row, clear line, save and restore the
    cursor, colours), scrolling up when a newline passes the last row."""
    lines = [[" "] * columns for _ in range(rows)]
    row = column = 0
    saved = (0, 0)
    text = output.decode(errors="replace")
    index = 0
    while index < len(text):
        char = text[index]
        index += 1
        if char == "\x1b":
            if text[index] in "78":
                if text[index] == "7":
                    saved = (row, column)
                else:
                    row, column = saved
                index += 1
                continue
            match = re.match(r"\[([\d;]*)([A-Za-z])", text[index:])
            index += match.end()
            numbers = [int(n) for n in match.group(1).split(";") if n]
            if match.group(2) == "H":
                row = min((numbers[0] if numbers else 1), rows) - 1
                column = (numbers[1] if len(numbers) > 1 else 1) - 1
            elif match.group(2) == "J":
                lines = [[" "] * columns for _ in range(rows)]
            elif match.group(2) == "K":
                lines[row] = [" "] * columns
        elif char == "\r":
            column = 0
        elif char == "\n":
            row += 1
            if row == rows:
                lines = lines[1:] + [[" "] * columns]
                row = rows - 1
        elif column < columns:
            lines[row][column] = char
            column += 1
    return ["".join(line).rstrip() for line in lines]


def without_clock_updates(output):
    """The output without the in-place clock updates (each is saved cursor ... restored)."""
    return re.sub(rb"\x1b7.*?\x1b8", b"", output, flags=re.DOTALL)


def same_but_for_the_times(shown, expected):
    times = re.compile(r"\d+:\d\d(\.\d)?")
    return [times.sub("T", line) for line in shown] == [times.sub("T", line) for line in expected]


def ends_on_a_clean_line(output):
    """The output leaves the cursor at the start of an empty line: after a newline, or with the
    line wiped (carriage return, clear line)."""
    return output.endswith(b"\n") or output.endswith(b"\r\x1b[2K")


def listing_prints_no_prompt(cli, env):
    for command in (["games"], ["engines"], ["games", "--status", "ended"]):
        terminal = Terminal(" ".join(command), cli + command, env)
        code = terminal.exit_code()
        text = terminal.output.decode(errors="replace")
        terminal.kill()
        check(code == 0, f"{command}: exit {code}: {text!r}")
        check("> " not in text, f"{command} printed a prompt though it reads nothing: {text!r}")


def leaves_on_a_key(name, command, env, ready, key, expected_code, what):
    """Starts `command` at a terminal, waits for `ready`, types `key`, and checks that the client
    exits with `expected_code` on a line of its own."""
    terminal = Terminal(name, command, env)
    terminal.wait_for_text(ready)
    terminal.type(key)
    code = terminal.exit_code(10)
    output = terminal.output
    terminal.kill()
    check(code == expected_code, f"{what}: exit {code}")
    check(ends_on_a_clean_line(output), f"{what} left our prompt to the shell: {output[-80:]!r}")


def end_of_input_leaves_like_quit(cli, env):
    # Ctrl-D at the start of a line: end of input.
    leaves_on_a_key("ctrl-d", cli + ["create", "chess"], env, "Waiting for an opponent", "\x04",
                    0, "Ctrl-D")
    leaves_on_a_key("ctrl-c", cli + ["create", "chess"], env, "Waiting for an opponent", "\x03",
                    130, "Ctrl-C")


def timed_game(cli, env, variant_env, rows, name, typed=""):
    """A 1+0 game whose clocks run (both sides moved), the creator at a terminal; returns its
    output, taken after the clocks had 2.5 s to count down (after `typed` was typed)."""
    creator = Terminal(name, cli + ["--name", "Ana", "create", "chess", "--side", "first",
                                    "--clock", "1+0"], dict(env, **variant_env), rows=rows)
    creator.wait_for(lambda out: re.search(rb"Game (\w+): you play", out), "created")
    game = re.search(rb"Game (\w+): you play", creator.output).group(1).decode()
    joiner = Process("joiner", cli + ["--json", "--name", "Bo", "join", game], env)
    try:
        joiner.wait_for(is_type("state", game=game, status="playing"), "state after join")
        creator.wait_for_text("Your move")
        creator.type("e2e4\n")
        joiner.wait_for(is_type("moved", ply=1), "e2e4")
        joiner.write("e7e5")
        creator.wait_for_text("Last move: 1... e5")
        if typed:
            creator.type(typed)
            creator.pump(0.5)
        creator.pump(2.5)
        return creator.output
    finally:
        creator.kill()
        joiner.process.kill()
        joiner.process.wait()


def clocks_count_down_without_colours(cli, env):
    output = timed_game(cli, env, {"NO_COLOR": "1"}, 50, "no-color")
    check(b"\x1b[48;5;" not in output and b"\x1b[1;9" not in output,
          "NO_COLOR: colours were written")
    after = output[output.rfind(b"Last move: 1... e5"):]
    check(b"\x1b7" in after and CURSOR_TO_ROW.search(after),
          f"NO_COLOR: the clocks were not counted down in place: {after[-300:]!r}")
    check(same_but_for_the_times(screen_of(output, 50),
                                 screen_of(without_clock_updates(output), 50)),
          "NO_COLOR: clock updates overwrote other lines")

    output = timed_game(cli, env, {"TERM": "dumb"}, 50, "term-dumb")
    check(b"\x1b" not in output, f"TERM=dumb: escape sequences written: {output[-300:]!r}")


def redraws_after(output, marker):
    """The whole-screen redraws after the first `marker` (a redraw shows it again), and whether
    clocks were written in place there."""
    after = output[output.find(marker):]
    return after.count(b"\x1b[2J"), b"\x1b7" in after


def clock_updates_stay_on_a_short_terminal(cli, env):
    rows = 8  # far shorter than a chess screen: it scrolls, and its clock lines move up
    output = timed_game(cli, env, {}, rows, "short")
    redraws, in_place = redraws_after(output, b"Last move: 1... e5")
    check(redraws >= 2 and not in_place,
          f"a scrolled screen is drawn again on each tick: {redraws} redraws, in place {in_place}")
    shown = screen_of(output, rows)
    expected = screen_of(without_clock_updates(output), rows)
    check(same_but_for_the_times(shown, expected),
          "clock updates overwrote other lines of a short terminal:\n" + "\n".join(shown) +
          "\n--- instead of\n" + "\n".join(expected))


def clocks_redraw_once_notes_scrolled_the_screen(cli, env):
    """A tall terminal whose screen was pushed up by notes (help, typed four times): the clock
    rows are gone from where they were drawn, so the tick draws the screen again."""
    rows = 30  # the screen fits; 4 helps of 5 rows each push it up
    output = timed_game(cli, env, {}, rows, "scrolled", "help\nhelp\nhelp\nhelp\n")
    start = output.find(b"Last move: 1... e5")
    redraws, _ = redraws_after(output, b"Last move: 1... e5")
    check(redraws >= 1, "the scrolled screen was not drawn again")
    last_redraw = output.rfind(b"\x1b[2J")
    check(b"\x1b7" not in output[start:last_redraw],
          "clocks were written in place after the screen scrolled")
    shown = screen_of(output, rows)
    expected = screen_of(without_clock_updates(output), rows)
    check(same_but_for_the_times(shown, expected),
          "clock updates overwrote other lines:\n" + "\n".join(shown))
    check(any(line.strip().startswith("White  Ana") for line in shown),
          "the redrawn screen shows the clocks:\n" + "\n".join(shown))


def pieces_follow_the_locale(cli, env):
    """A replay at a terminal: Unicode pieces under a UTF-8 locale, letters under another."""
    game = None
    creator = Process("creator", cli + ["--json", "create", "chess"], env)
    try:
        game = creator.wait_for(is_type("created"), "created")["game"]
        creator.wait_for(is_type("state", game=game), "state")
    finally:
        creator.process.kill()
        creator.process.wait()
    for locale, unicode in (("C.UTF-8", True), ("C", False), ("POSIX", False)):
        terminal = Terminal(f"LC_ALL={locale}", cli + ["replay", game],
                            dict(env, LC_ALL=locale, LANG=locale))
        terminal.wait_for_text("keys:")
        terminal.type("quit\n")
        terminal.exit_code()
        terminal.kill()
        has_pieces = "♜".encode() in terminal.output
        check(has_pieces == unicode,
              f"LC_ALL={locale}: Unicode pieces {'missing' if unicode else 'written'}")
        if not unicode:
            check(all(byte < 0x80 for byte in terminal.output),
                  f"LC_ALL={locale}: bytes that are not ASCII: {terminal.output[-200:]!r}")
    return game


def interrupted_replay_exits_130(cli, env, game):
    """Ctrl-C while stepping through a replay leaves as Ctrl-C does in a game: 130, not 0."""
    leaves_on_a_key("replay-ctrl-c", cli + ["replay", game], env, "keys:", "\x03", 130,
                    "Ctrl-C in a replay")


def run(args, port, workdir):
    url = f"ws://127.0.0.1:{port}/ws"
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(workdir, "config"), TERM="xterm")
    env.pop("NO_COLOR", None)
    cli = [args.cli, "--server", url]
    listing_prints_no_prompt(cli, env)
    end_of_input_leaves_like_quit(cli, env)
    clocks_count_down_without_colours(cli, env)
    clock_updates_stay_on_a_short_terminal(cli, env)
    clocks_redraw_once_notes_scrolled_the_screen(cli, env)
    game = pieces_follow_the_locale(cli, env)
    interrupted_replay_exits_130(cli, env, game)


if __name__ == "__main__":
    run_against_server("terminal", run)
