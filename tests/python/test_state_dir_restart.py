"""--state-dir with the real contactsim-server binary killed by SIGKILL mid-session.

A session steps continuously on a thread while the server is killed (no drain, no flush). A new
server on the same directory brings the session back at the last state it wrote (the same id and
tokens), and from there the session steps bit for bit like a twin built on the new server from
the same calls and stepped to the same step count: what was written is a state the session really
passed through, not a mix of two. The state files are 0600, carry no token, and no temporary file
survives the restart.
"""

import os
import shutil
import stat
import struct
import tempfile
import threading
import time
import unittest

import contactsim
from server_process import ServerProcess

HALF_M = 0.05
EVERY_STEPS = 20  # --persist-every-steps; the interval is far away, so steps alone pace writes
WAIT_S = 60.0  # for the writer thread on a loaded machine


def push(step_index):
    """The sideways force of step `step_index` [N]: different every step, so replaying the wrong
    steps shows."""
    return (0.0, 0.5 + 0.01 * step_index, 0.0)


def recorded_step_count(path):
    """The step count in a session record (server/persist/session_record.h), or None."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if data[:8] != b"CSIMSESS":
        return None
    offset = 8 + 4 + 8
    for _ in range(3):  # id, name, device
        (length,) = struct.unpack_from("<I", data, offset)
        offset += 4 + length
    offset += 64  # the two token hashes
    (steps,) = struct.unpack_from("<q", data, offset)
    return steps


class StateDirRestartTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="contactsim-state-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.args = ["--state-dir", self.dir, "--persist-interval-s", "100000",
                     "--persist-every-steps", str(EVERY_STEPS)]

    def start(self):
        server = ServerProcess(self.args)
        self.addCleanup(server.stop)
        return server

    @staticmethod
    def build(client):
        session = client.create_session("kill-test", ground_planes=[contactsim.ground_plane()],
                                        dt_s=0.002, stiffness_n_per_m=1e4)
        box = session.add_box(HALF_M, position_m=(0.0, 0.0, HALF_M + 0.01),
                              density_kg_per_m3=1000.0).body_id
        return session, box

    def test_sigkill_mid_session_then_restart(self):
        server = self.start()
        client = contactsim.Client(server.address, timeout_s=60.0)
        session, box = self.build(client)
        path = os.path.join(self.dir, session.id + ".session")

        # Step until at least one write from steps has happened, then keep stepping on a thread
        # and kill the server under it.
        taken = 0
        for _ in range(2 * EVERY_STEPS):
            session.step(1, forces={box: push(taken)})
            taken += 1
        deadline = time.monotonic() + WAIT_S
        while (recorded_step_count(path) or 0) < EVERY_STEPS and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertGreaterEqual(recorded_step_count(path) or 0, EVERY_STEPS)

        stop = threading.Event()
        counter = {"taken": taken}

        def keep_stepping():
            try:
                while not stop.is_set():
                    session.step(1, forces={box: push(counter["taken"])})
                    counter["taken"] += 1
            except contactsim.ContactSimError:
                pass  # the server went away under the call

        stepper = threading.Thread(target=keep_stepping)
        stepper.start()
        time.sleep(0.3)
        self.assertEqual(server.kill(), -9)
        stop.set()
        stepper.join(WAIT_S)
        client.close()
        self.assertGreater(counter["taken"], 2 * EVERY_STEPS, "the session kept stepping")

        mode = stat.S_IMODE(os.stat(path).st_mode)
        self.assertEqual(mode, 0o600)
        with open(path, "rb") as f:
            content = f.read()
        self.assertNotIn(session.token.encode(), content)
        self.assertNotIn(session.viewer_token.encode(), content)
        persisted = recorded_step_count(path)

        restarted = self.start()
        self.assertRegex(restarted.log(), r"event=state_dir_restored .*\brestored=1\b")
        self.assertEqual([f for f in os.listdir(self.dir) if f.endswith(".tmp")], [])
        client = contactsim.Client(restarted.address, timeout_s=60.0)
        self.addCleanup(client.close)
        restored = client.session(session.id, session.token)  # the same controller token
        info = restored.info()
        self.assertEqual(info.step_count, persisted)
        self.assertGreaterEqual(persisted, EVERY_STEPS)
        # The last call may have stepped without its reply arriving before the kill.
        self.assertLessEqual(persisted, counter["taken"] + 1)
        viewer = client.session(session.id, session.viewer_token)
        self.assertEqual(viewer.info().step_count, persisted)

        twin, twin_box = self.build(client)
        self.assertEqual(twin_box, box)
        for index in range(persisted):
            twin.step(1, forces={box: push(index)})
        for index in range(persisted, persisted + 30):
            a = restored.step(1, forces={box: push(index)})
            b = twin.step(1, forces={box: push(index)})
            self.assertEqual(a.step_count, b.step_count)
            self.assertEqual(a.bodies[box].position_m, b.bodies[box].position_m, f"step {index}")
            self.assertEqual(a.bodies[box].orientation, b.bodies[box].orientation)
            self.assertEqual(a.bodies[box].linear_velocity_m_per_s,
                             b.bodies[box].linear_velocity_m_per_s)

        # A graceful stop writes the last state: the next start comes back exactly there.
        self.assertEqual(restarted.stop(), 0)
        self.assertEqual(recorded_step_count(path), persisted + 30)


if __name__ == "__main__":
    unittest.main()
