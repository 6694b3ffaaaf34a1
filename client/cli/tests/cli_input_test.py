#!/usr/bin/env python3
"""arbiter-cli end to end with input the protocol refuses, against a real arbiter-server
(127.0.0.1, port 0, temporary database) whose frame limit is its smallest, 256 bytes.

- Text that is not UTF-8, on the command line or typed, is refused with a message; the client
  does not abort (nlohmann's dump() throws on it) and the game goes on.
- A typed move over the protocol's 64 characters is refused before it is sent.
- A typed line over 4096 bytes (a paste gone wrong) is refused as it is read, not held whole.
- A move of 64 four-byte characters is within the protocol but over this server's frame limit:
  the server closes the connection with 1009. The client reconnects once and does not send that
  move again (it used to, on every reconnect, for ever); the next typed move is played.

Usage: cli_input_test.py --server PATH --cli PATH
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tests", "integration", "cli"))
from cli_game_test import Process, check, is_type, start_server, stop_server  # noqa: E402

TOO_BIG_FOR_THE_SERVER = "\U0001F600" * 64  # 64 characters, 256 bytes of UTF-8


def start_small_server(binary, workdir):
    """A server whose frames may be 256 bytes at most, via a wrapper script adding the flag."""
    wrapper = os.path.join(workdir, "server.sh")
    with open(wrapper, "w") as script:
        script.write(f'#!/bin/sh\nexec "{binary}" --max-frame-bytes 256 "$@"\n')
    os.chmod(wrapper, 0o755)
    return start_server(wrapper, workdir)


def write_bytes(process, data):
    process.process.stdin.flush()
    process.process.stdin.buffer.write(data + b"\n")
    process.process.stdin.buffer.flush()


def run(args, port, workdir):
    url = f"ws://127.0.0.1:{port}/ws"
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(workdir, "config"), NO_COLOR="1")
    env_second = dict(env, XDG_CONFIG_HOME=os.path.join(workdir, "config-second"))
    cli = [args.cli, "--server", url, "--json"]

    bad_name = subprocess.run(
        [os.fsencode(args.cli), b"--server", url.encode(), b"--name", b"Ana\xff", b"create",
         b"chess"], env=env, capture_output=True, timeout=60)
    check(bad_name.returncode == 2 and b"not valid UTF-8" in bad_name.stderr,
          f"--name that is not UTF-8: exit {bad_name.returncode}, {bad_name.stderr!r}")

    first = Process("first", cli + ["--name", "Ana", "create", "chess", "--side", "first"], env)
    game = first.wait_for(is_type("created"), "created")["game"]
    first.wait_for(is_type("state", game=game), "state after create")
    write_bytes(first, b"f2f3\xe9")
    first.write("e" * 65)
    first.write("e" * 70000)
    first.write(TOO_BIG_FOR_THE_SERVER)
    first.write("f2f3")
    first.write("g2g4")
    second = Process("second", cli + ["--name", "Bo", "join", game], env_second, ["e7e5", "d8h4"])

    for process in (first, second):
        ended = process.wait_for(is_type("ended", game=game), "the end")
        check(ended["reason"] == "checkmate", f"{process.name} saw {ended}", process)
        check(process.finish() == 0, f"{process.name} exits 0 at the end", process)

    notes = first.stderr_text()
    check("not valid UTF-8" in notes, "the line that is not UTF-8 is refused", first)
    check("1 to 64 characters" in notes, "the over-long move is refused", first)
    check("the line is over 4096 bytes" in notes, "the over-long line is refused", first)
    check("as too large; it is not sent again" in notes, "the too-large move is dropped", first)
    check(notes.count("reconnected") == 1, "one reconnect, not one per re-sent move", first)
    away = [m for m in second.messages()
            if m.get("type") == "presence" and m.get("seat") == "white" and not m["connected"]]
    check(len(away) == 1, f"the opponent saw white leave once: {away}", second)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--cli", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arbiter-cli-input-") as workdir:
        server, port = start_small_server(args.server, workdir)
        try:
            run(args, port, workdir)
        finally:
            stop_server(server)
    print("ok: input")


if __name__ == "__main__":
    main()
