#!/usr/bin/env python3
"""Writes the seed corpora in tests/fuzz/corpus/<target>/ from the repository's own data: the
perft reference positions, the client frames of tests/unit/protocol/protocol_samples.cpp and
schema/protocol.md, and real HTTP targets. Run it again after those sources change; file names
are content hashes, so re-running only adds what is new."""

import hashlib
import json
import pathlib
import re
import struct

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
REFERENCE = ROOT / "tests" / "data" / "reference"


def write(target, data):
    if isinstance(data, str):
        data = data.encode()
    folder = HERE / "corpus" / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def reference_positions(name):
    for line in (REFERENCE / name).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            yield line.split(";")[0].strip()


def positions():
    files = {"chess": "chess-perft.epd", "xiangqi": "xiangqi-perft.epd",
             "draughts": "draughts-brazilian-perft.txt"}
    for variant, name in files.items():
        target = "fuzz_position_" + variant
        write(target, "startpos")
        for index, fen in enumerate(reference_positions(name)):
            write(target, fen)
            write(target, fen + "\n" + chr(33 + index % 90) * 3)


MOVES = {
    # first byte: the fixed position (tests/fuzz/fuzz_positions.hpp), then moves split by ';'
    "chess": [b"\0e2e4;e7e5;g1f3", b"\0e4;e5;Nf3;Nc6;Bb5", b"\1O-O", b"\1e1g1;a6b5",
              b"\1O-O-O;Bxb5", b"\2b7a8n", b"\2bxa8=Q+", b"\3c5d6", b"\3cxd6",
              b"\4Rae1", b"\4Nd5;Nd4", b"\4Ncd5", b"\5O-O-O", b"\5e8c8;Qxf3",
              b"\6e7f8q", b"\6exf8=N", b"\7c8=Q", b"\0e2e5", b"\0Ke2", b"\0e2e4q"],
    "xiangqi": [b"\0h2e2;h9g7;h0g2", b"\0C2.5;H8+7;H2+3", b"\0b0c2", b"\2C+.1",
                b"\2+C.1", b"\1h1g3", b"\3a2a9", b"\4R1.2", b"\5i9i8", b"\0a0a9"],
    "draughts": [b"\0" + b"22-18;11-15;18x11", b"\0" + b"21-17;9-13", b"\1" + b"13x22x11x2",
                 b"\1" + b"13x26x16x2", b"\1" + b"13x2", b"\2" + b"7x14x23", b"\2" + b"7x23",
                 b"\3" + b"15x24", b"\4" + b"10-1", b"\5" + b"13-17", b"\0" + b"22-17"],
}


def moves():
    for variant, seeds in MOVES.items():
        for seed in seeds:
            write("fuzz_move_" + variant, seed)


def protocol():
    samples = (ROOT / "tests" / "unit" / "protocol" / "protocol_samples.cpp").read_text()
    frames = re.findall(r'R"\((.*?)\)"', samples)
    frames += re.findall(r"`(\{\"type\":[^`]*\})`", (ROOT / "schema" / "protocol.md").read_text())
    for frame in frames:
        write("fuzz_protocol", frame)


def http():
    targets = ["/", "/index.html", "/app.js", "/assets/", "/assets/style.css", "/healthz",
               "/metrics", "/api/games", "/api/games?status=ended&variant=xiangqi&limit=20",
               "/api/games?before=chess1&limit=1", "/api/games?status=running",
               "/api/games?limit=0", "/api/games/chess1", "/api/games/xiangqi1/export",
               "/api/games/draughts1/export", "/api/games/chess-2_x", "/api/games/nope",
               "/api/nothing", "/../secret.txt", "/%2e%2e/secret.txt", "/assets/../../secret.txt",
               "/a%00b", "/%zz"]
    for target in targets:
        write("fuzz_http", "GET\n" + target + "\n")
    write("fuzz_http", "HEAD\n/api/games/chess1\n")
    write("fuzz_http", 'POST\n/api/games\n{"variant":"chess"}')
    # Conditional requests (RFC 9110 13.1): header lines after the target.
    conditions = ["If-None-Match: *", 'If-None-Match: W/"17-0", "x"', 'If-None-Match: "a",W/"b"',
                  "If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT",
                  "If-Modified-Since: Sunday, 06-Nov-94 08:49:37 GMT",
                  "If-Modified-Since: Sun Nov  6 08:49:37 1994",
                  "If-Modified-Since: Fri, 31 Dec 9999 23:59:60 GMT",
                  'If-None-Match: W/"1-2"\nIf-Modified-Since: Thu, 01 Jan 1970 00:00:00 GMT']
    for target, condition in zip(["/app.js", "/", "/assets/style.css", "/index.html", "/app.js",
                                  "/assets/", "/app.js", "/api/games"], conditions):
        write("fuzz_http", "GET\n" + target + "\n" + condition + "\n")
    write("fuzz_http", "HEAD\n/app.js\nIf-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\n")
    # The stored-game reads' strong ETags: "*" names any, a wrong tag names none.
    write("fuzz_http", "GET\n/api/games/chess1\nIf-None-Match: *\n")
    write("fuzz_http", 'HEAD\n/api/games/draughts1/export\nIf-None-Match: "0123456789abcdef0123456789abcdef"\n')


def cli_view():
    """Server messages as arbiter-cli receives them: a state with a real position of each
    variant, then events; the first byte is the drawing style."""
    docs = re.findall(r"`(\{\"type\":[^`]*\})`", (ROOT / "schema" / "protocol.md").read_text())
    files = {"chess": "chess-perft.epd", "xiangqi": "xiangqi-perft.epd",
             "draughts": "draughts-brazilian-perft.txt"}
    seats = {"chess": ("white", "black"), "xiangqi": ("red", "black"),
             "draughts": ("white", "black")}
    for variant, name in files.items():
        first, second = seats[variant]
        for index, fen in enumerate(list(reference_positions(name))[:4]):
            state = {"type": "state", "game": "g1", "seq": 3, "variant": variant,
                     "status": "playing", "you": first,
                     "players": {first: {"name": "Ana", "connected": True},
                                 second: {"name": "Bo", "connected": False}},
                     "initial_position": fen, "position": fen, "moves": [], "notation": [],
                     "ply": 0, "turn": first, "legal": [], "check": False,
                     "clock": {first + "_ms": 60000, second + "_ms": 59000, "running": True},
                     "offers": [], "spectators": 1}
            lines = [json.dumps(state)] + docs[index * 3:index * 3 + 6]
            write("fuzz_cli_view", bytes([index * 5 % 16]) + "\n".join(lines).encode())
    for frame in docs:
        write("fuzz_cli_view", b"\x03" + frame.encode())


def envelopes():
    """The cluster's bus envelopes (server/cluster/envelope.hpp): version 2, a kind, then the
    fields; integers 8 bytes and lengths 4 bytes, little-endian."""
    def integer(value):
        return value.to_bytes(8, "little")

    def text(value):
        value = value.encode() if isinstance(value, str) else value
        return len(value).to_bytes(4, "little") + value

    def holder(node, incarnation, connection):
        return text(node) + integer(incarnation) + integer(connection)

    move = '{"type":"move","game":"g1","move":"e2e4","ply":0,"id":"m1"}'
    watch = '{"type":"watch","game":"g1","id":"w1"}'
    moved = '{"type":"moved","game":"g1","seq":3,"ply":1,"move":"e2e4"}'
    for message, hops in ((move, 0), (watch, 1), ('{"type":"hello"}', 0), ("not json", 0)):
        write("fuzz_envelope", b"\x02\x01" + holder("node-b", 3, 42) + text("g1") + integer(hops)
              + text("Ann") + integer(7) + text("ann") + integer(48000) + integer(1)
              + text(message))
    write("fuzz_envelope", b"\x02\x02" + text("node-b") + integer(42) + text(moved))
    write("fuzz_envelope", b"\x02\x03" + text("node-c") + integer(42) + text("g1") + integer(1)
          + text(move))
    for by_holder, code in ((1, 1000), (0, 1012)):
        write("fuzz_envelope", b"\x02\x04" + text("node-b") + holder("node-a", 3, 42)
              + integer(by_holder) + integer(code) + text("bye"))
    # The broadcasts (cluster:all): an account change with a token hash, a rating with its
    # doubles as IEEE-754 bits, a listing opened and closed, and a node's whole listings.
    token_hash = "ab" * 32
    for change, user, name, hashed in ((1, 0, "ann", ""), (2, 12, "ann", token_hash),
                                       (3, 0, "", token_hash), (4, 12, "", token_hash),
                                       (5, 12, "", "")):
        write("fuzz_envelope", b"\x02\x05" + text("node-b") + integer(change) + integer(user)
              + text(name) + text(hashed))
    real = lambda value: struct.pack("<d", value)
    write("fuzz_envelope", b"\x02\x06" + text("node-b") + integer(0) + integer(1) + integer(12)
          + real(1530.5) + real(180.25) + real(0.06) + integer(3) + integer(1700000000000))
    lobby = ('{"type":"lobby","games":[{"game":"g1","variant":"chess","status":"waiting",'
             '"players":{"white":{"name":"Ann","connected":true,"guest":true,"rating":null},'
             '"black":null},"ply":0,"created_ms":10}]}')
    write("fuzz_envelope", b"\x02\x07" + text("node-b") + text("g1") + integer(1) + text(lobby))
    write("fuzz_envelope", b"\x02\x07" + text("node-b") + text("g1") + integer(0) + text(""))
    write("fuzz_envelope", b"\x02\x08" + text("node-b") + text(lobby))


if __name__ == "__main__":
    positions()
    moves()
    protocol()
    http()
    cli_view()
    envelopes()
