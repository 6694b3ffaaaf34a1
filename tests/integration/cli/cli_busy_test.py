#!/usr/bin/env python3
"""arbiter-cli against a busy server: a proxy in front of a real arbiter-server answers the first
`watch` and the first `resume` it sees as the server does when too many reads of stored games
wait (error `unavailable`), and forwards everything else both ways. The spectator and the player
who comes back must ask again by themselves and follow the game to its end; the player keeps
the seat.

Usage: cli_busy_test.py --server PATH --cli PATH
"""
import json
import os
import signal
import socket
import struct
import threading

from cli_game_test import Process, check, is_type, run_against_server

BUSY = {"type": "error", "code": "unavailable",
        "message": "the server is busy reading stored games; try again shortly"}


def read_exactly(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def read_frame(sock):
    """(raw bytes of one WebSocket frame, its opcode, its unmasked payload)."""
    head = read_exactly(sock, 2)
    length = head[1] & 0x7F
    extended = b""
    if length == 126:
        extended = read_exactly(sock, 2)
        length = struct.unpack("!H", extended)[0]
    elif length == 127:
        extended = read_exactly(sock, 8)
        length = struct.unpack("!Q", extended)[0]
    mask = read_exactly(sock, 4) if head[1] & 0x80 else b""
    payload = read_exactly(sock, length)
    plain = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if mask else payload
    return head + extended + mask + payload, head[0] & 0x0F, plain


def text_frame(text):
    data = text.encode()
    if len(data) < 126:
        return bytes([0x81, len(data)]) + data
    return bytes([0x81, 126]) + struct.pack("!H", len(data)) + data


def read_http_head(sock):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(1)
        if not chunk:
            raise ConnectionError("closed during the handshake")
        data += chunk
    return data


class BusyProxy:
    """Listens on 127.0.0.1; refuses the first request of each type in `refuse_once`."""

    def __init__(self, server_port, refuse_once):
        self.server_port = server_port
        self.left = set(refuse_once)
        self.refused = []
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            client, _ = self.listener.accept()
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client):
        upstream = socket.create_connection(("127.0.0.1", self.server_port))
        client_lock = threading.Lock()
        try:
            upstream.sendall(read_http_head(client))
            client.sendall(read_http_head(upstream))
            threading.Thread(target=self._downstream, args=(upstream, client, client_lock),
                             daemon=True).start()
            while True:
                raw, opcode, payload = read_frame(client)
                if opcode == 1 and self._refuse(payload):
                    with client_lock:
                        client.sendall(text_frame(json.dumps(BUSY)))
                    continue
                upstream.sendall(raw)
        except (ConnectionError, OSError):
            pass
        finally:
            client.close()
            upstream.close()

    def _downstream(self, upstream, client, client_lock):
        try:
            while True:
                raw, _, _ = read_frame(upstream)
                with client_lock:
                    client.sendall(raw)
        except (ConnectionError, OSError):
            client.close()

    def _refuse(self, payload):
        kind = json.loads(payload).get("type")
        with self.lock:
            if kind in self.left:
                self.left.discard(kind)
                self.refused.append(kind)
                return True
        return False


def run(args, port, workdir):
    proxy = BusyProxy(port, {"watch", "resume"})
    direct = [args.cli, "--server", f"ws://127.0.0.1:{port}/ws", "--json"]
    busy = [args.cli, "--server", f"ws://127.0.0.1:{proxy.port}/ws", "--json"]
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(workdir, "config"), NO_COLOR="1")
    env_second = dict(env, XDG_CONFIG_HOME=os.path.join(workdir, "config-second"))

    first = Process("first", direct + ["--name", "Ana", "create", "chess", "--side", "first"], env, ["f2f3"])
    created = first.wait_for(is_type("created"), "created")
    game = created["game"]
    spectator = Process("spectator", busy + ["watch", game], env)
    spectator.wait_for(is_type("error", code="unavailable"), "the busy refusal")
    spectator.wait_for(is_type("state", game=game), "a state once asked again")
    second = Process("second", direct + ["--name", "Bo", "join", game], env_second, ["e7e5"])
    second.wait_for(is_type("joined", game=game), "joined")
    spectator.wait_for(is_type("moved", ply=2), "the second move")

    first.process.send_signal(signal.SIGTERM)
    check(first.finish() == 130, "an interrupted player exits with 130", first)
    resumed = Process("resumed", busy + ["resume", game, "--token", created["token"]], env, ["g2g4"])
    resumed.wait_for(is_type("error", code="unavailable"), "the busy refusal")
    state = resumed.wait_for(is_type("state", game=game), "a state once asked again")
    check(state["you"] == "white", "the seat is still the player's", resumed)
    second.write("d8h4")
    for process in (resumed, second, spectator):
        ended = process.wait_for(is_type("ended", game=game), "the end")
        check(ended["reason"] == "checkmate", f"{process.name} saw {ended}", process)
        check(process.finish() == 0, f"{process.name} exits 0 at the end", process)
    check(sorted(proxy.refused) == ["resume", "watch"], f"refused {proxy.refused}")


if __name__ == "__main__":
    run_against_server("busy", run)
