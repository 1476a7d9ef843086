"""clients/python/examples/pick_and_place.py end to end against a real contactsim-server: the
1 kHz lockstep controller (6200 Step calls of one step; ~20 s on a loaded 2-core machine) must
put the part in the bin, and what it prints while holding the part must balance.

Expected values come from the URDF (link masses) and from the scene as the example's docstring
describes it (4 cm cubes of 1000 kg/m^3; the bin 12 cm square inside, its walls 7 cm high,
centred at (0, 0.4) m), not from the example's output."""

import os
import re
import subprocess
import sys
import unittest
import xml.etree.ElementTree as ElementTree

try:  # first: contactsim says what to install when gRPC or protobuf is missing
    import contactsim  # noqa: F401
except ImportError as error:
    raise ImportError(f"{error} (ctest needs the targets contactsim_python and "
                      "contactsim-server built)") from error
from server_process import ServerProcess

EXAMPLES_DIR = os.environ.get("CONTACTSIM_EXAMPLES_DIR", "")
SOURCE_DIR = os.environ.get("CONTACTSIM_SOURCE_DIR", "")
ARM_URDF = os.path.join(SOURCE_DIR, "scenes", "robots", "six_axis_arm.urdf")
RUN_TIMEOUT_S = 600.0  # ~20 s alone; a CI machine running other tests may be much slower
G_M_PER_S2 = 9.81
PART_KG = 1000.0 * 0.04 ** 3  # a 4 cm cube of 1000 kg/m^3
BIN_CENTRE_M, BIN_INNER_HALF_M, BIN_WALL_TOP_M = (0.0, 0.40), 0.06, 0.07

server = None


def setUpModule():
    global server
    if not os.path.isfile(os.path.join(EXAMPLES_DIR, "pick_and_place.py")):
        raise RuntimeError(f"CONTACTSIM_EXAMPLES_DIR={EXAMPLES_DIR!r} has no pick_and_place.py")
    server = ServerProcess()


def tearDownModule():
    if server is not None:
        server.stop()


def summary_values(stdout):
    lines = [line for line in stdout.splitlines() if line.startswith("summary:")]
    if len(lines) != 1:
        raise AssertionError(f"expected one summary line in:\n{stdout}")
    return dict(re.findall(r"(\w+)=(\S+)", lines[0]))


class PickAndPlaceTest(unittest.TestCase):
    def run_example(self, *args):
        return subprocess.run(
            [sys.executable, os.path.join(EXAMPLES_DIR, "pick_and_place.py"), *args],
            capture_output=True, text=True, timeout=RUN_TIMEOUT_S)

    def test_the_part_lands_in_the_bin_and_the_held_part_balances(self):
        run = self.run_example("--address", server.address)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("the part is in the bin", run.stdout)
        values = summary_values(run.stdout)
        self.assertEqual(values["in_bin"], "1")
        self.assertEqual(int(values["step_calls"]), round(float(values["time_s"]) / 0.001) - 400,
                         "one Step call per 1 ms step after the 0.4 s settle")
        x, y, z = (float(v) for v in values["part_final_m"].strip("()").split(","))
        self.assertLess(abs(x - BIN_CENTRE_M[0]), BIN_INNER_HALF_M)
        self.assertLess(abs(y - BIN_CENTRE_M[1]), BIN_INNER_HALF_M)
        self.assertLess(z, BIN_WALL_TOP_M)
        self.assertLess(float(values["part_speed_m_per_s"]), 1e-3)
        # Lifted 0.15 m with the hand: the grasp did not let it slip (5 mm: the PD's sag).
        self.assertAlmostEqual(float(values["lifted_by_m"]), 0.15, delta=0.005)
        # Held still, the wrist (the fixed joint between link6 and the hand) carries the hand,
        # the fingers and the part: 2 % for what is left of the arm's motion during the hold.
        masses = {link.get("name"): float(link.find("inertial/mass").get("value"))
                  for link in ElementTree.parse(ARM_URDF).getroot().iter("link")}
        weight_n = (masses["hand"] + masses["finger_left"] + masses["finger_right"]
                    + PART_KG) * G_M_PER_S2
        self.assertAlmostEqual(float(values["wrist_force_held_n"]), weight_n,
                               delta=0.02 * weight_n)
        # One effort closes both fingers (the right one mimics the left), so each presses the
        # part with half of it: a balance of the contacts' impulses against the motor's effort
        # (1 %: the fingers still move a little with the arm during the hold).
        effort_n = float(values["gripper_effort_n"])
        self.assertGreater(effort_n, 0.0)
        for side in ("left", "right"):
            self.assertAlmostEqual(float(values[f"grip_force_{side}_n"]), effort_n / 2,
                                   delta=0.01 * effort_n / 2)
        # Progress: one line per phase with the wrist force and the grasp's impulses.
        for phase in ("approach", "descend", "close", "lift", "hold", "transfer", "lower",
                      "open", "retreat", "settle"):
            self.assertRegex(run.stdout, rf"t=\s*\d+\.\d+ s\s+{phase}\s.*wrist \|F\|=.*grasp "
                             r"impulses \(last step\): left normal")

    def test_an_unreachable_server_exits_3_and_usage_errors_exit_2(self):
        run = self.run_example("--address", "127.0.0.1:1", "--timeout-s", "5")
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        self.assertIn("UNAVAILABLE", run.stderr)
        run = self.run_example("--steps-per-call", "0")
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)


if __name__ == "__main__":
    unittest.main()
