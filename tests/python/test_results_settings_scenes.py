"""numpy results, every pipeline's settings, scene files and the viewer URL of the contactsim
package against a real contactsim-server.

The numpy arrays are checked against the reply's own repeated fields (read element by element
from the protobuf message, not through the package's conversion) and against free fall; the
settings against what GetSession reports as applied; scene files against the SceneFile parsed
by protobuf's own text_format; the viewer URL against the line the server prints for a scene it
loads at start-up."""

import os
import re
import tempfile
import unittest

import contactsim
import grpc
import numpy as np
from contactsim.v1 import scene_file_pb2, scene_pb2
from google.protobuf import text_format
from server_process import ServerProcess

G_M_PER_S2 = 9.81
SOURCE_DIR = os.environ.get("CONTACTSIM_SOURCE_DIR", "")
DATA_DIR = os.environ.get("CONTACTSIM_TEST_DATA_DIR", "")
CLOTH = scene_pb2.ClothMaterial(area_density_kg_per_m2=1.0, stretch_stiffness_n_per_m=10.0)
server = None


def setUpModule():
    global server
    # --scene: a session the server creates at start-up, whose viewer URL it prints.
    server = ServerProcess(["--viewer-listen", "127.0.0.1:0",
                            "--scene", os.path.join(SOURCE_DIR, "scenes", "box.textproto")])


def tearDownModule():
    if server is not None:
        server.stop()


class Base(unittest.TestCase):
    def setUp(self):
        self.client = contactsim.Client(server.address, timeout_s=60.0)
        self.addCleanup(self.client.close)

    def session(self, **settings):
        session = self.client.create_session("py-results", **settings)
        self.addCleanup(self.close_quietly, session)
        return session

    @staticmethod
    def close_quietly(session):
        try:
            session.close()
        except contactsim.ContactSimError:
            pass


class NumpyResultsTest(Base):
    def test_vertex_arrays_are_the_reply_and_fall_freely(self):
        session = self.session(dt_s=1e-3)
        cloth = session.add_cloth_grid(0.2, 0.2, 4, 3, position_m=(0.0, 0.0, 1.0),
                                       material=CLOTH)
        n = 10
        result = session.step(n)
        state = result.bodies[cloth.body_id]
        positions, velocities = state.vertex_positions_m, state.vertex_velocities_m_per_s
        self.assertEqual(positions.shape, (5 * 4, 3))
        self.assertEqual(positions.dtype, np.float64)
        reply = next(b for b in result.response.bodies if b.body_id == cloth.body_id)
        self.assertEqual(positions.ravel().tolist(), list(reply.positions_m))
        self.assertEqual(velocities.ravel().tolist(), list(reply.velocities_m_per_s))
        # Springs at rest length: free fall, symplectic Euler drops g dt^2 n (n + 1) / 2.
        np.testing.assert_allclose(positions[:, 2], 1.0 - G_M_PER_S2 * 1e-6 * n * (n + 1) / 2,
                                   atol=1e-12)  # round-off of 10 steps of O(1) values
        np.testing.assert_allclose(velocities[:, 2], -G_M_PER_S2 * 1e-3 * n, atol=1e-12)
        positions[0, 0] = 42.0  # writable: the caller's own copy
        self.assertEqual(result.bodies[cloth.body_id].vertex_positions_m[0, 0], 42.0)

    def test_contact_arrays_match_the_pairs_and_the_totals(self):
        session = self.session(ground_planes=[contactsim.ground_plane()],
                               stiffness_n_per_m=1e4)
        box = session.add_box(0.05, position_m=(0.0, 0.0, 0.049))
        result = session.step(1)
        arrays = result.contact_arrays
        pairs = result.contacts
        self.assertEqual(len(arrays), len(pairs))
        self.assertGreaterEqual(len(pairs), 4)  # the 4 bottom corners
        for i, pair in enumerate(pairs):
            self.assertEqual((arrays.body_a[i], arrays.body_b[i], arrays.feature_a[i],
                              arrays.feature_b[i]),
                             (pair.body_a, pair.body_b, pair.feature_a, pair.feature_b))
            self.assertEqual(tuple(arrays.normal_impulse_ns[i]), tuple(pair.normal_impulse_ns))
            self.assertEqual(tuple(arrays.point_m[i]), tuple(pair.point_m))
            self.assertEqual(arrays.depth_m[i], pair.depth_m)
        self.assertTrue(np.all(arrays.kind == scene_pb2.CONTACT_FEATURE_VERTEX_PLANE))
        # One step: the server's per-body total is the sum of the pairs' impulses on the box.
        on_box = (arrays.normal_impulse_ns + arrays.friction_impulse_ns)[arrays.body_a ==
                                                                         box.body_id]
        np.testing.assert_allclose(on_box.sum(axis=0),
                                   result.totals[box.body_id].impulse_ns, rtol=1e-12, atol=1e-15)

    def test_parts_not_read_are_not_converted_and_empty_replies_give_empty_arrays(self):
        session = self.session()
        box = session.add_box(0.05, position_m=(0.0, 0.0, 1.0))
        result = session.step(1, parts=("body_poses",))
        self.assertEqual(result.bodies[box.body_id].vertex_positions_m.shape, (0, 3))
        self.assertEqual(len(result.contact_arrays), 0)
        self.assertEqual(result.contact_arrays.point_m.shape, (0, 3))

    def test_stream_frames_carry_float32_or_float64_arrays(self):
        session = self.session()
        cloth = session.add_cloth_grid(0.2, 0.2, 2, 2, position_m=(0.0, 0.0, 1.0),
                                       material=CLOTH)
        last = session.step(2).bodies[cloth.body_id].vertex_positions_m
        for float64, dtype in ((False, np.float32), (True, np.float64)):
            with session.stream(from_seq=1, float64=float64, velocities=True) as frames:
                frame = next(f for f in frames if f.step_count == 2)
            self.assertEqual(frame.bodies[cloth.body_id].dtype, dtype)
            self.assertEqual(frame.bodies[cloth.body_id].shape, (9, 3))
            self.assertEqual(frame.velocities[cloth.body_id].shape, (9, 3))
            np.testing.assert_allclose(frame.bodies[cloth.body_id], last,
                                       rtol=1e-6)  # float32: 24-bit mantissa

    def test_vertex_forces_take_numpy(self):
        # The same push given as a numpy array and as a list of tuples gives the same step, bit
        # for bit, and pushes every vertex along +x (no gravity, springs at rest length).
        states = []
        for forces in (np.tile([1.0, 0.0, 0.0], (4, 1)), [(1.0, 0.0, 0.0)] * 4):
            session = self.session(gravity_m_per_s2=(0.0, 0.0, 0.0), dt_s=1e-3)
            cloth = session.add_cloth_grid(0.2, 0.2, 1, 1, material=CLOTH)
            states.append(session.step(1, vertex_forces={cloth.body_id: (range(4), forces)})
                          .bodies[cloth.body_id])
        self.assertTrue(np.array_equal(states[0].vertex_velocities_m_per_s,
                                       states[1].vertex_velocities_m_per_s))
        self.assertTrue(np.all(states[0].vertex_velocities_m_per_s[:, 0] > 0.0))
        np.testing.assert_array_equal(states[0].vertex_velocities_m_per_s[:, 1:], 0.0)


class SettingsTest(Base):
    def test_local_global_settings_are_applied(self):
        wanted = {"iterations": 17, "contact_proximity_m": 2e-3, "friction_coefficient": 0.4,
                  "cr_iterations": 33}
        session = self.session(pipeline="local_global", local_global=wanted, device="cpu")
        applied = session.info().settings.local_global
        for name, value in wanted.items():
            self.assertEqual(getattr(applied, name), value, name)

    def test_rigid_lcp_settings_are_applied_with_enum_names(self):
        wanted = {"friction_coefficient": 0.3, "friction_directions": 6, "lcp_tolerance": 1e-9,
                  "contact_distance_floor_m": 2e-4, "projection_passes": 3}
        session = self.session(pipeline="rigid_lcp",
                               rigid_lcp=dict(wanted, contact_model="standard"))
        applied = session.info().settings.rigid_lcp
        self.assertEqual(applied.contact_model, scene_pb2.RIGID_CONTACT_MODEL_STANDARD)
        for name, value in wanted.items():
            self.assertEqual(getattr(applied, name), value, name)

    def test_penalty_settings_by_name_and_by_dict(self):
        session = self.session(settings={"energy_growth_factor": 3.0,
                                         "contact_model": "dpf_ccd_normal"},
                               stiffness_n_per_m=2e4, min_separation_m=1e-4,
                               contact_restitution=0.5, self_collision=True)
        applied = session.info().settings
        self.assertEqual(applied.energy_growth_factor, 3.0)
        self.assertEqual(applied.contact_model, scene_pb2.CONTACT_MODEL_DPF_CCD_NORMAL)
        self.assertEqual((applied.stiffness_n_per_m, applied.min_separation_m,
                          applied.contact_restitution, applied.self_collision),
                         (2e4, 1e-4, 0.5, True))

    def test_unknown_settings_and_values_are_refused_naming_them(self):
        with self.assertRaisesRegex(ValueError, r"^settings\.rigid_lcp\.bogus: unknown setting"):
            self.client.create_session(pipeline="rigid_lcp", rigid_lcp={"bogus": 1})
        with self.assertRaisesRegex(ValueError, r"^settings\.rigid_lcp\.contact_model: 'pag'"):
            self.client.create_session(pipeline="rigid_lcp", rigid_lcp={"contact_model": "pag"})
        with self.assertRaises(contactsim.ContactSimError) as raised:
            self.client.create_session(pipeline="local_global", local_global={"iterations": 0})
        self.assertEqual(raised.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("local_global.iterations", raised.exception.message)


class SceneFileTest(Base):
    def test_a_shipped_scene_loads_as_the_file_says(self):
        path = os.path.join(SOURCE_DIR, "scenes", "rigid_pour.textproto")
        with open(path, encoding="utf-8") as text:
            expected = text_format.Parse(text.read(), scene_file_pb2.SceneFile())
        with self.client.load_scene(path, name="pour") as scene:
            self.assertEqual(len(scene.bodies), len(expected.bodies))
            self.assertEqual(scene.suggested_steps, expected.suggested_steps)
            info = scene.session.info()
            self.assertEqual((info.name, info.pipeline), ("pour", expected.session.pipeline))
            self.assertEqual(info.body_ids, [body.body_id for body in scene.bodies])
            self.assertEqual(scene.session.step(2).step_count, 2)
        self.assertNotIn("pour", [s.name for s in self.client.list_sessions()])

    def test_mesh_files_are_relative_to_the_scene_file(self):
        with tempfile.TemporaryDirectory() as directory:
            os.symlink(os.path.join(DATA_DIR, "meshes"), os.path.join(directory, "meshes"))
            path = os.path.join(directory, "cube.textproto")
            with open(path, "w", encoding="utf-8") as scene_text:
                scene_text.write(
                    'session { name: "mesh-scene" }\n'
                    'mesh_files { name: "cube" path: "meshes/cube_100mm_unshared.obj" '
                    'scale_to_m: 0.001 }\n'
                    'bodies { name: "cube" kind: BODY_KIND_RIGID mesh_id: "cube" '
                    'rigid { density_kg_per_m3: 1000 } }\n')
            with self.client.load_scene(path) as scene:
                self.assertAlmostEqual(scene.bodies[0].mass_kg, 1.0, delta=1e-9)  # (0.1 m)^3
                self.assertEqual(scene.body_ids_by_name, {"cube": scene.bodies[0].body_id})

    def test_bad_files_and_refused_elements(self):
        with self.assertRaisesRegex(ValueError, r"^bad\.textproto:2:\d+: "):
            contactsim.parse_scene_file('session { name: "x" }\nbodies { nope: 1 }\n',
                                        "bad.textproto")
        with self.assertRaisesRegex(ValueError, r"^bodies\[0\] \(a\)\.mesh_id: 'ghost'"):
            self.client.load_scene(contactsim.parse_scene_file(
                'bodies { name: "a" kind: BODY_KIND_STATIC mesh_id: "ghost" }'))
        scene = contactsim.parse_scene_file(
            'session { name: "half-built" }\n'
            'bodies { name: "ok" kind: BODY_KIND_RIGID rigid { density_kg_per_m3: 1000 }\n'
            '  primitive { sphere { radius_m: 0.1 subdivisions: 1 } } }\n'
            'bodies { name: "bad" kind: BODY_KIND_RIGID rigid { density_kg_per_m3: -1 }\n'
            '  primitive { sphere { radius_m: 0.1 subdivisions: 1 } } }\n')
        with self.assertRaises(contactsim.ContactSimError) as raised:
            self.client.load_scene(scene)
        self.assertEqual(raised.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertTrue(raised.exception.message.startswith("bodies[1] (bad): "),
                        raised.exception.message)
        self.assertNotIn("half-built", [s.name for s in self.client.list_sessions()])


class SceneRobotTest(Base):
    ARM_SCENE = os.path.join(SOURCE_DIR, "scenes", "robot_arm.textproto")
    POSE = {"joint1": 0.0, "joint2": 0.8, "joint3": 1.2, "joint4": 0.0, "joint5": 0.9,
            "joint6": 0.0, "finger_left_joint": 0.0}  # the scene file's joint_positions, else 0

    def test_the_arm_scene_holds_its_pose_with_its_default_motor(self):
        with self.client.load_scene(self.ARM_SCENE, name="python-arm-scene") as scene:
            arm = scene.robots[0]
            self.assertEqual(arm.name, "arm")
            states = scene.session.step(1000).joints(arm)  # 1 s, no controller
            # The PD's static sag: at most the shoulder's largest gravity moment over kp,
            # 9.81 x 1.97 kg m / 2e4 = 9.7e-4 rad (docs/robots.md, "Robots in scene files").
            for joint, q in self.POSE.items():
                self.assertAlmostEqual(states.position(joint), q, delta=1e-3, msg=joint)
                self.assertAlmostEqual(states.velocity(joint), 0.0, delta=1e-3, msg=joint)

    def test_scene_motor_errors_name_the_element(self):
        with self.assertRaisesRegex(ValueError, r"^m\.textproto: robots\[0\]\.motors\[0\]\."
                                    r"position\.kp: must be finite and >= 0, got -5$"):
            contactsim.parse_scene_file(
                'robots { urdf_path: "a.urdf" motors { joint: "j" position { kp: -5 } } }',
                "m.textproto")
        with self.assertRaisesRegex(ValueError, r"robots\[0\]\.default_motor\.position\.target"):
            contactsim.parse_scene_file(
                'robots { urdf_path: "a.urdf" default_motor { position { target: 1 } } }')
        for joint, error, message in (
                ("elbow", LookupError, "motors[0].joint: 'elbow' is not a joint of the robot"),
                ("hand_mount", contactsim.ContactSimError, "motors[0].joint: 'hand_mount' is "
                 "fixed")):
            scene = contactsim.read_scene_file(self.ARM_SCENE)
            scene.robots[0].motors.add(joint=joint).effort.effort = 1.0
            with self.assertRaises(error) as raised:
                self.client.load_scene(scene, name="python-bad-motor")
            text = getattr(raised.exception, "message", str(raised.exception))
            self.assertTrue(text.startswith(f"robots[0] ({scene.robots[0].urdf_path}): "
                                            + message), text)
            self.assertNotIn("python-bad-motor", [s.name for s in self.client.list_sessions()])


class ViewerUrlTest(Base):
    def test_the_url_is_the_one_the_server_prints(self):
        log = server.log()
        base = re.search(r"viewer on (http://\S+:\d+)/ ", log).group(1)
        ids = re.search(r"session_id=(\S+) controller_token=(\S+) viewer_token=(\S+)", log)
        printed = re.search(r"viewer session_id=\S+ url=(\S+)", log).group(1)
        session = self.client.session(ids.group(1), ids.group(2), viewer_token=ids.group(3))
        self.assertEqual(session.viewer_url(base), printed)
        self.assertEqual(session.viewer_url(base.replace("http://", "")), printed)
        viewer = self.client.session(ids.group(1), ids.group(3))  # a viewer-token handle
        self.assertEqual(viewer.viewer_url(base), printed)


if __name__ == "__main__":
    unittest.main()
