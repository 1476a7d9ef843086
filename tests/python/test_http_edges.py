"""The server's two HTTP listeners (the browser viewer and /metrics, both civetweb) against
requests no browser or Prometheus sends: malformed request lines, oversized headers and paths,
unknown methods and versions, bodies that lie about their length, broken WebSocket upgrades, path
traversal, NUL and random bytes. Each must be answered with an error status or a closed
connection, the process must live through all of them, and both listeners must still serve
afterwards.

Why the real binary: civetweb writes its own error pages on small worker-thread stacks, and the
process's static TLS (the CUDA libraries') comes out of them: civetweb's own 404 page once
overflowed such a stack on the metrics port (server/metrics/http_exporter.cc, docs/gpu.md "No
cuBLAS"). Only contactsim-server as built links every library that takes from them.
"""

import os
import re
import socket
import time
import unittest

from server_process import ServerProcess

_VIEWER = re.compile(r"event=viewer_listening url=http://127\.0\.0\.1:(\d+)/")
_METRICS = re.compile(r"event=metrics_listening url=http://127\.0\.0\.1:(\d+)/metrics")
_STATUS = re.compile(rb"^(?:HTTP/\d\.\d (\d{3})|Error (\d{3}):)")

_KEY = b"dGhlIHNhbXBsZSBub25jZQ=="  # RFC 6455's example key
_UPGRADE = b"Upgrade: websocket\r\nConnection: Upgrade\r\n"

# name -> raw bytes; every one is refused (4xx/5xx) or the connection is closed.
HOSTILE = {
    "not http": b"GARBAGE\r\n\r\n",
    "header of 100 kB": b"GET / HTTP/1.1\r\nHost: x\r\nX-A: " + b"a" * 100_000 + b"\r\n\r\n",
    "unknown method": b"BREW / HTTP/1.1\r\nHost: x\r\n\r\n",
    "HTTP/9.9": b"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
    "path of 20 kB": b"GET /" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    "POST of 1 TB": b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999999\r\n\r\nabc",
    "negative length": b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\nabc",
    "broken chunks": b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZZZ\r\nabc\r\n",
    "WebSocket version 99": b"GET /ws HTTP/1.1\r\nHost: x\r\n" + _UPGRADE
    + b"Sec-WebSocket-Version: 99\r\nSec-WebSocket-Key: " + _KEY + b"\r\n\r\n",
    "WebSocket without key": b"GET /ws HTTP/1.1\r\nHost: x\r\n" + _UPGRADE
    + b"Sec-WebSocket-Version: 13\r\n\r\n",
    "WebSocket on a page's path": b"GET /index.html HTTP/1.1\r\nHost: x\r\n" + _UPGRADE
    + b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + _KEY + b"\r\n\r\n",
    "traversal": b"GET /../../../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
    "encoded traversal": b"GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
    "bad percent escapes": b"GET /%zz%00%ff HTTP/1.1\r\nHost: x\r\n\r\n",
    "NUL in the path": b"GET /\x00abc HTTP/1.1\r\nHost: x\r\n\r\n",
    "OPTIONS *": b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
    "CONNECT": b"CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: x\r\n\r\n",
    "blank lines": b"\r\n\r\n\r\n",
    "random bytes": bytes((i * 7919 + 13) % 256 for i in range(4096)),
}


def exchange(port, raw, timeout_s=5.0):
    """Sends raw bytes and returns what came back until the server closed or went quiet."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout_s) as sock:
        try:
            sock.sendall(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server refused before reading it all: what it sent still counts
        reply = b""
        while len(reply) < 1_000_000:
            try:
                data = sock.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not data:
                break
            reply += data
        return reply


def status_of(reply):
    match = _STATUS.match(reply)
    return int(match.group(1) or match.group(2)) if match else None


class HttpEdgesTest(unittest.TestCase):
    def setUp(self):
        self.server = ServerProcess(["--viewer-listen", "127.0.0.1:0",
                                     "--metrics-listen", "127.0.0.1:0"])
        self.addCleanup(self.server.stop)
        deadline = time.monotonic() + 60
        self.viewer_port = self.metrics_port = None
        while time.monotonic() < deadline and (self.viewer_port is None or self.metrics_port is None):
            log = self.server.log()
            viewer, metrics = _VIEWER.search(log), _METRICS.search(log)
            self.viewer_port = int(viewer.group(1)) if viewer else None
            self.metrics_port = int(metrics.group(1)) if metrics else None
            time.sleep(0.1)
        self.assertIsNotNone(self.viewer_port, self.server.log())
        self.assertIsNotNone(self.metrics_port, self.server.log())

    def alive(self):
        return self.server._process.poll() is None

    def check_listener(self, port, name):
        for case, raw in HOSTILE.items():
            with self.subTest(listener=name, request=case):
                reply = exchange(port, raw)
                code = status_of(reply)
                # An error status, or nothing at all (civetweb may just close the connection).
                if reply:
                    self.assertIsNotNone(code, f"{name}, {case}: no status in {reply[:120]!r}")
                    self.assertTrue(400 <= code <= 599, f"{name}, {case}: {reply[:120]!r}")
                self.assertTrue(self.alive(), f"the server died on {case!r} to the {name}:\n"
                                + self.server.log())

    def test_the_viewer_refuses_every_hostile_request_and_keeps_serving(self):
        self.check_listener(self.viewer_port, "viewer")
        page = exchange(self.viewer_port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assertEqual(status_of(page), 200, page[:200])
        self.assertIn(b"<html", page.lower())

    def test_the_metrics_listener_refuses_every_hostile_request_and_keeps_serving(self):
        self.check_listener(self.metrics_port, "metrics listener")
        unknown = exchange(self.metrics_port, b"GET /nonexistent HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assertEqual(status_of(unknown), 404, unknown[:200])
        scrape = exchange(self.metrics_port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assertEqual(status_of(scrape), 200, scrape[:200])
        self.assertIn(b"process_resident_memory_bytes", scrape)

    def tearDown(self):
        # A graceful stop after all of it: the process exits 0.
        self.assertEqual(self.server.stop(), 0, self.server.log())


if __name__ == "__main__":
    unittest.main()
