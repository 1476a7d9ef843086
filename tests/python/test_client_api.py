"""The contactsim Python package against a real contactsim-server (started per module).

Physics checks use exact balances rather than values the code under test computes: over a Step
call the contact impulse on a body and gravity's impulse m g T add up to its momentum change, and
a force F held for T on a free body gives it v = F T / m.
"""

import threading
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
HALF_M = 0.05
DENSITY_KG_PER_M3 = 1000.0
MASS_KG = DENSITY_KG_PER_M3 * (2 * HALF_M) ** 3  # 1 kg
STIFFNESS_N_PER_M = 1e4
WATCHDOG_S = 60.0  # ends a stream that should have ended by itself, so a bug fails, not hangs

server = None


def setUpModule():
    global server
    server = ServerProcess()


def tearDownModule():
    if server is not None:
        server.stop()


class ClientTest(unittest.TestCase):
    def setUp(self):
        self.client = contactsim.Client(server.address, timeout_s=60.0)
        self.addCleanup(self.client.close)

    def resting_box_session(self, **settings):
        """Ground z = 0 and a 1 kg cube at its resting penetration m g / (4 k) (4 corners)."""
        session = self.client.create_session(
            "python-test", ground_planes=[contactsim.ground_plane()],
            stiffness_n_per_m=STIFFNESS_N_PER_M, **settings)
        self.addCleanup(self.close_quietly, session)
        depth_m = MASS_KG * G_M_PER_S2 / (4 * STIFFNESS_N_PER_M)
        box = session.add_box(HALF_M, position_m=(0.0, 0.0, HALF_M - depth_m),
                              density_kg_per_m3=DENSITY_KG_PER_M3, name="box")
        return session, box

    @staticmethod
    def close_quietly(session):
        try:
            session.close()
        except contactsim.ContactSimError:
            pass  # closed by the test already

    def test_ping_echoes_the_payload(self):
        self.assertEqual(self.client.ping(b"contactsim"), b"contactsim")

    def test_created_session_is_listed_with_its_settings(self):
        session = self.client.create_session("listed", dt_s=0.002)
        self.addCleanup(self.close_quietly, session)
        self.assertTrue(session.token)
        self.assertTrue(session.viewer_token)
        self.assertNotEqual(session.token, session.viewer_token)
        listed = {info.session_id: info for info in self.client.list_sessions()}
        self.assertIn(session.id, listed)
        self.assertEqual(listed[session.id].name, "listed")
        self.assertEqual(listed[session.id].state, "ACTIVE")
        info = session.info()
        self.assertEqual(info.dt_s, 0.002)
        self.assertEqual(info.body_ids, [])

    def test_session_info_carries_its_memory_by_part(self):
        session = self.client.create_session("memory")
        self.addCleanup(self.close_quietly, session)
        session.add_body(contactsim.box_mesh(0.1, 0.1, 0.1), "static")
        info = session.info()
        # docs/service.md, "Memory": a rigid body of 8 vertices and 12 faces, by hand.
        self.assertEqual(info.memory["bodies"], 96 * 8 + 12 * 12)
        self.assertEqual(info.memory["collision"], 128 * 8 + 320 * 12)
        self.assertEqual(info.memory["meshes"], 0)
        self.assertEqual(info.memory_bytes, sum(info.memory.values()))
        listed = {s.session_id: s for s in self.client.list_sessions()}
        self.assertEqual(listed[session.id].memory_bytes, info.memory_bytes)

    def test_box_mesh_is_closed_and_outward(self):
        mesh = contactsim.box_mesh(0.1, 0.2, 0.3)
        self.assertEqual(len(mesh.vertices_m), 8)
        self.assertEqual(len(mesh.triangles), 12)
        # Closed and consistently oriented: every directed edge appears once, its reverse once.
        edges = [(t[i], t[(i + 1) % 3]) for t in mesh.triangles for i in range(3)]
        self.assertEqual(len(set(edges)), 36)
        self.assertTrue(all((b, a) in set(edges) for a, b in edges))
        # Outward: the divergence theorem's signed volume is +(2 hx)(2 hy)(2 hz).
        volume = 0.0
        for i, j, k in mesh.triangles:
            a, b, c = (mesh.vertices_m[i], mesh.vertices_m[j], mesh.vertices_m[k])
            volume += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                       a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0
        self.assertAlmostEqual(volume, 0.2 * 0.4 * 0.6, places=12)

    def test_resting_box_contact_impulse_balances_gravity(self):
        session, box = self.resting_box_session()
        self.assertAlmostEqual(box.mass_kg, MASS_KG, places=9)
        self.assertEqual(box.num_vertices, 8)
        n = 200
        result = session.step(n)
        dt_s = session.info().dt_s
        self.assertEqual(result.step_count, n)
        self.assertAlmostEqual(result.time_s, n * dt_s, places=9)
        self.assertEqual(len(result.diagnostics), n)
        totals = result.totals[box.body_id]
        # Momentum balance over the call: J_z - m g T = m v_z (started at rest).
        v_z = result.bodies[box.body_id].linear_velocity_m_per_s.z
        expected_jz = MASS_KG * G_M_PER_S2 * n * dt_s + MASS_KG * v_z
        self.assertAlmostEqual(totals.impulse_ns.z, expected_jz, delta=1e-9)  # measured 2e-16
        # Resting: the box barely moved and the support force is its weight (to 1 %).
        self.assertLess(abs(v_z), 1e-3)
        self.assertAlmostEqual(totals.impulse_ns.z / (n * dt_s), MASS_KG * G_M_PER_S2,
                               delta=0.01 * MASS_KG * G_M_PER_S2)
        # The last step's pairs: the 4 bottom corners against the plane (body -1), normal +z,
        # each carrying a quarter of the weight by symmetry (to 5 %).
        corners = [c for c in result.contacts if c.body_a == box.body_id and c.body_b == -1]
        self.assertEqual(len(corners), 4)
        for contact in corners:
            self.assertEqual(contact.kind, "VERTEX_PLANE")
            self.assertAlmostEqual(contact.normal.z, 1.0, places=9)
            self.assertAlmostEqual(contact.normal_impulse_ns.z, MASS_KG * G_M_PER_S2 * dt_s / 4,
                                   delta=0.05 * MASS_KG * G_M_PER_S2 * dt_s / 4)

    def test_force_control_accelerates_a_free_box(self):
        session = self.client.create_session("free", gravity_m_per_s2=(0.0, 0.0, 0.0))
        self.addCleanup(self.close_quietly, session)
        box = session.add_box(HALF_M, density_kg_per_m3=DENSITY_KG_PER_M3)
        n, force_n = 100, 2.0
        result = session.step(n, forces={box.body_id: (force_n, 0.0, 0.0)})
        T = result.time_s
        self.assertAlmostEqual(result.bodies[box.body_id].linear_velocity_m_per_s.x,
                               force_n * T / MASS_KG, places=9)
        # Forces are not carried over: with none, the velocity stays.
        coast = session.step(n)
        self.assertAlmostEqual(coast.bodies[box.body_id].linear_velocity_m_per_s.x,
                               force_n * T / MASS_KG, places=9)

    def test_kinematic_target_is_reached_and_bodies_can_be_removed(self):
        session = self.client.create_session("kinematic")
        self.addCleanup(self.close_quietly, session)
        paddle = session.add_box((0.2, 0.2, 0.01), kind="kinematic", position_m=(0.0, 0.0, 1.0))
        self.assertEqual(paddle.mass_kg, 0.0)
        target = contactsim.KinematicControl(position_m=(0.25, -0.5, 1.5))
        result = session.step(20, kinematic={paddle.body_id: target})
        state = result.bodies[paddle.body_id]
        self.assertEqual(state.kind, "KINEMATIC")
        for got, want in zip(state.position_m, target.position_m):
            self.assertAlmostEqual(got, want, places=9)
        self.assertEqual(session.info().body_ids, [paddle.body_id])
        session.remove_body(paddle.body_id)
        self.assertEqual(session.info().body_ids, [])

    def test_viewer_token_cannot_step(self):
        session, box = self.resting_box_session()
        viewer = self.client.session(session.id, session.viewer_token)
        self.assertEqual(viewer.info().session_id, session.id)  # reading is allowed
        with self.assertRaises(contactsim.ContactSimError) as raised:
            viewer.step(1)
        self.assertEqual(raised.exception.code, grpc.StatusCode.PERMISSION_DENIED)
        self.assertEqual(raised.exception.code_name, "PERMISSION_DENIED")
        self.assertEqual(raised.exception.rpc, "Step")
        self.assertIn("PERMISSION_DENIED", str(raised.exception))
        self.assertEqual(session.info().step_count, 0)  # refused before any work

    def test_wrong_token_is_unauthenticated(self):
        session, _ = self.resting_box_session()
        stranger = self.client.session(session.id, "0" * 32)
        with self.assertRaises(contactsim.ContactSimError) as raised:
            stranger.info()
        self.assertEqual(raised.exception.code, grpc.StatusCode.UNAUTHENTICATED)

    def test_invalid_requests_name_the_field(self):
        with self.assertRaises(contactsim.ContactSimError) as raised:
            self.client.create_session(dt_s=-1.0)
        self.assertEqual(raised.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertTrue(raised.exception.message.startswith("settings.dt_s"),
                        raised.exception.message)
        session, box = self.resting_box_session()
        with self.assertRaises(contactsim.ContactSimError) as raised:
            session.step(0)
        self.assertEqual(raised.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertTrue(raised.exception.message.startswith("n_steps"), raised.exception.message)
        with self.assertRaises(contactsim.ContactSimError) as raised:
            session.step(1, forces={box.body_id + 100: (1.0, 0.0, 0.0)})
        self.assertEqual(raised.exception.code, grpc.StatusCode.NOT_FOUND)
        self.assertTrue(raised.exception.message.startswith("controls.bodies[0].body_id"),
                        raised.exception.message)
        self.assertEqual(session.info().step_count, 0)

    def test_unreachable_server_raises_unavailable(self):
        with contactsim.Client("127.0.0.1:1", timeout_s=30.0) as nowhere:
            with self.assertRaises(contactsim.ContactSimError) as raised:
                nowhere.ping()
        self.assertEqual(raised.exception.code, grpc.StatusCode.UNAVAILABLE)

    def test_stream_replays_buffered_frames_in_order(self):
        session, box = self.resting_box_session()
        for _ in range(3):
            session.step(10)
        viewer = self.client.session(session.id, session.viewer_token)
        stream = viewer.stream(from_seq=1, contacts=True, float64=True)
        watchdog = threading.Timer(WATCHDOG_S, stream.cancel)
        watchdog.start()
        frames = []
        try:
            for frame in stream:
                frames.append(frame)
                if frame.step_count == 30:
                    break
        finally:
            watchdog.cancel()
            stream.cancel()
        self.assertTrue(frames and frames[-1].step_count == 30, [f.step_count for f in frames])
        self.assertEqual([f.seq for f in frames], list(range(1, len(frames) + 1)))
        self.assertEqual(frames[0].step_count, 0)
        # The first frame showing the box (its AddBody) carries the topology.
        added = next(f for f in frames if box.body_id in f.bodies)
        self.assertIsNotNone(added.topology)
        self.assertEqual([t.body_id for t in added.topology], [box.body_id])
        self.assertEqual(len(added.topology[0].triangles), 12)
        last = frames[-1]
        self.assertAlmostEqual(last.time_s, 30 * session.info().dt_s, places=9)
        self.assertEqual(len(last.bodies[box.body_id]), 8)
        self.assertEqual(len(last.contacts), 4)
        self.assertGreater(last.totals[box.body_id].impulse_ns.z, 0.0)

    def test_stream_ends_when_the_session_closes(self):
        session, _ = self.resting_box_session()
        stream = self.client.session(session.id, session.viewer_token).stream()
        watchdog = threading.Timer(WATCHDOG_S, stream.cancel)
        watchdog.start()
        try:
            first = next(stream)  # the newest frame (the AddBody content change)
            session.close()
            rest = list(stream)
        finally:
            fired = not watchdog.is_alive()
            watchdog.cancel()
        self.assertFalse(fired, "the stream did not end when the session closed")
        self.assertIsNotNone(first.topology)
        self.assertLessEqual(len(rest), 1)

    def hanging_hyperelastic_cube(self, z_bottom_m):
        """A local_global session without a plane: a 0.1 m Neo-Hookean cube of 5 tets (1 kg, E
        100 kPa), its bottom at z_bottom_m; returns (session, body id, top vertex indices)."""
        session = self.client.create_session("python-local-global", dt_s=0.01,
                                             pipeline="local_global")
        self.addCleanup(self.close_quietly, session)
        a = 2 * HALF_M
        corners = [(x * a, y * a, z_bottom_m + z * a) for z in (0, 1) for y in (0, 1)
                   for x in (0, 1)]
        tets = [(1, 2, 4, 7), (0, 1, 2, 4), (3, 1, 7, 2), (5, 1, 4, 7), (6, 2, 7, 4)]

        def volume6(t):
            p = [corners[i] for i in t]
            u, v, w = ([p[k][c] - p[0][c] for c in range(3)] for k in (1, 2, 3))
            return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
                    u[2] * (v[0] * w[1] - v[1] * w[0]))

        tets = [t if volume6(t) > 0 else (t[1], t[0], t[2], t[3]) for t in tets]
        material = scene_pb2.HyperelasticMaterial(
            model=scene_pb2.HYPERELASTIC_MODEL_NEO_HOOKEAN,
            youngs_modulus_pa=1e5, poisson_ratio=0.3, density_kg_per_m3=DENSITY_KG_PER_M3)
        cube = session.add_body(contactsim.TetMesh(corners, tets), "hyperelastic",
                                material=material)
        self.assertAlmostEqual(cube.mass_kg, MASS_KG, places=9)
        return session, cube.body_id, [4, 5, 6, 7]

    @staticmethod
    def mean_z(state):
        return sum(p[2] for p in state.vertex_positions_m) / len(state.vertex_positions_m)

    def test_local_global_attachment_carries_and_releases_a_hyperelastic_cube(self):
        # Attached by its top face to a kinematic hand, the cube hangs (free fall would take it
        # 0.44 m down in 0.3 s; the stretch of 1 kg on 100 kPa is below 1 mm), follows the hand
        # 10 cm up with its top face exactly (the held vertices are driven to the hand's pose),
        # and falls once the attachment is removed.
        session, cube, top = self.hanging_hyperelastic_cube(0.5)
        hand = session.add_box((0.08, 0.08, 0.01), position_m=(0.05, 0.05, 0.611),
                               kind="kinematic").body_id
        constraint = session.add_attachment(cube, top, hand)
        start = session.step(1).bodies[cube]
        held = session.step(30).bodies[cube]
        self.assertAlmostEqual(self.mean_z(held), self.mean_z(start), delta=1e-3)
        lifted = session.step(20, kinematic={
            hand: contactsim.KinematicControl(position_m=(0.05, 0.05, 0.711))}).bodies[cube]
        for v in top:
            self.assertAlmostEqual(lifted.vertex_positions_m[v][2], 0.7, delta=1e-9)
        session.remove_constraint(constraint)
        fallen = session.step(20).bodies[cube]
        self.assertLess(self.mean_z(fallen), self.mean_z(lifted) - 0.05)
        with self.assertRaises(contactsim.ContactSimError):
            session.remove_constraint(constraint)  # gone: NOT_FOUND

    def test_local_global_position_targets_hold_and_move_a_hyperelastic_cube(self):
        # Four springs of k = 1e3 N/m on the top face (implicit in local_global) carry the cube:
        # at rest their forces add up to m g (the elastic forces sum to zero; 1e-3 relative
        # allows the last of the oscillation implicit Euler damps). Targets moved 5 cm up in one
        # call take the cube with them (within 5 mm after 0.5 s).
        session, cube, top = self.hanging_hyperelastic_cube(0.5)
        k = 1e3
        state = session.step(1).bodies[cube]
        targets = [tuple(state.vertex_positions_m[v]) for v in top]
        constraint = session.add_position_target(cube, top, targets, k)
        state = session.step(100).bodies[cube]
        spring_z = sum(k * (targets[i][2] - state.vertex_positions_m[v][2])
                       for i, v in enumerate(top))
        self.assertAlmostEqual(spring_z, MASS_KG * G_M_PER_S2, delta=1e-3 * MASS_KG * G_M_PER_S2)
        # The constraint's reaction over a call at rest is its weight times the call's duration
        # (the same 1e-3 as the springs), and the body's summed reaction is the same impulse.
        start_s = session.step(1).time_s
        held = session.step(20)
        weight_impulse = MASS_KG * G_M_PER_S2 * (held.time_s - start_s)
        reaction = held.reactions.constraints[constraint]
        self.assertEqual(reaction.kind, "POSITION_TARGET")
        self.assertAlmostEqual(reaction.impulse_ns.z, weight_impulse, delta=1e-3 * weight_impulse)
        self.assertEqual(held.reactions.bodies[cube], reaction.impulse_ns)
        state = held.bodies[cube]
        before = self.mean_z(state)
        raised = [(x, y, z + 0.05) for (x, y, z) in targets]
        state = session.step(50, constraint_targets={constraint: raised}).bodies[cube]
        self.assertAlmostEqual(self.mean_z(state), before + 0.05, delta=5e-3)

    def test_snapshot_restore_replays_the_same_bits(self):
        session, box = self.resting_box_session()
        push = {box.body_id: (1.5, 0.5, 0.0)}
        session.step(50, forces=push)
        snapshot = session.snapshot()
        self.assertEqual(snapshot.step_count, 50)
        first = session.step(100, forces=push).bodies[box.body_id]
        self.assertEqual(session.restore(snapshot)[0], 50)
        second = session.step(100, forces=push).bodies[box.body_id]
        self.assertEqual(first, second)
        self.assertGreater(first.position_m.x, 0.0)

    def test_context_manager_closes_the_session(self):
        with self.client.create_session("scoped") as session:
            session_id = session.id
            self.assertIn(session_id, [s.session_id for s in self.client.list_sessions()])
        self.assertNotIn(session_id, [s.session_id for s in self.client.list_sessions()])
        with self.assertRaises(contactsim.ContactSimError) as raised:
            session.info()
        self.assertEqual(raised.exception.code, grpc.StatusCode.NOT_FOUND)


if __name__ == "__main__":
    unittest.main()


class CreatorTokenTest(unittest.TestCase):
    """A server started with --creator-token-file: Client(creator_token=...) creates sessions."""

    def test_create_session_needs_the_creator_token(self):
        import os
        import tempfile
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "creator")
            with open(path, "w") as token_file:
                token_file.write("creator-token-0123456789\n")
            guarded = ServerProcess(extra_args=("--creator-token-file", path))
            self.addCleanup(guarded.stop)
            with contactsim.Client(guarded.address) as anonymous:
                with self.assertRaises(contactsim.ContactSimError) as raised:
                    anonymous.create_session("no token")
                self.assertEqual(raised.exception.code, grpc.StatusCode.UNAUTHENTICATED)
            with contactsim.Client(guarded.address,
                                   creator_token="creator-token-0123456789") as client:
                session = client.create_session("with token")
                self.assertEqual(session.info().name, "with token")
                session.close()
