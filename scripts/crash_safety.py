#!/usr/bin/env python3
"""Crash safety of arbiter-server, proven by killing it: no acknowledged move is ever lost.

Each round starts the server on the same database, checks what the previous round left behind,
runs arbiter-load --record against it, and kills the server with SIGKILL at a random moment
(`--signal term`: stops it with SIGTERM instead, as a restart under load does; the server must
then exit 0 within --stop-timeout seconds). The check after each restart:
  * every move arbiter-load saw acknowledged (a `moved` to its mover) is in the `moves` table;
  * PRAGMA integrity_check is ok, and each game's moves are plies 1..games.ply without a gap;
  * every unfinished game resumes: a `watch` gets a `state` whose moves are the stored ones.
Prints "N passed, N failed" and exits 1 on any failure.

  scripts/crash_safety.py --server build/release/bin/arbiter-server \
      --load build/release/bin/arbiter-load [--kills 20] [--games 20] [--sync full|normal] \
      [--signal kill|term]
"""

import argparse
import base64
import json
import os
import random
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time


class WebSocket:
    """The least client that talks to arbiter-server: text frames, masked, no extensions."""

    def __init__(self, port, path="/ws"):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=20)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
             f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
             "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("closed during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise ConnectionError("handshake refused: " + head.split(b"\r\n", 1)[0].decode())
        self.pending = head.split(b"\r\n\r\n", 1)[1]

    def _exact(self, count):
        while len(self.pending) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            self.pending += chunk
        data, self.pending = self.pending[:count], self.pending[count:]
        return data

    def _frame(self, opcode, payload):
        mask = os.urandom(4)
        size = len(payload)
        if size < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
        elif size < 65536:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def send(self, message):
        self._frame(0x1, json.dumps(message).encode())

    def receive(self):
        """The next text message as a dict."""
        parts = []
        while True:
            first, second = self._exact(2)
            size = second & 0x7F
            if size == 126:
                size = struct.unpack("!H", self._exact(2))[0]
            elif size == 127:
                size = struct.unpack("!Q", self._exact(8))[0]
            payload = self._exact(size)
            opcode = first & 0x0F
            if opcode == 0x8:
                raise ConnectionError("server closed the connection")
            if opcode == 0x9:
                self._frame(0xA, payload)
                continue
            if opcode in (0x0, 0x1):
                parts.append(payload)
                if first & 0x80:
                    return json.loads(b"".join(parts))

    def close(self):
        self.sock.close()


def start_server(args, db):
    command = [args.server, "--bind", "127.0.0.1", "--port", "0", "--db", db, "--sync", args.sync,
               "--rate", "1000000", "--burst", "1000000", "--log-level", "warn"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    if "listening on" not in line:
        server.kill()
        raise RuntimeError(f"server did not start: {line!r}")
    return server, int(line.rsplit(":", 1)[1])


def check(db, records, port):
    """Problems found in the database and the restarted server; empty when all is well."""
    problems = []
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        integrity = connection.execute("PRAGMA integrity_check").fetchall()
        if integrity != [("ok",)]:
            problems.append(f"integrity_check: {integrity[:5]}")
        stored = {}
        for game, ply, move in connection.execute(
                "SELECT game_id, ply, move FROM moves ORDER BY game_id, ply"):
            stored.setdefault(game, []).append((ply, move))
        headers = connection.execute("SELECT id, status, ply FROM games").fetchall()
    finally:
        connection.close()
    acknowledged = 0
    for path in records:
        with open(path) as lines:
            for line in lines:
                fields = line.split()
                if len(fields) != 3:
                    continue  # cannot happen: arbiter-load writes whole lines, then flushes
                game, ply, move = fields[0], int(fields[1]), fields[2]
                acknowledged += 1
                moves = dict(stored.get(game, []))
                if moves.get(ply) != move:
                    problems.append(f"acknowledged move lost: {game} ply {ply} {move} "
                                    f"(stored: {moves.get(ply)})")
    unfinished = []
    for game, status, ply in headers:
        plies = [p for p, _ in stored.get(game, [])]
        if plies != list(range(1, ply + 1)):
            problems.append(f"game {game}: games.ply is {ply} but the moves are plies "
                            f"{plies[:3]}..{plies[-3:]}")
        if status in ("waiting", "playing"):
            unfinished.append(game)
    ws = WebSocket(port)
    try:
        for index, game in enumerate(unfinished):
            ws.send({"type": "watch", "game": game, "id": str(index)})
            while True:
                message = ws.receive()
                if message.get("id") == str(index):
                    break
            if message.get("type") != "state":
                problems.append(f"game {game} does not resume: {message}")
            elif message["moves"] != [move for _, move in stored.get(game, [])]:
                problems.append(f"game {game}: the resumed state has {len(message['moves'])} "
                                f"moves, the database {len(stored.get(game, []))}")
            ws.send({"type": "unwatch", "game": game})
    finally:
        ws.close()
    return problems, acknowledged, len(unfinished)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", required=True)
    parser.add_argument("--load", required=True)
    parser.add_argument("--kills", type=int, default=20,
                        help="rounds: each ends with a kill (or a stop, with --signal term)")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--variant", default="mixed")
    parser.add_argument("--sync", default="full", choices=["full", "normal"])
    parser.add_argument("--min-run", type=float, default=0.5, help="seconds before a kill, least")
    parser.add_argument("--max-run", type=float, default=3.0, help="seconds before a kill, most")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the database and records")
    parser.add_argument("--signal", default="kill", choices=["kill", "term"],
                        help="SIGKILL (a crash) or SIGTERM (a clean stop under load)")
    parser.add_argument("--stop-timeout", type=float, default=30.0,
                        help="with --signal term: seconds the server may take to exit")
    args = parser.parse_args()
    chooser = random.Random(args.seed)
    what = "kill" if args.signal == "kill" else "stop"
    workdir = tempfile.mkdtemp(prefix="arbiter-crash-")
    db = os.path.join(workdir, "arbiter.db")
    records = []
    passed = failed = 0
    server, port = start_server(args, db)
    try:
        for round_number in range(1, args.kills + 1):
            record = os.path.join(workdir, f"acknowledged-{round_number}.txt")
            records.append(record)
            load = subprocess.Popen(
                [args.load, "--url", f"ws://127.0.0.1:{port}/ws", "--games", str(args.games),
                 "--variant", args.variant, "--warmup", "0", "--duration", "600",
                 "--record", record],
                stdout=subprocess.DEVNULL)
            time.sleep(chooser.uniform(args.min_run, args.max_run))
            stop_problems = []
            if args.signal == "kill":
                server.send_signal(signal.SIGKILL)
                server.wait()
            else:
                asked = time.monotonic()
                server.send_signal(signal.SIGTERM)
                try:
                    code = server.wait(timeout=args.stop_timeout)
                    stopping = time.monotonic() - asked
                    if code != 0:
                        stop_problems.append(f"SIGTERM: the server exited with {code}")
                except subprocess.TimeoutExpired:
                    stopping = args.stop_timeout
                    stop_problems.append(f"SIGTERM: the server did not exit within "
                                         f"{args.stop_timeout} s")
                    server.kill()
                    server.wait()
            try:
                load.wait(timeout=60)
            except subprocess.TimeoutExpired:
                load.kill()
                load.wait()
            server, port = start_server(args, db)
            problems, acknowledged, unfinished = check(db, records, port)
            problems = stop_problems + problems
            if problems:
                failed += 1
                print(f"{what} {round_number}: FAILED ({len(problems)} problems)")
                for problem in problems[:10]:
                    print("  " + problem)
            else:
                passed += 1
                stopped = f", stopped in {stopping:.2f} s" if args.signal == "term" else ""
                print(f"{what} {round_number}: ok: {acknowledged} acknowledged moves stored, "
                      f"{unfinished} unfinished games resumed{stopped}")
            sys.stdout.flush()
    finally:
        server.kill()
        server.wait()
        if not args.keep and failed == 0:
            for name in os.listdir(workdir):
                os.remove(os.path.join(workdir, name))
            os.rmdir(workdir)
        elif failed or args.keep:
            print(f"database and records kept in {workdir}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
