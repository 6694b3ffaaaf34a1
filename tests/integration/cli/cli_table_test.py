#!/usr/bin/env python3
"""arbiter-cli at the table (issue 41, the terminal client), against a real arbiter-server
(127.0.0.1, port 0, temporary database). One user plays both seats of a game from one folder
(one token store):

- both seats' tokens are kept (they were kept per game: the seat saved last replaced the other);
- a refused move is shown with the reason the server gave, as it came: the client prints no
  reason of its own ("not a UCI move" came from the server's rules, never from the client);
- a move typed behind a move in flight is shown as queued, and dropped (and said so) when the
  move before it is refused;
- quit and Ctrl-C (here SIGTERM, which the client handles alike) say how to come back: the
  `resume` command with the seat; `resume` of a game whose two seats are stored asks which, and
  with --seat says which seat it plays.

With --chat (the contract of issue 41, served by the chat41 branch): a player's chat reaches the
opponent, a spectator's reaches the other spectators, and each is shown as `[room] name: text`.

Usage: cli_table_test.py --server PATH --cli PATH [--chat]
"""
import argparse
import json
import os
import signal
import subprocess

from cli_game_test import TIMEOUT, Process, check, is_type, wait_for_note, with_server


def note_lines(process):
    return process.stderr_text().splitlines()


def refusal_and_queue(white, game):
    # e2e5 goes at once; g1f3, typed behind it, waits for its answer.
    white.write("e2e5")
    white.write("g1f3")
    refusal = white.wait_for(is_type("error", code="illegal_move"), "the refusal of e2e5")
    wait_for_note(white, "queued moves dropped: g1f3", 10)
    lines = note_lines(white)
    check(refusal["message"] in lines,
          f"the server's reason {refusal['message']!r} is shown as it came: {lines}", white)
    check(not any("error (illegal_move)" in line for line in lines),
          "a refused move is shown by its reason alone", white)
    check(all(line == refusal["message"] for line in lines if "not a UCI move" in line),
          "the client says \"not a UCI move\" only where the server said it", white)
    # Both lines may be read before e2e5 goes: then both show as queued.
    check(any(line.startswith("queued: ") and "g1f3" in line for line in lines),
          "g1f3 was shown as queued", white)
    # The queue was dropped: the next move typed is the one played.
    white.write("e2e4")
    moved = white.wait_for(is_type("moved", game=game, ply=1), "e2e4")
    check(moved["move"] == "e2e4", f"the dropped g1f3 was not played: {moved}", white)


def run_table(args, port, workdir):
    url = f"ws://127.0.0.1:{port}/ws"
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(workdir, "config"), NO_COLOR="1")
    cli = [args.cli, "--server", url, "--json"]
    white = Process("white", cli + ["--name", "Ana", "create", "chess", "--side", "first"], env)
    game = white.wait_for(is_type("created"), "created")["game"]
    black = Process("black", cli + ["--name", "Bo", "join", game], env)
    black.wait_for(is_type("joined", game=game), "joined")
    white.wait_for(is_type("state", game=game, status="playing"), "the game in play")

    tokens = json.load(open(os.path.join(workdir, "config", "arbiter", "tokens.json")))
    seats = tokens.get(url, {}).get(game, {})
    check(sorted(seats) == ["black", "white"], f"both seats are stored: {tokens}")

    refusal_and_queue(white, game)

    white.write("quit")
    check(white.finish() == 0, "quit exits 0", white)
    resume_white = f"arbiter-cli --server {url} resume {game} --seat white"
    check(resume_white in white.stderr_text(), f"quit says {resume_white!r}", white)
    black.process.send_signal(signal.SIGTERM)
    check(black.finish() == 130, "an interrupted player exits 130", black)
    check(f"resume {game} --seat black" in black.stderr_text(),
          "Ctrl-C says how to come back to the black seat", black)

    ask = subprocess.run(cli + ["resume", game], env=env, capture_output=True, text=True,
                         timeout=TIMEOUT)
    check(ask.returncode == 1 and "--seat" in ask.stderr,
          f"resume of a game with both seats stored asks which: {ask.returncode} {ask.stderr!r}")
    back = Process("back", cli + ["resume", game, "--seat", "black"], env, ["e7e5"])
    state = back.wait_for(is_type("state", game=game), "the state after resume")
    check(state["you"] == "black", f"--seat black resumed black: {state['you']}", back)
    wait_for_note(back, f"Game {game}: you play black (resumed)", 10)
    back.wait_for(is_type("moved", game=game, ply=2), "the move after the resume")
    back.write("quit")
    check(back.finish() == 0, "quit exits 0", back)


def run_chat(args, port, workdir):
    url = f"ws://127.0.0.1:{port}/ws"
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(workdir, "config"), NO_COLOR="1")
    env_second = dict(env, XDG_CONFIG_HOME=os.path.join(workdir, "config-second"))
    cli = [args.cli, "--server", url, "--json"]
    white = Process("white", cli + ["--name", "Ana", "create", "chess"], env)
    game = white.wait_for(is_type("created"), "created")["game"]
    black = Process("black", cli + ["--name", "Bo", "join", game], env_second)
    black.wait_for(is_type("state", game=game, status="playing"), "the game in play")
    watchers = [Process(name, cli + ["--name", name, "watch", game], env) for name in ("Cy", "Di")]
    for watcher in watchers:
        watcher.wait_for(is_type("state", game=game), "the state")

    white.write("chat   good luck  ")
    message = black.wait_for(is_type("chat", game=game, room="players"), "the players' chat")
    check(message["from"] == "Ana" and message["text"] == "good luck", f"chat: {message}", black)
    wait_for_note(black, "[players] Ana: good luck", 10)
    for watcher in watchers:  # numbered like a move, but not theirs to read
        hidden = watcher.wait_for(is_type("chat", game=game, room="players"), "the event")
        check(hidden["text"] is None, f"a spectator cannot read the players' chat: {hidden}",
              watcher)

    watchers[0].write("chat nice opening")
    heard = watchers[1].wait_for(is_type("chat", game=game, room="spectators"), "spectators")
    check(heard["text"] == "nice opening", f"chat: {heard}", watchers[1])
    wait_for_note(watchers[1], "[spectators] Cy: nice opening", 10)

    # A move after the chat is no gap: every chat event counted in the seq.
    white.write("resign")
    for process in [white, black] + watchers:
        process.wait_for(is_type("ended", game=game), "the end")
        # The creator gets a state when the game is created and another when it starts; a
        # state after the first chat event would be the answer to a resync.
        messages = process.messages()
        first_chat = next(i for i, m in enumerate(messages) if m.get("type") == "chat")
        resent = [m for m in messages[first_chat:] if m.get("type") == "state"]
        check(not resent, f"{process.name} asked for the game again (a gap)", process)
        check(process.finish() == 0, f"{process.name} exits 0", process)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--cli", required=True)
    parser.add_argument("--chat", action="store_true")
    args = parser.parse_args()
    run = run_chat if args.chat else run_table
    with_server(args.server, "arbiter-cli-table-", lambda port, workdir: run(args, port, workdir))
    print("ok: " + ("chat" if args.chat else "table"))


if __name__ == "__main__":
    main()
