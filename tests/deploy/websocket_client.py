"""A minimal WebSocket client (RFC 6455) on the standard library, for the gateway test: the
handshake, one masked text message (the viewer's hello) and reading whole messages. Just enough to
see where the gateway sends a browser viewer's socket, without a browser or a package.
"""

import base64
import hashlib
import os
import socket
import struct

_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455, section 1.3
OPCODE_TEXT, OPCODE_BINARY, OPCODE_CLOSE = 0x1, 0x2, 0x8


class HandshakeRefused(Exception):
    """The server answered the upgrade with another HTTP status (the status and the body)."""

    def __init__(self, status, body):
        super().__init__(f"HTTP {status}: {body}")
        self.status = status
        self.body = body


class WebSocket:
    def __init__(self, host, port, path, timeout_s=30.0):
        self._sock = socket.create_connection((host, port), timeout=timeout_s)
        self._buffer = b""
        key = base64.b64encode(os.urandom(16)).decode()
        self._sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
                           .encode())
        head = self._read_until(b"\r\n\r\n").decode("latin-1")
        status = int(head.split(" ", 2)[1])
        headers = {line.split(":", 1)[0].strip().lower(): line.split(":", 1)[1].strip()
                   for line in head.split("\r\n")[1:] if ":" in line}
        if status != 101:
            body = self._buffer
            length = int(headers.get("content-length", "-1"))
            while length < 0 or len(body) < length:
                chunk = self._sock.recv(65536)
                if not chunk:
                    break
                body += chunk
            self.close()
            raise HandshakeRefused(status, body.decode("utf-8", "replace"))
        expected = base64.b64encode(hashlib.sha1((key + _GUID).encode()).digest()).decode()
        if headers.get("sec-websocket-accept") != expected:
            self.close()
            raise ConnectionError(f"bad Sec-WebSocket-Accept in {head!r}")

    def _read_until(self, marker):
        while marker not in self._buffer:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed during the handshake")
            self._buffer += chunk
        head, self._buffer = self._buffer.split(marker, 1)
        return head

    def _read_exactly(self, n):
        while len(self._buffer) < n:
            chunk = self._sock.recv(max(65536, n - len(self._buffer)))
            if not chunk:
                raise ConnectionError("connection closed mid-message")
            self._buffer += chunk
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data

    def send_text(self, text):
        payload = text.encode()
        mask = os.urandom(4)  # a client masks every frame
        header = bytes([0x80 | OPCODE_TEXT])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        else:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self._sock.sendall(header + mask + masked)

    def receive(self):
        """The next whole message: (opcode, payload); a close's payload is its code and reason."""
        opcode, message = None, b""
        while True:
            first, second = self._read_exactly(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._read_exactly(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._read_exactly(8))[0]
            payload = self._read_exactly(length)  # the server does not mask
            if opcode is None:
                opcode = first & 0x0F
            message += payload
            if first & 0x80:
                return opcode, message

    def close(self):
        self._sock.close()
