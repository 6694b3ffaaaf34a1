#!/usr/bin/env python3
"""arbiter-cli whose seat is taken over: a `resume` of it from another arbiter-cli (another window
or device) sends the first one `seat_lost` (protocol.md); it says so on a line of its own and exits
with status 3 (`arbiter-cli --help`, exit status), and does not resume by itself. `arbiter-cli
resume GAME` from the token store then takes the seat back the same way, and the game is played to
its end by whoever holds the seat.

Usage: cli_takeover_test.py --server PATH --cli PATH
"""
import os

from cli_game_test import Process, check, is_type, run_against_server

SEAT_TAKEN_OVER = 3
NOTICE = "This seat was taken over by another connection (resumed elsewhere)."


def check_taken_over(process, game, seat):
    lost = process.wait_for(is_type("seat_lost", game=game), "seat_lost")
    check(lost == {"type": "seat_lost", "game": game, "seat": seat,
                   "reason": "resumed_elsewhere", "you": None}, f"seat_lost: {lost}", process)
    check(process.finish() == SEAT_TAKEN_OVER,
          f"{process.name} exits {SEAT_TAKEN_OVER} once its seat is taken over", process)
    check(NOTICE in process.stderr_text(), f"{process.name} says why it left", process)
    check(not any(m.get("type") == "state" and m.get("you") == seat
                  for m in process.messages()[process.messages().index(lost):]),
          f"{process.name} did not resume by itself", process)


def run(args, port, workdir):
    cli = [args.cli, "--server", f"ws://127.0.0.1:{port}/ws", "--json"]
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(workdir, "config"), NO_COLOR="1")
    env_second = dict(env, XDG_CONFIG_HOME=os.path.join(workdir, "config-second"))
    env_elsewhere = dict(env, XDG_CONFIG_HOME=os.path.join(workdir, "config-elsewhere"))

    first = Process("first", cli + ["--name", "Ana", "create", "chess", "--side", "first"], env)
    created = first.wait_for(is_type("created"), "created")
    game = created["game"]
    # Fool's mate: the second player's moves wait for their turns.
    second = Process("second", cli + ["--name", "Bo", "join", game], env_second,
                     ["e7e5", "d8h4"])
    first.wait_for(is_type("state", game=game, status="playing"), "the game in play")

    elsewhere = Process("elsewhere", cli + ["resume", game, "--token", created["token"]],
                        env_elsewhere, ["f2f3"])
    state = elsewhere.wait_for(is_type("state", game=game), "the state of the seat taken over")
    check(state["you"] == "white", "the seat is taken over", elsewhere)
    check_taken_over(first, game, "white")
    second.wait_for(is_type("moved", game=game, ply=2), "the reply to the move played elsewhere")

    # Back in the first place, from the token store the first session filled.
    back = Process("back", cli + ["resume", game], env, ["g2g4"])
    check(back.wait_for(is_type("state", game=game), "the state")["you"] == "white",
          "the seat is taken back", back)
    check_taken_over(elsewhere, game, "white")
    for process in (back, second):
        ended = process.wait_for(is_type("ended", game=game), "the end")
        check(ended["reason"] == "checkmate", f"{process.name} saw {ended}", process)
        check(process.finish() == 0, f"{process.name} exits 0 at the end", process)


if __name__ == "__main__":
    run_against_server("takeover", run)
