#!/usr/bin/env python3
"""A UCI engine that misbehaves on purpose, for the engine failure tests.

    fake_uci.py MODE

MODE is what it does when asked to move: `illegal` (answers a1a1), `hang` (never answers),
`crash` (exits), `none` (answers "bestmove (none)"), `silent` (never finishes the handshake).
`opening-MODE` first plays a legal opening move (e2e4 as white, g8f6 as black, both always
legal in the first two plies), then behaves as MODE.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "illegal"
moves = []


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


for raw in sys.stdin:
    line = raw.strip()
    if line == "uci":
        if mode == "silent":
            continue
        say("id name Fake " + mode)
        say("option name Skill Level type spin default 20 min 0 max 20")
        say("uciok")
    elif line == "isready":
        say("readyok")
    elif line.startswith("position"):
        moves = line.split(" moves ", 1)[1].split() if " moves " in line else []
    elif line.startswith("go"):
        behaviour = mode
        if mode.startswith("opening-"):
            if len(moves) < 2:
                say("bestmove " + ("e2e4" if not moves else "g8f6"))
                continue
            behaviour = mode[len("opening-"):]
        if behaviour == "illegal":
            say("bestmove a1a1")
        elif behaviour == "crash":
            sys.exit(3)
        elif behaviour == "none":
            say("bestmove (none)")
        # hang: say nothing
    elif line == "quit":
        break
