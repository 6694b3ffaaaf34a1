#!/usr/bin/env python3
"""The standard arbiter-load set of issue 9, printed against its targets.

Starts Release servers on temporary databases (synchronous FULL and NORMAL) and runs:
  1. echo: the bare Beast echo server at the same connection count (the machine's baseline);
  2. moves as fast as the server answers, per sync mode: durable round trips/s vs echo;
  3. the same capped at half that rate: p99 move latency;
  4. idle games holding connections: server RSS per connection;
  5. players at half rate with and without stalled spectators: the p99 ratio, and whether the
     stalled ones get closed.

  scripts/load_report.py [--bin build/release/bin] [--short]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile


def start_server(bin_dir, workdir, sync, name):
    db = os.path.join(workdir, name + ".db")
    server = subprocess.Popen(
        [os.path.join(bin_dir, "arbiter-server"), "--bind", "127.0.0.1", "--port", "0", "--db", db,
         "--sync", sync, "--rate", "1000000", "--burst", "1000000", "--log-level", "error"],
        stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    if "listening on" not in line:
        server.kill()
        sys.exit(f"server did not start: {line!r}")
    return server, int(line.rsplit(":", 1)[1])


def load(bin_dir, *arguments):
    command = [os.path.join(bin_dir, "arbiter-load"), "--json", *map(str, arguments)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr}")
    lines = done.stdout.strip().splitlines()
    print("\n".join("    " + line for line in lines[:-1]))
    return json.loads(lines[-1])


def verdict(ok):
    return "met" if ok else "MISSED"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default="build/release/bin")
    parser.add_argument("--short", action="store_true", help="a quick set for `make load`")
    args = parser.parse_args()
    games = 50
    seconds = 4 if args.short else 10
    idle_games = 1000 if args.short else 5000
    stalled = 200 if args.short else 1000
    workdir = tempfile.mkdtemp(prefix="arbiter-load-")
    targets = []

    print(f"== echo baseline: {games} pairs ({2 * games} connections)")
    echo = load(args.bin, "--echo", "--games", games, "--duration", seconds)
    rates = {}
    for sync in ("full", "normal"):
        server, port = start_server(args.bin, workdir, sync, "moves-" + sync)
        url = f"ws://127.0.0.1:{port}/ws"
        try:
            print(f"== moves, synchronous {sync.upper()}: {games} games, as fast as answered")
            fast = load(args.bin, "--url", url, "--games", games, "--duration", seconds,
                        "--server-pid", server.pid)
            rates[sync] = fast["per_second"]
            half = max(1.0, fast["per_second"] / 2)
            print(f"== moves, synchronous {sync.upper()}: capped at {half:.0f}/s (half the max)")
            capped = load(args.bin, "--url", url, "--games", games, "--duration", seconds,
                          "--rate", f"{half:.0f}")
        finally:
            server.kill()
            server.wait()
        ratio = fast["per_second"] / echo["per_second"]
        targets.append((f"durable round trips/s >= 0.4 x echo ({sync})",
                        f"{fast['per_second']:.0f} / {echo['per_second']:.0f} = {ratio:.2f}",
                        ratio >= 0.4))
        p99 = capped["mover_ms"][1]
        targets.append((f"p99 move latency <= 5 ms at half the max rate ({sync})",
                        f"p99 {p99:.2f} ms at {half:.0f}/s", p99 <= 5))

    server, port = start_server(args.bin, workdir, "normal", "idle")
    try:
        print(f"== idle: {idle_games} games ({2 * idle_games} connections) held")
        idle = load(args.bin, "--url", f"ws://127.0.0.1:{port}/ws", "--idle", "--games",
                    idle_games, "--duration", 3, "--warmup", 2, "--server-pid", server.pid)
    finally:
        server.kill()
        server.wait()
    per_connection = idle["kib_per_connection"]
    targets.append((f"{2 * idle_games} connections held, server RSS <= 16 KB each",
                    f"{idle['held']} held, {per_connection:.1f} KiB each",
                    idle["held"] == 2 * idle_games and per_connection <= 16))

    server, port = start_server(args.bin, workdir, "normal", "spectators")
    url = f"ws://127.0.0.1:{port}/ws"
    try:
        half = max(1.0, rates["normal"] / 2)
        # Each stalled spectator watches 10 games, so that its outgoing queue reaches the
        # server's bound (1024 messages) within the run rather than after minutes.
        crowd_seconds = max(seconds, 15)
        print(f"== players at {half:.0f}/s without spectators")
        alone = load(args.bin, "--url", url, "--games", games, "--duration", crowd_seconds,
                     "--rate", f"{half:.0f}", "--server-pid", server.pid)
        print(f"== players at {half:.0f}/s with {stalled} spectators that never read")
        crowded = load(args.bin, "--url", url, "--games", games, "--duration", crowd_seconds,
                       "--rate", f"{half:.0f}", "--stalled-spectators", stalled,
                       "--watch-games", 10, "--server-pid", server.pid)
    finally:
        server.kill()
        server.wait()
    change = crowded["mover_ms"][1] / max(alone["mover_ms"][1], 0.001)
    closed = stalled - crowded["stalled_open_after_drain"]
    targets.append((f"{stalled} stalled spectators change players' p99 < 2x",
                    f"p99 {alone['mover_ms'][1]:.2f} -> {crowded['mover_ms'][1]:.2f} ms "
                    f"({change:.2f}x)", change < 2))
    targets.append(("stalled spectators closed, server memory bounded",
                    f"{closed} of {stalled} closed; RSS peak {crowded['rss_kib']['peak'] / 1024:.0f}"
                    f" MB (without them {alone['rss_kib']['peak'] / 1024:.0f} MB)",
                    closed == stalled))
    shutil.rmtree(workdir)

    print("\n== targets (issue 9)")
    for name, figure, ok in targets:
        print(f"  {verdict(ok):6}  {name}: {figure}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
