#!/usr/bin/env python3
"""arbiter-cli end to end: two arbiter-cli players play a whole game through a real arbiter-server
(127.0.0.1, port 0, temporary database) while a third arbiter-cli watches; then `arbiter-cli
replay` must print the moves the server stored (GET /api/games/<id>).

Chess also checks the token store: the first player is stopped mid-game and `arbiter-cli resume
GAME` (no --token) takes the seat back and finishes the game. With --restart (chess), the server
is stopped after two moves and started again on the same port and database: every arbiter-cli
reconnects by itself, resumes or watches again, and the game goes on.

Usage: cli_game_test.py --server PATH --cli PATH --variant chess|xiangqi|draughts
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

TIMEOUT = 60.0

# variant -> (start position or None, first player's moves, second player's moves, result, reason)
GAMES = {
    "chess": (None, ["f2f3", "g2g4"], ["e7e5", "d8h4"], "0-1", "checkmate"),
    "xiangqi": ("3k5/8R/R8/9/9/9/9/9/9/4K4 w - - 0 1", ["a8a10"], [], "1-0", "checkmate"),
    "draughts": ("W:W22:B18", ["22x15"], [], "1-0", "no_moves"),
}


class Process:
    """A child whose stdout lines are collected by a thread, so waits never block on a pipe."""

    def __init__(self, name, command, env, stdin_lines=None):
        self.name = name
        self.command = command
        self.lines = []
        self.at_end = False  # the reader has seen the end of stdout: no more lines will come
        self.condition = threading.Condition()
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
            env=env, text=True, bufsize=1)
        threading.Thread(target=self._read, daemon=True).start()
        for line in stdin_lines or []:
            self.write(line)

    def _read(self):
        for line in self.process.stdout:
            with self.condition:
                self.lines.append(line.rstrip("\n"))
                self.condition.notify_all()
        with self.condition:
            self.at_end = True
            self.condition.notify_all()

    def write(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def messages(self):
        with self.condition:
            return [json.loads(line) for line in self.lines]

    def wait_for(self, predicate, what):
        """The first stdout line (as JSON) for which predicate holds."""
        deadline = time.monotonic() + TIMEOUT
        with self.condition:
            while True:
                for line in self.lines:
                    message = json.loads(line)
                    if predicate(message):
                        return message
                left = deadline - time.monotonic()
                # A child that has exited may still have lines in the pipe: only the reader's
                # end of stdout says that none will come (deciding on poll() raced with it).
                if left <= 0 or self.at_end:
                    fail(f"{self.name}: no {what}", self)
                self.condition.wait(min(left, 0.2))

    def finish(self):
        try:
            code = self.process.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            fail(f"{self.name} did not exit", self)
        return code

    def stderr_text(self):
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")


def fail(message, process=None):
    print("FAIL:", message, file=sys.stderr)
    if process is not None:
        print(f"--- {process.name} {' '.join(process.command)}", file=sys.stderr)
        print("\n".join(process.lines[-30:]), file=sys.stderr)
        print(f"--- {process.name} stderr\n{process.stderr_text()[-3000:]}", file=sys.stderr)
    sys.exit(1)


def check(condition, message, process=None):
    if not condition:
        fail(message, process)


def try_start_server(binary, workdir, port=0, extra_args=()):
    """(server, port), or (None, the line it printed) when it did not start."""
    log = open(os.path.join(workdir, "server.log"), "a")
    server = subprocess.Popen(
        [binary, "--port", str(port), "--db", os.path.join(workdir, "games.db"),
         "--log-level", "warn", *extra_args],
        stdout=subprocess.PIPE, stderr=log, text=True)
    line = server.stdout.readline()
    match = re.search(r"listening on ([\d.]+):(\d+)", line)
    if not match:
        server.kill()
        server.wait()
        return None, line
    return server, int(match.group(2))


def start_server(binary, workdir, port=0, extra_args=()):
    # A restart binds the port the clients know. It was free a moment ago, but another test
    # binding port 0 (or a reconnecting client's own connection) may hold it for a while.
    deadline = time.monotonic() + (10 if port else 0)
    while True:
        server, found = try_start_server(binary, workdir, port, extra_args)
        if server is not None:
            return server, found
        if time.monotonic() >= deadline:
            fail(f"the server did not start: {found!r}")
        time.sleep(0.2)


def stop_server(server):
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def with_server(binary, prefix, body, extra_args=()):
    """body(port, workdir) beside a server of its own on a temporary database, stopped after."""
    with tempfile.TemporaryDirectory(prefix=prefix) as workdir:
        server, port = start_server(binary, workdir, 0, extra_args)
        try:
            body(port, workdir)
        finally:
            stop_server(server)


def run_against_server(name, run):
    """The main of a test script taking --server and --cli: run(args, port, workdir)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--cli", required=True)
    args = parser.parse_args()
    with_server(args.server, f"arbiter-cli-{name}-", lambda port, workdir: run(args, port, workdir))
    print(f"ok: {name}")


def is_type(kind, **fields):
    return lambda m: m.get("type") == kind and all(m.get(k) == v for k, v in fields.items())


def final_moves(messages):
    """The moves a follower knows at the end: its last state's, then the later moved events."""
    moves, seq = [], 0
    for message in messages:
        if message.get("type") == "state":
            moves, seq = list(message["moves"]), message["seq"]
        elif message.get("type") == "moved" and message["seq"] > seq:
            moves.append(message["move"])
            seq = message["seq"]
    return moves


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--cli", required=True)
    parser.add_argument("--variant", required=True, choices=sorted(GAMES))
    parser.add_argument("--restart", action="store_true")
    parser.add_argument("--freeze", action="store_true",
                        help="the server stops answering (SIGSTOP) without closing anything")
    args = parser.parse_args()
    position, first_moves, second_moves, result, reason = GAMES[args.variant]

    with tempfile.TemporaryDirectory(prefix="arbiter-cli-test-") as workdir:
        server, port = start_server(args.server, workdir)
        servers = [server]

        def restart():
            stop_server(servers[-1])
            servers.append(start_server(args.server, workdir, port)[0])

        def freeze(stopped):
            servers[-1].send_signal(signal.SIGSTOP if stopped else signal.SIGCONT)

        try:
            run_game(args, port, workdir, position, first_moves, second_moves, result, reason,
                     restart, freeze)
        finally:
            freeze(False)
            stop_server(servers[-1])
    print(f"ok: {args.variant}")


def wait_for_note(process, text, within):
    """Seconds until `text` shows on the process's standard error (its notes under --json)."""
    started = time.monotonic()
    while text not in process.stderr_text():
        if time.monotonic() - started > within:
            fail(f"{process.name}: no {text!r} within {within} s", process)
        time.sleep(0.1)
    return time.monotonic() - started


def run_game(args, port, workdir, position, first_moves, second_moves, result, reason, restart,
             freeze):
    url = f"ws://127.0.0.1:{port}/ws"
    # Each player is a different user with a token store of their own.
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(workdir, "config"), NO_COLOR="1")
    env_second = dict(env, XDG_CONFIG_HOME=os.path.join(workdir, "config-second"))
    cli = [args.cli, "--server", url, "--json"]
    create = cli + ["--name", "Ana", "create", args.variant, "--side", "first"]
    if position:
        create += ["--position", position]
    # Chess: the first player makes one move, stops, and comes back with `resume`.
    # With --restart or --freeze: held back until the server is back.
    interrupted = args.variant == "chess"
    first = Process("first", create, env, first_moves[:1] if interrupted else first_moves)
    created = first.wait_for(is_type("created"), "created")
    game = created["game"]
    first.wait_for(is_type("state", game=game), "state after create")

    spectator = Process("spectator", cli + ["watch", game], env)
    spectator.wait_for(is_type("state", game=game), "state for the spectator")
    second = Process("second", cli + ["--name", "Bo", "join", game], env_second, second_moves)
    second.wait_for(is_type("joined", game=game), "joined")

    if args.restart:
        # Two moves, then the server goes down and comes back; the third move follows.
        spectator.wait_for(is_type("moved", ply=2), "the second move")
        restart()
        first.write(first_moves[1])
    elif args.freeze:
        # The server goes silent with every connection open (a dead link without a FIN): each
        # client notices within its 5 s of silence, reconnects once the server answers again,
        # and the game goes on.
        spectator.wait_for(is_type("moved", ply=2), "the second move")
        freeze(True)
        lost = [wait_for_note(p, "connection closed", 15) for p in (first, second)]
        print(f"silence noticed after {lost[0]:.1f} s and {lost[1]:.1f} s")
        check(max(lost) < 8, f"the silent server was noticed after {lost} s")
        freeze(False)
        back = wait_for_note(first, "reconnected", 60)
        print(f"reconnected {back:.1f} s after the server answered again")
        first.write(first_moves[1])
    elif interrupted:
        first.wait_for(is_type("moved", ply=1), "its first move")
        first.process.send_signal(signal.SIGTERM)
        check(first.finish() == 130, "an interrupted player exits with 130", first)
        tokens_path = os.path.join(workdir, "config", "arbiter", "tokens.json")
        check(os.stat(tokens_path).st_mode & 0o777 == 0o600, "tokens.json is 0600")
        tokens = json.load(open(tokens_path))
        check(tokens.get(url, {}).get(game, {}).get("white", {}).get("token") == created["token"],
              f"the token was stored for the game and seat: {tokens}")
        first = Process("resumed", cli + ["resume", game], env, first_moves[1:])
        state = first.wait_for(is_type("state", game=game), "state after resume")
        check(state["you"] == "white" and state["ply"] >= 1, "resume took the seat back", first)

    players = [first, second, spectator]
    for process in players:
        # The end arrives as an event, or (after a reconnect) inside a state.
        ended = process.wait_for(
            lambda m: m.get("game") == game and (m.get("type") == "ended" or (
                m.get("type") == "state" and m.get("status") == "ended")), "the end")
        check(ended["result"] == result and ended["reason"] == reason,
              f"{process.name} saw {ended}, expected {result} {reason}", process)
    for process in players:
        check(process.finish() == 0, f"{process.name} exits 0 at the end", process)

    played = [move for pair in zip(first_moves, second_moves + [None]) for move in pair if move]
    seen = final_moves(spectator.messages())
    check(seen == played, f"the spectator saw {seen}, expected {played}", spectator)
    errors = [m for p in players for m in p.messages() if m.get("type") == "error"]
    check(not errors, f"no errors expected: {errors}")

    stored = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games/{game}",
                                              timeout=10))
    stored_moves = [move["move"] for move in stored["moves"]]
    check(stored_moves == played, f"the server stored {stored_moves}, expected {played}")

    replay = subprocess.run([args.cli, "--server", url, "replay", game, "--print"], env=env,
                            capture_output=True, text=True, timeout=TIMEOUT)
    check(replay.returncode == 0, f"replay failed: {replay.stderr}")
    # Move pairs: "1. f3 e5  2. g4 Qh4#" (a game from a position with the second seat to move
    # would open with "1... ").
    movetext = "\n".join(replay.stdout.splitlines()[1:-1])
    printed = [word for word in movetext.split() if not re.fullmatch(r"\d+\.(\.\.)?", word)]
    check(printed == [m["notation"] for m in stored["moves"]],
          f"replay printed {replay.stdout!r}, the server stored {stored['moves']}")
    check(re.match(r"1\. ", movetext), f"replay numbers the pairs: {replay.stdout!r}")
    pgn = subprocess.run([args.cli, "--server", url, "replay", game, "--pgn"], env=env,
                         capture_output=True, text=True, timeout=TIMEOUT)
    check(pgn.returncode == 0 and f'[Result "{result}"]' in pgn.stdout and
          pgn.stdout.rstrip().endswith(result), f"replay --pgn: {pgn.stdout!r} {pgn.stderr!r}")
    check(f"Result: {result} ({reason})" in replay.stdout, "replay prints the result")

    replay_json = subprocess.run(cli + ["replay", game], env=env, capture_output=True,
                                 text=True, timeout=TIMEOUT)
    record = json.loads(replay_json.stdout.strip().splitlines()[-1])
    check(record["type"] == "record" and [m["move"] for m in record["moves"]] == stored_moves,
          "replay --json prints the record")


if __name__ == "__main__":
    main()
