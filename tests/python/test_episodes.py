"""Episodes through the Python package against a real contactsim-server: set_body_state,
reset and mark_initial_state.

Expected values come from the physics (one free-fall step of symplectic Euler from a state set
by hand) or from the session's own earlier replies (a reset episode replays them to the bit),
never from the code under test.
"""

import unittest

try:  # first: contactsim says what to install when gRPC or protobuf is missing
    import contactsim
except ImportError as error:
    raise ImportError(f"{error} (ctest needs the targets contactsim_python and "
                      "contactsim-server built)") from error
import grpc
from contactsim.v1 import scene_pb2
from server_process import ServerProcess

G_M_PER_S2 = 9.81
DT_S = 0.001
HALF_M = 0.05
ROUND_OFF = 1e-12  # a few roundings of numbers of order 1

server = None


def setUpModule():
    global server
    server = ServerProcess()


def tearDownModule():
    if server is not None:
        server.stop()


class EpisodeTest(unittest.TestCase):
    def setUp(self):
        self.client = contactsim.Client(server.address, timeout_s=60.0)
        self.addCleanup(self.client.close)
        self.session = self.client.create_session(
            "episodes", ground_planes=[contactsim.ground_plane()], dt_s=DT_S,
            stiffness_n_per_m=1e4)
        self.addCleanup(self.session.close)
        self.box = self.session.add_box(HALF_M, position_m=(0.0, 0.0, 0.2),
                                        density_kg_per_m3=1000.0, name="box")

    def test_set_body_state_of_a_rigid_body(self):
        self.session.step(5)
        self.session.set_body_state(self.box.body_id, position_m=(0.0, 0.0, 1.0),
                                    linear_velocity_m_per_s=(2.0, 0.0, 0.0))
        after = self.session.step(1).bodies[self.box.body_id]
        # One step of symplectic Euler: v += g dt, x += v dt.
        self.assertAlmostEqual(after.position_m.x, 2.0 * DT_S, delta=ROUND_OFF)
        self.assertAlmostEqual(after.position_m.z, 1.0 - G_M_PER_S2 * DT_S * DT_S,
                               delta=ROUND_OFF)
        self.assertAlmostEqual(after.linear_velocity_m_per_s.z, -G_M_PER_S2 * DT_S,
                               delta=ROUND_OFF)

    def test_a_state_read_back_sets_exactly_that_state(self):
        saved = self.session.step(30).bodies[self.box.body_id]
        later = self.session.step(20).bodies[self.box.body_id]
        self.session.step(40)
        self.session.set_body_state(self.box.body_id, saved)
        # Still in the air after 30 steps (0.2 m above the plane, ~4 mm fallen): no contact
        # history at `saved`, so the 20 steps after it replay to the bit.
        self.assertEqual(self.session.step(20).bodies[self.box.body_id], later)

    def test_set_body_state_of_a_deformable_takes_lists_and_numpy(self):
        cloth = self.session.add_cloth_grid(
            0.1, 0.1, 1, 1, position_m=(0.0, 0.0, 3.0),
            material=scene_pb2.ClothMaterial(area_density_kg_per_m2=1.0,
                                             stretch_stiffness_n_per_m=1.0))
        rest = self.session.step(1).bodies[cloth.body_id].vertex_positions_m
        # The rest shape moved to z = 2 (springs at rest length), uniform velocity: free fall.
        moved = [(p[0], p[1], 2.0) for p in rest]
        self.session.set_body_state(cloth.body_id, vertex_positions_m=moved,
                                    vertex_velocities_m_per_s=[(0.5, 0.0, 0.0)] * len(rest))
        after = self.session.step(1).bodies[cloth.body_id].vertex_positions_m
        for before, now in zip(moved, after):
            self.assertAlmostEqual(now[0], before[0] + 0.5 * DT_S, delta=ROUND_OFF)
            self.assertAlmostEqual(now[2], 2.0 - G_M_PER_S2 * DT_S * DT_S, delta=ROUND_OFF)
        try:
            import numpy
        except ImportError:
            self.fail("numpy is missing: deploy/install-deps.sh installs python3-numpy")
        self.session.set_body_state(cloth.body_id, vertex_positions_m=numpy.array(moved))
        after = self.session.step(1).bodies[cloth.body_id].vertex_positions_m
        self.assertAlmostEqual(after[0, 2], 2.0 - G_M_PER_S2 * DT_S * DT_S, delta=ROUND_OFF)

    def test_hostile_states_are_refused_naming_the_field(self):
        cases = [
            (dict(position_m=(0.0, 0.0, float("nan"))), "rigid.pose.position_m"),
            (dict(position_m=(0.0, 0.0, 1.0), orientation=(2.0, 0.0, 0.0, 0.0)),
             "rigid.pose.orientation"),
            (dict(vertex_positions_m=[(0.0, 0.0, 1.0)]), "vertices.positions_m"),
        ]
        for kwargs, field in cases:
            with self.assertRaises(contactsim.ContactSimError) as raised:
                self.session.set_body_state(self.box.body_id, **kwargs)
            self.assertEqual(raised.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
            self.assertTrue(raised.exception.message.startswith(field), raised.exception.message)
        with self.assertRaises(contactsim.ContactSimError) as raised:
            self.session.set_body_state(99, position_m=(0.0, 0.0, 1.0))
        self.assertEqual(raised.exception.code, grpc.StatusCode.NOT_FOUND)

    def test_reset_replays_the_episode_and_mark_moves_the_start(self):
        with self.assertRaises(contactsim.ContactSimError) as raised:
            self.session.reset()  # no step yet: nothing kept
        self.assertEqual(raised.exception.code, grpc.StatusCode.FAILED_PRECONDITION)
        first = self.session.step(300)  # lands on the plane
        self.assertEqual(self.session.reset(), (0, 0.0))
        self.assertEqual(self.session.step(300).bodies, first.bodies)
        self.assertEqual(self.session.mark_initial_state()[0], 300)
        after_mark = self.session.step(50).bodies
        self.session.step(10)
        self.assertEqual(self.session.reset()[0], 300)
        self.assertEqual(self.session.step(50).bodies, after_mark)
        snapshot = self.session.snapshot()
        self.session.step(7)
        self.assertEqual(self.session.reset(snapshot)[0], 350)


    def test_step_returns_only_the_parts_asked(self):
        twin = self.client.create_session(
            "episodes-twin", ground_planes=[contactsim.ground_plane()], dt_s=DT_S,
            stiffness_n_per_m=1e4)
        self.addCleanup(twin.close)
        twin.add_box(HALF_M, position_m=(0.0, 0.0, 0.2), density_kg_per_m3=1000.0, name="box")
        full = self.session.step(300)
        masked = twin.step(300, parts=("body_poses", "contact_totals"))
        box = self.box.body_id
        self.assertEqual(masked.bodies[box].position_m, full.bodies[box].position_m)
        self.assertEqual(masked.bodies[box].orientation, full.bodies[box].orientation)
        self.assertEqual(masked.bodies[box].linear_velocity_m_per_s, (0.0, 0.0, 0.0))
        self.assertEqual(masked.totals, full.totals)
        self.assertGreater(full.totals[box].contact_count, 0)  # it landed during the call
        self.assertEqual(masked.contacts, [])
        self.assertEqual(masked.diagnostics, [])
        nothing = twin.step(1, parts=())
        self.assertEqual((nothing.bodies, nothing.totals), ({}, {}))
        with self.assertRaises(ValueError):
            twin.step(1, parts=("poses",))


if __name__ == "__main__":
    unittest.main()
