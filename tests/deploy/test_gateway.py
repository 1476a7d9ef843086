"""Three contactsim-server replicas behind the nginx gateway (deploy/gateway/make_nginx_conf.py),
all on loopback, nginx unprivileged with its own prefix and configuration.

Checks: 30 sessions created through the gateway spread over the replicas; every call of a
session reaches its owner (controllers and viewers on separate connections; each session's
GetSession through the gateway answers with its own step count, and asked directly, only the
replica its id names knows it); the C++ CLI loads a scene and steps through the gateway;
StreamState through the gateway; the browser viewer through the gateway's viewer port: a real
WebSocket handshake to /ws?session=ID and the hello for a session on each replica gets that
session's topology and a keyframe at its own step count, the page's files come from any replica,
a hello naming another session than the URL is refused (4000), and a bare /ws named by its hello
alone still works on a direct connection; a stopped replica's sessions answer UNAVAILABLE naming the
session while the other replicas' sessions carry on; a client restores its last snapshot in a
new session on another replica and goes on bit for bit; with --state-dir, the restarted replica
serves its sessions again, with their tokens and step counts.

Exit status 77 (skip) with the reason when nginx is not installed (deploy/install-deps.sh
installs it).
"""

import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import contactsim
from server_process import ServerProcess
from websocket_client import OPCODE_BINARY, OPCODE_CLOSE, HandshakeRefused, WebSocket

REPLICAS = 3
SESSIONS = 30
HALF_M = 0.05
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAKE_CONF = os.path.join(REPO, "deploy", "gateway", "make_nginx_conf.py")
CLI = os.environ.get("CONTACTSIM_CLI", "")
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)
WAIT_S = 60.0


def free_ports(n):
    sockets = [socket.socket() for _ in range(n)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def wait_for_port(port, process):
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.05)
    return False


def push(step_index):
    return (0.0, 0.5 + 0.01 * step_index, 0.0)


def http_get(port, path):
    """(status, body) of a plain HTTP/1.0 GET on loopback."""
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as s:
        s.sendall(f"GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".encode())
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body.decode("utf-8", "replace")


def watch(port, path, session_id, viewer_token):
    """A viewer's first two messages on ws://127.0.0.1:PORT/PATH: the topology (type 1) and the
    frame (type 2) after it, as (opcode, bytes) pairs (a close ends the list early)."""
    socket_ = WebSocket("127.0.0.1", port, path)
    try:
        socket_.send_text(f"hello 1 {session_id} {viewer_token} 0 0")
        messages = []
        while len(messages) < 2:
            messages.append(socket_.receive())
            if messages[-1][0] == OPCODE_CLOSE:
                break
        return messages
    finally:
        socket_.close()


def close_code(message):
    opcode, payload = message
    return struct.unpack(">H", payload[:2])[0] if opcode == OPCODE_CLOSE else None


class GatewayTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="contactsim-gateway-")
        ports = free_ports(2 * REPLICAS + 2)
        cls.gateway_port, cls.replica_ports = ports[0], ports[1:REPLICAS + 1]
        cls.gateway_viewer_port, cls.viewer_ports = ports[REPLICAS + 1], ports[REPLICAS + 2:]
        cls.state_dirs = [os.path.join(cls.work, f"state-r{k}") for k in range(REPLICAS)]
        # Each replica's page names the replica, to see which one served it (in a deployment
        # they all serve the same page); the real page needs npm packages this test does without.
        cls.asset_dirs = [os.path.join(cls.work, f"assets-r{k}") for k in range(REPLICAS)]
        for k, assets in enumerate(cls.asset_dirs):
            os.makedirs(assets)
            for name in ("index.html", "view.html"):
                with open(os.path.join(assets, name), "w", encoding="utf-8") as f:
                    f.write(f"<!doctype html><title>{name} of replica {k}</title>\n")
        cls.replicas = [cls.start_replica(k) for k in range(REPLICAS)]
        prefix = os.path.join(cls.work, "nginx")
        for sub in ("logs", "tmp"):
            os.makedirs(os.path.join(prefix, sub))
        conf = os.path.join(prefix, "nginx.conf")
        subprocess.run([sys.executable, MAKE_CONF, "--replica-addresses",
                        ",".join(f"127.0.0.1:{p}" for p in cls.replica_ports),
                        "--listen", f"127.0.0.1:{cls.gateway_port}",
                        "--replica-viewer-addresses",
                        ",".join(f"127.0.0.1:{p}" for p in cls.viewer_ports),
                        "--viewer-listen", f"127.0.0.1:{cls.gateway_viewer_port}",
                        "-o", conf], check=True)
        # As root, nginx would switch its workers to `nobody`, who cannot write the prefix.
        directives = "daemon off;" + (" user root root;" if os.geteuid() == 0 else "")
        cls.nginx_log = open(os.path.join(prefix, "logs", "stderr"), "w")
        cls.nginx = subprocess.Popen([NGINX, "-p", prefix + "/", "-c", conf, "-g", directives],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=cls.nginx_log)
        if not wait_for_port(cls.gateway_port, cls.nginx):
            raise RuntimeError("nginx did not start: " + open(
                os.path.join(prefix, "logs", "stderr")).read())
        cls.gateway = f"127.0.0.1:{cls.gateway_port}"

    @classmethod
    def start_replica(cls, k):
        return ServerProcess(["--replica-ordinal", str(k), "--state-dir", cls.state_dirs[k],
                              "--persist-interval-s", "0.2",
                              "--viewer-listen", f"127.0.0.1:{cls.viewer_ports[k]}",
                              "--viewer-assets", cls.asset_dirs[k]],
                             listen=f"127.0.0.1:{cls.replica_ports[k]}")

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "nginx", None) is not None:
            cls.nginx.terminate()
            cls.nginx.wait(WAIT_S)
            cls.nginx_log.close()
        for replica in getattr(cls, "replicas", []):
            if replica is not None:
                replica.stop()
        shutil.rmtree(cls.work, True)

    def client(self, target=None):
        client = contactsim.Client(target or self.gateway, timeout_s=30.0)
        self.addCleanup(client.close)
        return client

    @staticmethod
    def ordinal(session_id):
        match = re.match(r"r(\d+)-[0-9a-f]{16}$", session_id)
        return int(match.group(1)) if match else None

    def test_sessions_live_on_their_replicas_and_survive_one_going_down(self):
        controllers = self.client()  # one connection for the controllers,
        viewers = self.client()  # another for the viewers
        sessions, boxes = [], []
        for i in range(SESSIONS):
            session = controllers.create_session(
                f"s{i}", ground_planes=[contactsim.ground_plane()], dt_s=0.002)
            boxes.append(session.add_box(HALF_M, position_m=(0.0, 0.0, HALF_M + 0.01),
                                         density_kg_per_m3=1000.0).body_id)
            sessions.append(session)
        owners = [self.ordinal(s.id) for s in sessions]
        self.assertNotIn(None, owners)
        for k in range(REPLICAS):
            self.assertGreater(owners.count(k), 0, f"replica {k} got no session: {owners}")

        # Each session steps its own number of times; every answer through the gateway is its own.
        for i, session in enumerate(sessions):
            for j in range(1 + i % 4):
                session.step(1, forces={boxes[i]: push(j)})
        for i, session in enumerate(sessions):
            info = viewers.session(session.id, session.viewer_token).info()
            self.assertEqual(info.session_id, session.id)
            self.assertEqual(info.name, f"s{i}")
            self.assertEqual(info.step_count, 1 + i % 4)
        # Asked directly, only the replica the id names knows the session.
        direct = [self.client(f"127.0.0.1:{p}") for p in self.replica_ports]
        for session, owner in zip(sessions[:REPLICAS * 2], owners):
            for k in range(REPLICAS):
                listed = {s.session_id for s in direct[k].list_sessions()}
                self.assertEqual(session.id in listed, k == owner, f"{session.id} on {k}")

        self.check_browser_viewers(sessions, owners)

        # The C++ client (CLI) through the gateway: a scene load, then steps.
        if CLI:
            loaded = subprocess.run([CLI, "--server", self.gateway, "load",
                                     os.path.join(REPO, "scenes", "box.textproto")],
                                    capture_output=True, text=True, timeout=WAIT_S)
            self.assertEqual(loaded.returncode, 0, loaded.stderr)
            fields = dict(line.split(": ", 1) for line in loaded.stdout.splitlines()
                          if ": " in line)
            stepped = subprocess.run([CLI, "--server", self.gateway, "step", fields["session_id"],
                                      "--token", fields["controller_token"], "--steps", "3"],
                                     capture_output=True, text=True, timeout=WAIT_S)
            self.assertEqual(stepped.returncode, 0, stepped.stderr)
            owner = self.ordinal(fields["session_id"])
            self.assertIn(fields["session_id"],
                          {s.session_id for s in direct[owner].list_sessions()})

        # StreamState through the gateway, on the viewers' connection.
        watched = sessions[0]
        stream = viewers.session(watched.id, watched.viewer_token).stream(contacts=False)
        frames = []

        def read():
            for frame in stream:
                frames.append(frame)
                if frame.step_count >= 1 + 0 % 4 + 5:
                    break

        reader = threading.Thread(target=read)
        reader.start()
        for j in range(5):
            watched.step(1, forces={boxes[0]: push(1 + j)})
        reader.join(WAIT_S)
        stream.cancel()
        self.assertFalse(reader.is_alive())
        self.assertEqual(frames[-1].step_count, 6)

        # Replica 1's last snapshot of one session, then its own steps on, recorded.
        down = 1
        mine = [i for i, o in enumerate(owners) if o == down]
        keep = mine[0]
        snapshot = sessions[keep].snapshot()
        later = [sessions[keep].step(1, forces={boxes[keep]: push(100 + j)}) for j in range(5)]
        before = {i: sessions[i].info().step_count for i in mine}

        # Replica 1 stops (SIGTERM: drains and writes its sessions).
        self.assertEqual(self.replicas[down].stop(), 0)
        # Its viewers: the gateway answers the upgrade 503 naming the session (the page retries).
        with self.assertRaises(HandshakeRefused) as refused_viewer:
            watch(self.gateway_viewer_port, f"/ws?session={sessions[keep].id}", sessions[keep].id,
                  sessions[keep].viewer_token)
        self.assertEqual(refused_viewer.exception.status, 503)
        self.assertIn(sessions[keep].id, refused_viewer.exception.body)
        for i in mine:
            with self.assertRaises(contactsim.ContactSimError) as refused:
                sessions[i].step(1)
            self.assertEqual(refused.exception.code_name, "UNAVAILABLE")
            self.assertIn(sessions[i].id, str(refused.exception))
        for i, session in enumerate(sessions):  # the others carry on
            if owners[i] != down:
                self.assertEqual(session.step(2).step_count, 1 + i % 4 + 2 + (5 if i == 0 else 0))

        # The snapshot restored in a new session (on a replica that is up) replays the same bits.
        moved = controllers.create_session("moved", dt_s=0.5)
        self.assertNotEqual(self.ordinal(moved.id), down)
        moved.restore(snapshot)
        for j, expected in enumerate(later):
            got = moved.step(1, forces={boxes[keep]: push(100 + j)})
            self.assertEqual(got.step_count, expected.step_count)
            self.assertEqual(got.bodies[boxes[keep]].position_m,
                             expected.bodies[boxes[keep]].position_m)

        # Replica 1 again, same ordinal, port and state directory: its sessions come back.
        self.replicas[down] = self.start_replica(down)
        self.assertRegex(self.replicas[down].log(),
                         rf"event=state_dir_restored .*\brestored={len(mine)}\b")
        for i in mine:
            self.assertEqual(sessions[i].info().step_count, before[i])
            self.assertEqual(sessions[i].step(1, forces={boxes[i]: push(200)}).step_count,
                             before[i] + 1)
        # Its viewers through the gateway again.
        restored = sessions[mine[0]]
        messages = watch(self.gateway_viewer_port, f"/ws?session={restored.id}", restored.id,
                         restored.viewer_token)
        self.assertEqual([m[1][0] for m in messages], [1, 2], messages)
        self.assertEqual(struct.unpack_from("<q", messages[1][1], 24)[0], before[mine[0]] + 1)

    def check_browser_viewers(self, sessions, owners):
        """The browser viewer through the gateway (HTTP + WebSocket), by the session's replica."""
        for k in range(REPLICAS):
            i = owners.index(k)
            session = sessions[i]
            messages = watch(self.gateway_viewer_port, f"/ws?session={session.id}", session.id,
                             session.viewer_token)
            # Only the owner knows the session: any other replica would close with 4004.
            self.assertEqual([(m[0], m[1][0]) for m in messages],
                             [(OPCODE_BINARY, 1), (OPCODE_BINARY, 2)],
                             f"{session.id}: {messages[:1]}")
            topology, frame = messages[0][1], messages[1][1]
            self.assertEqual(struct.unpack_from("<I", topology, 4)[0], 1)  # its one box
            self.assertEqual(frame[2] & 1, 1)  # a keyframe
            self.assertEqual(struct.unpack_from("<q", frame, 24)[0], 1 + i % 4)  # its steps
        # The URL's session and the hello's must agree (here: another replica's session).
        first, second = sessions[owners.index(0)], sessions[owners.index(1)]
        mismatched = watch(self.gateway_viewer_port, f"/ws?session={first.id}", second.id,
                           second.viewer_token)
        self.assertEqual(close_code(mismatched[-1]), 4000, mismatched)
        # A bare /ws, named by its hello alone, still works on a direct connection.
        direct = watch(self.viewer_ports[1], "/ws", second.id, second.viewer_token)
        self.assertEqual([m[1][0] for m in direct], [1, 2], direct)
        # The page's files from any replica: consecutive requests reach more than one.
        served = set()
        for _ in range(2 * REPLICAS):
            status, body = http_get(self.gateway_viewer_port, "/view")
            self.assertEqual(status, 200, body)
            served.add(re.search(r"view.html of replica (\d+)", body).group(1))
        self.assertGreater(len(served), 1, served)


if __name__ == "__main__":
    if NGINX is None:
        print("SKIP: nginx is not installed (deploy/install-deps.sh installs it)", file=sys.stderr)
        sys.exit(77)
    unittest.main()
