#!/usr/bin/env python3
"""arbiter-cli against the computer, end to end through a real arbiter-server: `engines` lists the
server's welcome.engines; `create draughts --opponent builtin --level 1` starts a game at once and
the engine answers the player's move; an engine the server does not offer is refused.

Usage: cli_engine_test.py --server PATH --cli PATH
"""
import os

from cli_game_test import Process, check, is_type, run_against_server


def run(args, port, workdir):
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(workdir, "config"), NO_COLOR="1")
    cli = [args.cli, "--server", f"ws://127.0.0.1:{port}/ws", "--json"]

    engines = Process("engines", cli + ["engines"], env)
    welcome = engines.wait_for(is_type("welcome"), "welcome")
    builtin = [e for e in welcome.get("engines", []) if e.get("name") == "builtin"]
    check(builtin and "draughts" in builtin[0]["variants"], f"builtin plays draughts: {welcome}",
          engines)
    check(engines.finish() == 0, "engines exits 0", engines)

    player = Process("player", cli + ["--name", "Ana", "create", "draughts", "--side", "first",
                                      "--opponent", "builtin", "--level", "1"], env, ["22-18"])
    game = player.wait_for(is_type("created"), "created")["game"]
    state = player.wait_for(is_type("state", game=game), "state after create")
    check(state["status"] == "playing", f"a game against the computer starts at once: {state}",
          player)
    engine_seat = state["players"]["black"]
    check(engine_seat.get("engine") is True and "level 1" in engine_seat["name"],
          f"the engine takes black: {engine_seat}", player)
    player.wait_for(is_type("moved", ply=1, move="22-18"), "the player's move")
    reply = player.wait_for(is_type("moved", ply=2), "the engine's reply")
    check(reply["move"], "the engine answers with a move", player)
    player.write("quit")
    player.finish()

    refused = Process("refused", cli + ["create", "chess", "--opponent", "nosuch"], env)
    error = refused.wait_for(is_type("error"), "an error for an unknown engine")
    check(error["code"] == "engine_unavailable", f"unknown engine: {error}", refused)
    refused.process.kill()
    refused.process.wait()


if __name__ == "__main__":
    run_against_server("engine", run)
