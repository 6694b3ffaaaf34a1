#!/usr/bin/env python3
"""arbiter-cli reports its think time (protocol.md, Lag compensation): in a timed game, each move
it sends carries `think_ms`, measured from the arrival of the state or move that gave the turn.
The first player talks to the server through a tap (ws_tap.py) that reads what it sends; it plays
its second move 700 ms after the turn came, which its `think_ms` must say, and the server's own
time for that move (the stored record) encloses it, with next to nothing credited on this link.

Usage: cli_think_test.py --server PATH --cli PATH
"""
import argparse
import json
import os
import tempfile
import time
import urllib.request

from cli_game_test import Process, check, is_type, start_server, stop_server
from ws_tap import WebSocketTap

THINKING_S = 0.7


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--cli", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arbiter-cli-think-") as workdir:
        server, port = start_server(args.server, workdir)
        tap = WebSocketTap(port)
        try:
            run(args, port, tap, workdir)
        finally:
            tap.close()
            stop_server(server)
    print("ok: think_ms")


def run(args, port, tap, workdir):
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(workdir, "config"), NO_COLOR="1")
    env_second = dict(env, XDG_CONFIG_HOME=os.path.join(workdir, "config-second"))
    # White's first move is typed ahead: it goes when the join gives white the turn.
    first = Process("first", [args.cli, "--server", f"ws://127.0.0.1:{tap.port}/ws", "--json",
                              "--name", "Ana", "create", "chess", "--side", "first",
                              "--clock", "1+0"], env, ["f2f3"])
    game = first.wait_for(is_type("created"), "created")["game"]
    second = Process("second", [args.cli, "--server", f"ws://127.0.0.1:{port}/ws", "--json",
                                "--name", "Bo", "join", game], env_second, ["e7e5", "d8h4"])
    first.wait_for(is_type("moved", ply=2), "black's reply")
    time.sleep(THINKING_S)
    first.write("g2g4")
    for process in (first, second):
        ended = process.wait_for(is_type("ended", game=game), "the end")
        check(ended["reason"] == "checkmate", f"{process.name} saw {ended}", process)
        check(process.finish() == 0, f"{process.name} exits 0", process)

    moves = [m for m in tap.messages() if m.get("type") == "move" and m.get("game") == game]
    check([m["ply"] for m in moves] == [0, 2], f"white sent {moves}")
    for move in moves:
        check(isinstance(move.get("think_ms"), int) and move["think_ms"] >= 0,
              f"no think_ms in {move}")
    check(moves[0]["think_ms"] < 1000, f"a move typed ahead reports {moves[0]['think_ms']} ms")
    thought = moves[1]["think_ms"]
    check(THINKING_S * 1000 <= thought < THINKING_S * 1000 + 3000,
          f"white waited {THINKING_S} s, and reported {thought} ms")

    record = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games/{game}",
                                              timeout=10))
    stored = record["moves"][2]
    check(stored["ply"] == 3, f"the third move is {stored}")
    check(stored["think_ms"] >= thought - 1,
          f"the server's {stored['think_ms']} ms for the move encloses the client's {thought} ms")
    check(0 <= stored["lag_ms"] <= 20, f"lag_ms {stored['lag_ms']} on a link without delay")
    print(f"white reported {thought} ms; the server timed {stored['think_ms']} ms and credited "
          f"{stored['lag_ms']} ms")


if __name__ == "__main__":
    main()
