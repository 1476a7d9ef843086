"""`pip install clients/python` into a fresh virtual environment, then a step from that install.

The environment is made as docs/python.md says: Debian's /usr/bin/python3 (the interpreter ctest
runs this test with) `-m venv --system-site-packages`, `pip install --no-build-isolation`; here
also `--no-index`, so the install proves it needs nothing from a package index. The package's
build step generates the stubs from proto/ (setup.py). The sources are copied to a temporary
tree laid out like the repository, so the in-tree build leaves nothing in the checkout.
The venv's interpreter then runs a client without PYTHONPATH against the real server: a 1 kg box
resting on the ground for 100 steps, whose contact impulse must balance gravity's m g T.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

from server_process import ServerProcess

SOURCE_DIR = os.environ.get("CONTACTSIM_SOURCE_DIR", "")
INSTALL_TIMEOUT_S = 300  # venv + pip on a loaded 2-core machine; a few seconds when idle

CLIENT_SCRIPT = textwrap.dedent("""
    import sys
    import contactsim
    import numpy as np
    assert contactsim.__file__.startswith(sys.prefix), contactsim.__file__
    G, HALF, K, STEPS, DT = 9.81, 0.05, 1e4, 100, 0.001
    mass = 1000.0 * (2 * HALF) ** 3
    depth = mass * G / (4 * K)  # resting penetration of the 4 bottom corners
    with contactsim.Client(sys.argv[1], timeout_s=60) as client:
        with client.create_session("pip", ground_planes=[contactsim.ground_plane()],
                                   stiffness_n_per_m=K, dt_s=DT) as session:
            box = session.add_box(HALF, position_m=(0, 0, HALF - depth))
            result = session.step(STEPS)
            state = result.bodies[box.body_id]
            impulse = np.asarray(result.totals[box.body_id].impulse_ns)
            # momentum balance over the call: J + m g T = m v
            print(impulse[2], mass * G * STEPS * DT, mass * state.linear_velocity_m_per_s[2])
            balance = impulse[2] - mass * G * STEPS * DT - mass * state.linear_velocity_m_per_s[2]
            print("balance", balance)
            # 1e-6 N s: round-off of 100 steps' sums, far below the 0.98 N s of weight
            sys.exit(0 if abs(balance) < 1e-6 and impulse[2] > 0.5 else 1)
""")


class PipInstallTest(unittest.TestCase):
    def setUp(self):
        if not os.path.isfile(os.path.join(SOURCE_DIR, "clients", "python", "setup.py")):
            self.fail(f"CONTACTSIM_SOURCE_DIR={SOURCE_DIR!r} is not the repository (ctest sets it)")
        self.work = tempfile.mkdtemp(prefix="contactsim-pip-")
        self.addCleanup(shutil.rmtree, self.work, True)
        self.server = ServerProcess()
        self.addCleanup(self.server.stop)

    def run_checked(self, command, **kwargs):
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=INSTALL_TIMEOUT_S, **kwargs)
        self.assertEqual(done.returncode, 0, f"{' '.join(command)}:\n{done.stdout}")
        return done.stdout

    def test_install_into_fresh_venv_and_step(self):
        tree = os.path.join(self.work, "repo")
        shutil.copytree(os.path.join(SOURCE_DIR, "proto"), os.path.join(tree, "proto"))
        shutil.copytree(os.path.join(SOURCE_DIR, "clients", "python"),
                        os.path.join(tree, "clients", "python"),
                        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        venv = os.path.join(self.work, "venv")
        self.run_checked([sys.executable, "-m", "venv", "--system-site-packages", venv])
        python = os.path.join(venv, "bin", "python")
        environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        self.run_checked([python, "-m", "pip", "install", "--no-index", "--no-build-isolation",
                          os.path.join(tree, "clients", "python")], env=environment)
        output = self.run_checked([python, "-c", CLIENT_SCRIPT, self.server.address],
                                  env=environment, cwd=self.work)
        self.assertIn("balance", output)


if __name__ == "__main__":
    unittest.main()
