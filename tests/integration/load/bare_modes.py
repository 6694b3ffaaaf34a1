#!/usr/bin/env python3
"""arbiter-load's bare servers (the baselines moves/s is judged by), each started in the tool's
own process.

--echo: every frame comes back to its sender. --relay: every frame comes back to its sender and
to the other player of its pair, a move's messages with nothing else. Each mode must hold all its
connections, count round trips without errors, and the relay must reach the opponents too.
Usage: bare_modes.py ARBITER_LOAD
"""
import json
import subprocess
import sys


def run(load, mode):
    out = subprocess.run([load, mode, "--games", "6", "--threads", "2", "--duration", "1",
                          "--warmup", "0.3", "--json"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    load = sys.argv[1]
    failures = []
    for mode in ("--echo", "--relay"):
        summary = run(load, mode)
        name = mode[2:]
        if summary["mode"] != name:
            failures.append(f"{name}: reported mode {summary['mode']}")
        if summary["held"] != 12 or summary["connections"] != 12:
            failures.append(f"{name}: held {summary['held']} of {summary['connections']}")
        if summary["round_trips"] <= 0:
            failures.append(f"{name}: no round trips")
        if summary["errors"] or summary["closes"]:
            failures.append(f"{name}: errors {summary['errors']}, closes {summary['closes']}")
        reached_opponent = summary["opponent_ms"][0] > 0
        if reached_opponent != (name == "relay"):
            failures.append(f"{name}: latency to the opponent {summary['opponent_ms']}")
        print(f"{name}: {summary['round_trips']} round trips, {summary['per_second']:.0f}/s")
    for failure in failures:
        print("FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
