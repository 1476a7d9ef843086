"""The Python examples (clients/python/examples) end to end against a real contactsim-server:
run as subprocesses, checked on exit codes, printed summaries and the files they write."""

import csv
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

try:  # first: contactsim says what to install when gRPC or protobuf is missing
    import contactsim
except ImportError as error:
    raise ImportError(f"{error} (ctest needs the targets contactsim_python and "
                      "contactsim-server built)") from error
from server_process import ServerProcess

EXAMPLES_DIR = os.environ.get("CONTACTSIM_EXAMPLES_DIR", "")
HERE = os.path.dirname(os.path.abspath(__file__))
RUN_TIMEOUT_S = 300.0  # a 3 s simulation is ~300 Step calls: seconds, but the machine may be loaded
G_M_PER_S2 = 9.81
MASS_KG = 1.0  # pd_push's 0.1 m cube of 1000 kg/m^3

server = None


def setUpModule():
    global server
    if not os.path.isfile(os.path.join(EXAMPLES_DIR, "pd_push.py")):
        raise RuntimeError(f"CONTACTSIM_EXAMPLES_DIR={EXAMPLES_DIR!r} has no pd_push.py")
    server = ServerProcess()


def tearDownModule():
    if server is not None:
        server.stop()


def run_example(script, *args, extra_pythonpath=None):
    env = dict(os.environ)
    if extra_pythonpath:
        env["PYTHONPATH"] = extra_pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, os.path.join(EXAMPLES_DIR, script), *args],
                          capture_output=True, text=True, timeout=RUN_TIMEOUT_S, env=env)


def summary_values(stdout):
    """The `key=value` pairs of the line starting with "summary:"."""
    lines = [line for line in stdout.splitlines() if line.startswith("summary:")]
    if len(lines) != 1:
        raise AssertionError(f"expected one summary line in:\n{stdout}")
    return dict(re.findall(r"(\w+)=(\S+)", lines[0]))


def read_csv(path):
    with open(path, newline="") as file:
        return list(csv.DictReader(file))


class PdPushTest(unittest.TestCase):
    def test_pushes_the_box_to_the_target(self):
        target_m, kp, mu_static = 0.3, 200.0, 0.3
        run = run_example("pd_push.py", "--server", server.address, "--target-x-m", str(target_m),
                          "--kp", str(kp), "--mu-static", str(mu_static), "--print-every", "25")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        values = summary_values(run.stdout)
        # At rest the PD force kp e is held by static friction, at most mu_s m g, so the box
        # stops within mu_s m g / kp = 1.5 cm of the target; 2 mm more for "at rest" meaning
        # below 1 mm/s and the friction springs' stretch.
        tolerance_m = mu_static * MASS_KG * G_M_PER_S2 / kp + 0.002
        self.assertLess(abs(float(values["final_x_m"]) - target_m), tolerance_m, run.stdout)
        self.assertLess(abs(float(values["final_v_m_per_s"])), 1e-3)
        # Its support force, from the contact totals, is its weight (2 %: the box rocks and
        # bobs a little on its penalty springs while pushed).
        self.assertAlmostEqual(float(values["mean_normal_force_n"]), MASS_KG * G_M_PER_S2,
                               delta=0.02 * MASS_KG * G_M_PER_S2)
        # Per-period lines show the four bottom corners in contact.
        self.assertRegex(run.stdout, r"t=\s*0\.\d+ s .* pairs=4 ")
        self.assertIn("reached", run.stdout)

    def test_unreachable_server_exits_3_with_the_code(self):
        run = run_example("pd_push.py", "--server", "127.0.0.1:1", "--timeout-s", "30")
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        self.assertIn("UNAVAILABLE", run.stderr)

    def test_usage_error_exits_2(self):
        run = run_example("pd_push.py", "--kp", "-1")
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)


class PourTest(unittest.TestCase):
    def test_pours_random_hulls_into_the_container_of_five_hulls(self):
        run = run_example("pour.py", "--address", server.address, "--bodies", "6",
                          "--duration-s", "1.5", "--dt-ms", "4")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        values = summary_values(run.stdout)
        self.assertEqual(values["bodies"], "6")
        self.assertEqual(int(values["steps"]), 375)  # floor(1.5 s / 4 ms)
        self.assertEqual(values["escaped"], "0")
        # Every centre above the floor's top (z = 0): the container is collided as the union of
        # its pieces (its hull would hold them on the walls' tops, 0.5 m up, or push them out).
        self.assertGreater(float(values["lowest_centre_z_m"]), 0.0)
        self.assertLess(float(values["lowest_centre_z_m"]), 0.5)
        self.assertGreater(int(values["largest_lcp"]), 0)
        # One progress line per release.
        self.assertEqual(len([l for l in run.stdout.splitlines() if l.startswith("t=")]), 6)

    def test_the_default_pour_runs_to_the_end(self):
        # The example's defaults (20 bodies, 5 s, h = 4 ms, seed 1): step 912 once diverged (an
        # exact LCP answer that created 15 J, docs/rigid_lcp.md "Energy"), which the step's
        # energy test now refuses. ~10 s.
        run = run_example("pour.py", "--address", server.address)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        values = summary_values(run.stdout)
        self.assertEqual(values["bodies"], "20")
        self.assertEqual(int(values["steps"]), 1250)  # floor(5 s / 4 ms)
        self.assertEqual(values["escaped"], "0")
        self.assertGreater(float(values["lowest_centre_z_m"]), 0.0)

    def test_usage_error_exits_2(self):
        run = run_example("pour.py", "--bodies", "0")
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)


class PlotContactsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="contactsim_plot_")
        self.addCleanup(self.tmp.cleanup)
        self.csv_path = os.path.join(self.tmp.name, "forces.csv")
        self.png_path = os.path.join(self.tmp.name, "forces.png")

    def check_resting_weight(self, rows):
        """Frames after a step carry the box's support force: its weight on average (3 %: the
        per-step force of the penalty contact varies a little as the box rocks)."""
        stepped = [row for row in rows if int(row["step_count"]) > 0]
        self.assertGreater(len(stepped), 0)
        normal = [float(row["normal_force_n"]) for row in stepped]
        self.assertTrue(all(force > 0.0 for force in normal), normal[:10])
        self.assertAlmostEqual(sum(normal) / len(normal), MASS_KG * G_M_PER_S2,
                               delta=0.03 * MASS_KG * G_M_PER_S2)

    def test_demo_writes_csv_and_plot(self):
        run = run_example("plot_contacts.py", "--demo", "--server", server.address,
                          "--csv", self.csv_path, "--png", self.png_path)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        rows = read_csv(self.csv_path)
        self.assertGreater(len(rows), 0)
        self.assertEqual(int(summary_values(run.stdout)["frames"]), len(rows))
        self.check_resting_weight(rows)
        # Pushing slides the box: dynamic friction shows up while it moves.
        self.assertGreater(max(float(row["friction_force_n"]) for row in rows), 0.1)
        with open(self.png_path, "rb") as file:
            self.assertEqual(file.read(8), b"\x89PNG\r\n\x1a\n")

    def test_without_matplotlib_writes_csv_and_says_how_to_plot(self):
        run = run_example("plot_contacts.py", "--demo", "--server", server.address,
                          "--csv", self.csv_path, "--png", self.png_path,
                          extra_pythonpath=os.path.join(HERE, "no_matplotlib"))
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("python3-matplotlib", run.stderr)
        self.assertGreater(len(read_csv(self.csv_path)), 0)
        self.assertFalse(os.path.exists(self.png_path))

    def test_watches_a_session_by_id_and_viewer_token(self):
        with contactsim.Client(server.address, timeout_s=60.0) as client:
            stiffness_n_per_m = 1e4
            with client.create_session("watched", ground_planes=[contactsim.ground_plane()],
                                       stiffness_n_per_m=stiffness_n_per_m) as session:
                depth_m = MASS_KG * G_M_PER_S2 / (4 * stiffness_n_per_m)
                session.add_box(0.05, position_m=(0.0, 0.0, 0.05 - depth_m))
                viewer = subprocess.Popen(
                    [sys.executable, os.path.join(EXAMPLES_DIR, "plot_contacts.py"),
                     session.id, "--token", session.viewer_token, "--server", server.address,
                     "--frames", "20", "--csv", self.csv_path, "--png", self.png_path],
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                # The viewer says when its stream delivered the first frame (the newest one);
                # from then on each Step publishes a frame: step until it has 20 and exits.
                output = ""
                for line in viewer.stdout:
                    output += line
                    if line.startswith("watching session"):
                        break
                deadline = time.monotonic() + RUN_TIMEOUT_S
                while viewer.poll() is None and time.monotonic() < deadline:
                    session.step(10)
                if viewer.poll() is None:
                    viewer.kill()
                output += viewer.communicate()[0]
        self.assertEqual(viewer.returncode, 0, output)
        rows = read_csv(self.csv_path)
        self.assertEqual(len(rows), 20)
        self.check_resting_weight(rows)

    def test_wrong_token_exits_3_with_the_code(self):
        with contactsim.Client(server.address, timeout_s=60.0) as client:
            with client.create_session("guarded") as session:
                run = run_example("plot_contacts.py", session.id, "--token", "f" * 32,
                                  "--server", server.address, "--csv", self.csv_path)
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        self.assertIn("UNAUTHENTICATED", run.stderr)


if __name__ == "__main__":
    unittest.main()
