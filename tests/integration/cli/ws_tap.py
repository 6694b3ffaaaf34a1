"""A TCP proxy on 127.0.0.1 that forwards one WebSocket client to the server unchanged and reads
what the client sends: the text frames after the HTTP upgrade, unmasked (RFC 6455, 5.2-5.3; the
server and its clients negotiate no extension, so a frame's payload is the message). A test reads
the fields of the requests a client made, which the server's answers do not show.
"""
import json
import socket
import struct
import threading


class WebSocketTap:
    def __init__(self, target_port):
        self.target_port = target_port
        self.sent = []  # the client's text messages, parsed as JSON, in order
        self.lock = threading.Lock()
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen()
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def messages(self):
        with self.lock:
            return list(self.sent)

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            for sock in (client, upstream):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._pipe, args=(upstream, client, None), daemon=True).start()
            threading.Thread(target=self._pipe, args=(client, upstream, bytearray()),
                             daemon=True).start()

    def _pipe(self, source, sink, buffer):
        """Forwards source to sink; with a buffer, also reads the client's frames from it."""
        upgraded = False
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
                if buffer is None:
                    continue
                buffer.extend(data)
                if not upgraded:
                    end = buffer.find(b"\r\n\r\n")
                    if end < 0:
                        continue
                    del buffer[:end + 4]
                    upgraded = True
                self._read_frames(buffer)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def _read_frames(self, buffer):
        while len(buffer) >= 2:
            opcode = buffer[0] & 0x0F
            masked = buffer[1] & 0x80
            length = buffer[1] & 0x7F
            at = 2
            if length == 126:
                if len(buffer) < 4:
                    return
                length = struct.unpack(">H", buffer[2:4])[0]
                at = 4
            elif length == 127:
                if len(buffer) < 10:
                    return
                length = struct.unpack(">Q", buffer[2:10])[0]
                at = 10
            mask = buffer[at:at + 4] if masked else b"\0\0\0\0"
            at += 4 if masked else 0
            if len(buffer) < at + length:
                return
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(buffer[at:at + length]))
            del buffer[:at + length]
            if opcode == 1:  # text; the clients send each message in one frame
                try:
                    with self.lock:
                        self.sent.append(json.loads(payload))
                except ValueError:
                    pass

    def close(self):
        self.listener.close()
