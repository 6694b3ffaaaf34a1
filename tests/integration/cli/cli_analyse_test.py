#!/usr/bin/env python3
"""arbiter-cli analyse and replay with an analysis (issue 42, the terminal client), against a real
arbiter-server with real Stockfish at few nodes (127.0.0.1, port 0, temporary database):

- two arbiter-cli players play a scholar's mate (3... Nf6?? 4. Qxf7#);
- `replay --print` before any analysis shows the game without evaluations;
- `analyse GAME` of a game still in play, and of an unknown game, exits 1 with the server's reason;
- `analyse GAME` starts the analysis, shows its progress, and prints the game in move pairs
  with marks and evaluations ("3. Bc4 Nf6?? (#1)") and each side's accuracy and counts;
- `replay --print` then shows the same evaluations and marks;
- with a full queue (--max-analysis-queue 1), `analyse` says when to try again, and an
  interrupted `analyse` says the analysis goes on.

Usage: cli_analyse_test.py --server PATH --cli PATH (exits 77, skipped, without Stockfish)
"""
import argparse
import os
import re
import signal
import subprocess
import sys

from cli_game_test import TIMEOUT, Process, check, is_type, wait_for_note, with_server

STOCKFISH = "/usr/games/stockfish"
SCHOLARS_MATE = (["e2e4", "d1h5", "f1c4", "h5f7"], ["e7e5", "b8c6", "g8f6"])


def cli_command(args, port):
    return [args.cli, "--server", f"ws://127.0.0.1:{port}/ws"]


def environment(workdir):
    return dict(os.environ, XDG_CONFIG_HOME=os.path.join(workdir, "config"), NO_COLOR="1")


def played_game(args, port, env, white_moves, black_moves):
    """A game of two scripted arbiter-cli players; returns its id once both have exited."""
    cli = cli_command(args, port) + ["--json"]
    white = Process("white", cli + ["--name", "Ana", "create", "chess", "--side", "first"], env,
                    white_moves)
    game = white.wait_for(is_type("created"), "created")["game"]
    black = Process("black", cli + ["--name", "Bo", "join", game], env, black_moves)
    for player in (white, black):
        player.wait_for(is_type("ended", game=game), "the end of the game")
        check(player.finish() == 0, f"{player.name} exits 0 at the end", player)
    return game


def run_cli(args, port, env, *arguments):
    return subprocess.run(cli_command(args, port) + list(arguments), env=env, capture_output=True,
                          text=True, timeout=TIMEOUT)


def run_analysis(args, port, workdir):
    env = environment(workdir)
    # A game in play cannot be analysed: the server's reason, exit 1.
    cli = cli_command(args, port) + ["--json"]
    waiting = Process("waiting", cli + ["--name", "Cy", "create", "chess"], env)
    open_game = waiting.wait_for(is_type("created"), "created")["game"]
    refused = run_cli(args, port, env, "analyse", open_game)
    check(refused.returncode == 1 and "ended" in refused.stderr,
          f"a game in play is refused: {refused.returncode} {refused.stderr!r}")
    waiting.process.kill()
    waiting.process.wait()
    unknown = run_cli(args, port, env, "analyse", "nosuchgame")
    check(unknown.returncode == 1 and unknown.stderr.strip(),
          f"an unknown game is refused: {unknown.returncode} {unknown.stderr!r}")

    game = played_game(args, port, env, *SCHOLARS_MATE)
    plain = run_cli(args, port, env, "replay", game, "--print")
    check(plain.returncode == 0 and "Nf6 " in plain.stdout and "??" not in plain.stdout,
          f"replay before the analysis shows no marks: {plain.stdout!r} {plain.stderr!r}")

    analysed = run_cli(args, port, env, "analyse", game)
    check(analysed.returncode == 0, f"analyse exits 0: {analysed.returncode} {analysed.stderr!r}")
    out = analysed.stdout
    check(re.search(r"(queued|analysing)", analysed.stderr),
          f"the progress is shown: {analysed.stderr!r}")
    check("3. Bc4" in out and "Nf6?? (#1)" in out,
          f"the blunder is marked with the mate it allows: {out!r}")
    check("4. Qxf7#" in out and "Result: 1-0 (checkmate)" in out, f"the game: {out!r}")
    check(re.search(r"^1\. e4[^ ]* \([-+]?\d+\.\d\) e5", out, re.M),
          f"moves in pairs with evaluations: {out!r}")
    # At 2000 nodes the engine's verdict on 2. Qh5 varies; Nf6?? is a blunder at any depth.
    check(re.search(r"^Accuracy: Ana \(white\) \d+\.\d%: \d+ inaccurac(y|ies), \d+ mistakes?, "
                    r"\d+ blunders?$", out, re.M)
          and re.search(r"^Accuracy: Bo \(black\) \d+\.\d%: .*[1-9]\d* blunders?$", out, re.M),
          f"each side's accuracy and counts: {out!r}")
    check("stockfish" in out, f"the engine is named: {out!r}")

    again = run_cli(args, port, env, "replay", game, "--print")
    check(again.returncode == 0 and "Nf6?? (#1)" in again.stdout and "Accuracy: Bo" in again.stdout,
          f"replay shows the analysis once it exists: {again.stdout!r} {again.stderr!r}")
    pgn = run_cli(args, port, env, "replay", game, "--pgn")
    check(pgn.returncode == 0 and "[Result \"1-0\"]" in pgn.stdout and "??" not in pgn.stdout,
          f"--pgn stays PGN: {pgn.stdout!r}")


def run_busy(args, port, workdir):
    env = environment(workdir)
    # Fool's mate, three times: games that end by themselves.
    games = [played_game(args, port, env, ["f2f3", "g2g4"], ["e7e5", "d8h4"]) for _ in range(3)]
    first = Process("first", cli_command(args, port) + ["analyse", games[0]], env)
    wait_for_note(first, "analysing ", 20)  # running: the queue is free again
    second = Process("second", cli_command(args, port) + ["analyse", games[1]], env)
    wait_for_note(second, "analys", 20)
    busy = run_cli(args, port, env, "analyse", games[2])
    check(busy.returncode == 1 and re.search(
        rf"try again in \d+ seconds? \(arbiter-cli analyse {games[2]}\)", busy.stderr),
        f"a full queue says when to try again: {busy.returncode} {busy.stderr!r}")
    for process in (first, second):
        process.process.send_signal(signal.SIGTERM)
        check(process.finish() == 130, f"{process.name}: an interrupted analyse exits 130",
              process)
        check("the analysis goes on at the server" in process.stderr_text(),
              "an interrupted analyse says how to see it", process)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--cli", required=True)
    args = parser.parse_args()
    if not os.path.exists(STOCKFISH):
        print(f"skipped: no {STOCKFISH}")
        sys.exit(77)
    engine = ["--engine", f"stockfish={STOCKFISH}"]
    with_server(args.server, "arbiter-cli-analyse-",
                lambda port, workdir: run_analysis(args, port, workdir),
                engine + ["--analysis-nodes", "2000"])
    with_server(args.server, "arbiter-cli-analyse-busy-",
                lambda port, workdir: run_busy(args, port, workdir),
                engine + ["--analysis-nodes", "0", "--analysis-movetime-ms", "2000",
                          "--max-analysis-queue", "1"])
    print("ok: analyse")


if __name__ == "__main__":
    main()
