"""Robots through the Python client (docs/robots.md, "Python") against a real contactsim-server.

Expected values come from the URDF files themselves (read here with xml.etree, not through the
client's code) and from balances: a joint's reaction at rest is the weight beyond it, a velocity
motor holds its speed exactly, a torque against viscous damping ends at tau / d, the symplectic
step advances q by h qdot.
"""

import math
import os
import tempfile
import threading
import unittest
import xml.etree.ElementTree as ElementTree
from unittest import mock

try:  # first: contactsim says what to install when gRPC or protobuf is missing
    import contactsim
except ImportError as error:
    raise ImportError(f"{error} (ctest needs the targets contactsim_python and "
                      "contactsim-server built)") from error
import grpc
import numpy as np
from server_process import ServerProcess

G_M_PER_S2 = 9.81
DT_S = 0.001
SOURCE_DIR = os.environ.get("CONTACTSIM_SOURCE_DIR", "")
ARM_URDF = os.path.join(SOURCE_DIR, "scenes", "robots", "six_axis_arm.urdf")
SHARED_ROBOTS = os.environ.get("CONTACTSIM_SHARED_ROBOTS_DIR", "")
ARM_JOINTS = ["joint1", "joint2", "joint3", "joint4", "joint5", "joint6"]
HOLD_KP, HOLD_KD = 1e4, 200.0
WATCHDOG_S = 60.0  # ends a stream that should have delivered by then, so a bug fails, not hangs

server = None


def setUpModule():
    global server
    if not os.path.isfile(ARM_URDF):
        raise RuntimeError(f"CONTACTSIM_SOURCE_DIR={SOURCE_DIR!r}: no {ARM_URDF}")
    server = ServerProcess()


def tearDownModule():
    if server is not None:
        server.stop()


def urdf_tree(path):
    return ElementTree.parse(path).getroot()


def link_masses(root):
    return {link.get("name"): float(link.find("inertial/mass").get("value"))
            for link in root.iter("link")}


BOX_FACES = [  # a cube's 12 triangles as corner indices (corner bit a: axis a at +half)
    (0, 2, 1), (1, 2, 3), (4, 5, 6), (5, 7, 6), (0, 1, 4), (1, 5, 4),
    (2, 6, 3), (3, 6, 7), (0, 4, 2), (2, 4, 6), (1, 3, 5), (3, 7, 5)]


def ascii_stl_box(half):
    corner = [tuple(half if (c >> a) & 1 else -half for a in range(3)) for c in range(8)]
    lines = ["solid box"]
    for face in BOX_FACES:
        lines.append("facet normal 0 0 0\nouter loop")
        lines.extend("vertex {} {} {}".format(*corner[c]) for c in face)
        lines.append("endloop\nendfacet")
    lines.append("endsolid box")
    return ("\n".join(lines) + "\n").encode()


def one_link_urdf(mesh_filename, mass_kg, half_m):
    """A robot of one link whose collision is a mesh (a cube of half size half_m)."""
    inertia = mass_kg * (2 * half_m) ** 2 / 6
    return f"""<?xml version="1.0"?>
<robot name="meshbox">
  <link name="body">
    <inertial><mass value="{mass_kg}"/>
      <inertia ixx="{inertia}" ixy="0" ixz="0" iyy="{inertia}" iyz="0" izz="{inertia}"/>
    </inertial>
    <visual><geometry><mesh filename="{mesh_filename}"/></geometry></visual>
    <collision><geometry><mesh filename="{mesh_filename}"/></geometry></collision>
  </link>
</robot>
"""


class RobotCase(unittest.TestCase):
    """Helpers of the two test classes below (no tests of its own)."""

    def setUp(self):
        self.client = contactsim.Client(server.address, timeout_s=120.0)
        self.addCleanup(self.client.close)

    def session(self, **kwargs):
        session = self.client.create_session(
            "python-robots", pipeline="rigid_lcp", dt_s=DT_S,
            ground_planes=[contactsim.ground_plane()], **kwargs)
        self.addCleanup(self.close_quietly, session)
        return session

    @staticmethod
    def close_quietly(session):
        try:
            session.close()
        except contactsim.ContactSimError:
            pass

    def hold_upright(self, arm, but=()):
        """PD commands holding every arm joint (except `but`) at 0, the arm upright."""
        return arm.position({j: 0.0 for j in ARM_JOINTS if j not in but}, kp=HOLD_KP,
                            kd=HOLD_KD)


class RobotTest(RobotCase):
    def test_arm_links_and_joints_are_the_urdf_ones(self):
        session = self.session()
        arm = session.add_robot(ARM_URDF)
        root = urdf_tree(ARM_URDF)
        self.assertEqual(arm.name, root.get("name"))
        self.assertTrue(arm.fixed_base)
        self.assertEqual(list(arm.links), [link.get("name") for link in root.iter("link")])
        self.assertEqual(len(set(arm.links.values())), len(arm.links))
        self.assertEqual(sorted(arm.links.values()), session.info().body_ids)
        joints = {joint.get("name"): joint for joint in root.iter("joint")}
        self.assertEqual(set(arm.joint_names), set(joints))
        for index, joint in enumerate(arm.joints):
            element = joints[joint.name]
            self.assertEqual(joint.index, index)
            self.assertEqual(arm.joint_index(joint.name), index)
            self.assertEqual(joint.type, element.get("type").upper())
            self.assertEqual(joint.parent_link, element.find("parent").get("link"))
            self.assertEqual(joint.child_link, element.find("child").get("link"))
            limit = element.find("limit")
            if limit is not None:
                self.assertTrue(joint.has_limits)
                self.assertEqual(joint.lower, float(limit.get("lower")))
                self.assertEqual(joint.upper, float(limit.get("upper")))
                self.assertEqual(joint.effort_limit, float(limit.get("effort")))
                self.assertEqual(joint.velocity_limit, float(limit.get("velocity")))
            mimic = element.find("mimic")
            self.assertEqual(joint.mimic_joint, mimic.get("joint") if mimic is not None else "")
        self.assertEqual(arm.actuated_joints, ARM_JOINTS + ["finger_left_joint"])
        with self.assertRaisesRegex(KeyError, "no joint 'elbow'.*joint1"):
            arm.joint_index("elbow")

        # The links are bodies: the fixed base is static, the others rigid, and at q = 0 each
        # body frame (the centre of mass) sits where the URDF's joint origins and inertial
        # origins put it (all along z, the arm upright; the fingers at y = +-0.04).
        result = session.step(1, joint_commands=self.hold_upright(arm))
        self.assertEqual(result.bodies[arm.links["base"]].kind, "STATIC")
        self.assertEqual(result.bodies[arm.links["link2"]].kind, "RIGID")
        link2 = result.bodies[arm.links["link2"]].position_m
        joint2_z = sum(float(joints[j].find("origin").get("xyz").split()[2])
                       for j in ("joint1", "joint2"))
        com_z = float(root.find("link[@name='link2']/inertial/origin").get("xyz").split()[2])
        # one step of sag under gravity against a 1e4 N*m/rad PD: well below 0.1 mm
        np.testing.assert_allclose(link2, (0.0, 0.0, joint2_z + com_z), atol=1e-4)

        infos = session.info().robots
        self.assertEqual([r.robot_id for r in infos], [arm.robot_id])
        self.assertEqual(infos[0].links, arm.links)
        self.assertEqual(infos[0].joint_names, arm.joint_names)

    def test_joint_states_have_one_row_per_joint_and_come_as_asked(self):
        session = self.session()
        arm = session.add_robot(ARM_URDF, name="arm")
        result = session.step(2, joint_commands=self.hold_upright(arm))
        states = result.joints(arm)
        n = len(arm.joints)
        self.assertEqual(states.joint_names, arm.joint_names)
        for array in (states.positions, states.velocities, states.efforts):
            self.assertEqual(array.shape, (n,))
        self.assertEqual(states.reaction_forces_n.shape, (n, 3))
        self.assertEqual(states.reaction_torques_n_m.shape, (n, 3))
        only_joints = session.step(1, parts=("joint_states",))
        self.assertEqual(len(only_joints.bodies), 0)
        self.assertEqual(list(only_joints.joint_states), [arm.robot_id])
        self.assertEqual(session.step(1, parts=("body_poses",)).joint_states, {})
        with self.assertRaisesRegex(KeyError, "left out by parts"):
            session.step(1, parts=("body_poses",)).joints(arm)
        # A handle opened on the session knows the robot's names after info().
        other = self.client.session(session.id, session.token)
        self.assertIsNone(other.step(1).joints(arm.robot_id).joint_names)
        other.info()
        self.assertEqual(other.step(1).joints(arm.robot_id).joint_names, arm.joint_names)
        # restore() and reset() refresh the robots from the state they bring: an empty session
        # restored to this one's snapshot names the arm's joints at once.
        snapshot = session.snapshot()
        empty = self.session()
        self.assertEqual(empty.robots, {})
        empty.restore(snapshot)
        self.assertEqual(empty.step(1).joints(arm.robot_id).joint_names, arm.joint_names)
        empty.reset(snapshot)
        self.assertEqual(list(empty.robots), [arm.robot_id])

    def test_stream_frames_carry_the_step_s_joint_states(self):
        session = self.session()
        arm = session.add_robot(ARM_URDF)
        result = session.step(5, joint_commands=arm.position({"joint2": 0.2}, kp=HOLD_KP,
                                                             kd=HOLD_KD))
        viewer = self.client.session(session.id, session.viewer_token)
        viewer.info()  # the viewer's handle learns the joint names
        stream = viewer.stream()  # from the newest frame: the one this step published
        watchdog = threading.Timer(WATCHDOG_S, stream.cancel)
        watchdog.start()
        try:
            frame = next(stream)
        finally:
            watchdog.cancel()
            stream.cancel()
        self.assertEqual(frame.step_count, result.step_count)
        states, expected = frame.joint_states[arm.robot_id], result.joints(arm)
        self.assertEqual(states.joint_names, arm.joint_names)
        for name in ("positions", "velocities", "efforts", "reaction_forces_n",
                     "reaction_torques_n_m"):
            np.testing.assert_array_equal(getattr(states, name), getattr(expected, name))

    def test_wrist_reads_the_weight_beyond_it_at_rest(self):
        session = self.session()
        arm = session.add_robot(ARM_URDF)
        masses = link_masses(urdf_tree(ARM_URDF))
        beyond_kg = masses["hand"] + masses["finger_left"] + masses["finger_right"]
        session.step(200, joint_commands=self.hold_upright(arm))
        result = session.step(1)
        force, torque = result.wrist_wrench(arm, "hand_mount")
        # Upright and at rest: the hand's frame is the world's, the parent holds the hand and
        # fingers up with their weight and, their centres on the axis by symmetry, no torque.
        np.testing.assert_allclose(force, (0.0, 0.0, beyond_kg * G_M_PER_S2), atol=1e-6)
        np.testing.assert_allclose(torque, (0.0, 0.0, 0.0), atol=1e-6)
        self.assertEqual(result.wrist_wrench(arm, arm.joint_index("hand_mount")), (force, torque))

    def test_position_velocity_and_effort_commands_drive_their_joints(self):
        session = self.session()
        arm = session.add_robot(ARM_URDF)
        damping = float(urdf_tree(ARM_URDF).find("joint[@name='joint1']/dynamics")
                        .get("damping"))
        # joint1 turns the whole arm about the vertical: gravity does not load it.
        result = session.step(1, joint_commands=self.hold_upright(arm, but=("joint1",)) + [
            contactsim.JointPosition(arm, "joint1", 0.5, kp=200.0, kd=20.0)])
        first = result.joints(arm).position("joint1")
        for _ in range(10):
            result = session.step(100)
        self.assertGreater(first, 0.0)
        # 1 s: many times the PD's time constant; 1e-4 rad is the solver's reach, not a sag
        self.assertAlmostEqual(result.joints(arm).position("joint1"), 0.5, delta=1e-4)

        # A velocity motor's row is exact when within its effort: qdot = target to round-off.
        result = session.step(20, joint_commands=[contactsim.JointVelocity(arm, "joint1", 0.3)])
        self.assertAlmostEqual(result.joints(arm).velocity("joint1"), 0.3, delta=1e-9)

        # A torque against the joint's viscous damping d ends at qdot = tau / d (the time
        # constant I / d is about 11 ms here; 0.2 s is 18 of them).
        tau = 0.1
        result = session.step(200, joint_commands=arm.effort({"joint1": tau}))
        self.assertAlmostEqual(result.joints(arm).velocity("joint1"), tau / damping,
                               delta=1e-4 * tau / damping)
        self.assertAlmostEqual(result.joints(arm).effort("joint1"), tau, delta=1e-12)

        # Off: only the damping acts, and the speed decays.
        result = session.step(50, joint_commands=arm.off(["joint1"]))
        self.assertLess(abs(result.joints(arm).velocity("joint1")), 0.1 * tau / damping)

    def test_commands_naming_bad_joints_are_refused(self):
        session = self.session()
        arm = session.add_robot(ARM_URDF)
        with self.assertRaises(contactsim.ContactSimError) as caught:
            session.step(1, joint_commands=[contactsim.JointEffort(arm, "elbow", 1.0)])
        self.assertEqual(caught.exception.code, grpc.StatusCode.NOT_FOUND)
        self.assertIn("elbow", caught.exception.message)
        with self.assertRaises(contactsim.ContactSimError) as caught:
            session.step(1, joint_commands=[contactsim.JointEffort(arm, "finger_right_joint",
                                                                   1.0)])
        self.assertEqual(caught.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("finger_right_joint", caught.exception.message)
        with self.assertRaisesRegex(TypeError, "JointPosition"):
            session.step(1, joint_commands={"joint1": 0.5})

    def test_set_joint_state_places_the_links_by_forward_kinematics(self):
        session = self.session()
        arm = session.add_robot(ARM_URDF)
        q2, qdot1 = 0.3, 0.5
        session.set_joint_state(arm, positions={"joint2": q2}, velocities={"joint1": qdot1})
        result = session.step(1, joint_commands=arm.position(
            {"joint2": q2, "joint3": 0.0, "joint4": 0.0, "joint5": 0.0, "joint6": 0.0},
            kp=HOLD_KP, kd=HOLD_KD))
        states = result.joints(arm)
        # link2's centre of mass: 0.15 m along the link from joint2, tilted by q2 about y (plus
        # the yaw of one step at ~qdot1 about z)
        joint2_z = 0.1 + 0.1
        yaw = states.position("joint1")
        expected = (0.15 * math.sin(q2) * math.cos(yaw), 0.15 * math.sin(q2) * math.sin(yaw),
                    joint2_z + 0.15 * math.cos(q2))
        # one step of 1 ms: gravity moves it by ~g h^2 = 1e-5 m against the PD
        np.testing.assert_allclose(result.bodies[arm.links["link2"]].position_m, expected,
                                   atol=1e-4)
        self.assertAlmostEqual(states.position("joint2"), q2, delta=1e-4)
        # joint1 was set moving at qdot1 and is only damped: the step (symplectic Euler)
        # advanced it by h times its end velocity, which the damping kept below qdot1 by
        # about h d / I (~9 %); 1e-7 rad: the joint rows' linearization error O(h^2 w^2)
        qdot = states.velocity("joint1")
        self.assertAlmostEqual(yaw, DT_S * qdot, delta=1e-7)
        self.assertLess(qdot, qdot1)
        self.assertGreater(qdot, 0.8 * qdot1)
        with self.assertRaises(contactsim.ContactSimError) as caught:
            session.set_joint_state(arm, positions={"elbow": 0.1})
        self.assertEqual(caught.exception.code, grpc.StatusCode.NOT_FOUND)
        self.assertIn("elbow", caught.exception.message)

    def test_set_joint_state_sets_motors_as_step_does(self):
        # The same PD commands sent with the state or with the first step: both sessions step
        # bit for bit alike (the CPU is deterministic), and the arm holds its pose.
        pose = {"joint2": 0.6, "joint3": 0.9}
        results = []
        for with_state in (True, False):
            session = self.session()
            arm = session.add_robot(ARM_URDF)
            hold = arm.position({name: pose.get(name, 0.0) for name in ARM_JOINTS},
                                kp=HOLD_KP, kd=HOLD_KD)
            session.set_joint_state(arm, positions=pose,
                                    joint_commands=hold if with_state else None)
            result = session.step(300, joint_commands=None if with_state else hold)
            results.append(result.joints(arm))
        for a, b in zip((results[0].positions, results[0].velocities, results[0].efforts),
                        (results[1].positions, results[1].velocities, results[1].efforts)):
            np.testing.assert_array_equal(a, b)
        # the PD's static sag, m g r / kp <= 8.5e-4 rad at kp 1e4 (docs/robots.md): 2e-3 rad
        self.assertAlmostEqual(results[0].position("joint2"), 0.6, delta=2e-3)
        with self.assertRaises(contactsim.ContactSimError) as caught:
            session.set_joint_state(arm, joint_commands=[
                contactsim.JointEffort(arm, "hand_mount", 1.0)])
        self.assertEqual(caught.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("commands[0].joint: 'hand_mount' is fixed", caught.exception.message)

    def test_robots_need_a_rigid_lcp_session(self):
        session = self.client.create_session("python-robots-penalty")
        self.addCleanup(self.close_quietly, session)
        with self.assertRaises(contactsim.ContactSimError) as caught:
            session.add_robot(ARM_URDF)
        self.assertEqual(caught.exception.code, grpc.StatusCode.FAILED_PRECONDITION)


class RobotMeshTest(RobotCase):
    """Mesh files found on this machine: package://, ROS_PACKAGE_PATH, relative, missing."""

    def setUp(self):
        super().setUp()
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.dir = folder.name
        self.half_m = 0.05
        os.makedirs(os.path.join(self.dir, "meshbox_pkg", "meshes"))
        with open(os.path.join(self.dir, "meshbox_pkg", "meshes", "box.stl"), "wb") as file:
            file.write(ascii_stl_box(self.half_m))

    def drop_and_rest(self, session, robot):
        """Steps a free one-link robot dropped onto the ground; returns its rest height."""
        result = session.step(600)
        state = result.bodies[robot.links["body"]]
        self.assertLess(state.linear_velocity_m_per_s.norm(), 1e-3)
        return state.position_m.z

    def test_package_uri_resolves_through_packages_and_ros_package_path(self):
        urdf = one_link_urdf("package://meshbox_pkg/meshes/box.stl", 1.0, self.half_m)
        session = self.session()
        robot = session.add_robot_text(urdf, packages={"meshbox_pkg": os.path.join(
            self.dir, "meshbox_pkg")}, fixed_base=False, base_pose=(0.0, 0.0, 0.2))
        # The collision shape is the file's cube: the link comes to rest on its face, its centre
        # half a side up (PEG contacts rest at zero depth; 1e-4 m for the projection's slack).
        self.assertAlmostEqual(self.drop_and_rest(session, robot), self.half_m, delta=1e-4)

        with mock.patch.dict(os.environ, {"ROS_PACKAGE_PATH": f"/nonexistent:{self.dir}"}):
            robot = session.add_robot_text(urdf, fixed_base=False, name="second",
                                           base_pose=((1.0, 0.0, 0.2), (1.0, 0.0, 0.0, 0.0)))
        self.assertEqual(robot.name, "second")
        self.assertEqual(len(session.info().robots), 2)

    def test_relative_and_file_uri_meshes_resolve(self):
        urdf_path = os.path.join(self.dir, "meshbox_pkg", "robot.urdf")
        with open(urdf_path, "w") as file:
            file.write(one_link_urdf("meshes/box.stl", 1.0, self.half_m))
        session = self.session()
        robot = session.add_robot(urdf_path, fixed_base=False, base_pose=(0.0, 0.0, 0.2))
        self.assertAlmostEqual(self.drop_and_rest(session, robot), self.half_m, delta=1e-4)
        mesh = os.path.join(self.dir, "meshbox_pkg", "meshes", "box.stl")
        session.add_robot_text(one_link_urdf("file://" + mesh, 1.0, self.half_m),
                               fixed_base=False, base_pose=(1.0, 0.0, 0.2))
        with open(mesh, "rb") as file:
            session.add_robot_text(one_link_urdf("in/memory.stl", 1.0, self.half_m),
                                   {"in/memory.stl": file.read()}, fixed_base=False,
                                   base_pose=(2.0, 0.0, 0.2))

    def test_only_the_links_meshes_are_sent(self):
        # A <gazebo> block's mesh is no link geometry (the loader never reads it): not sought.
        urdf = one_link_urdf("meshes/box.stl", 1.0, self.half_m).replace(
            "</robot>", '<gazebo><mesh filename="meshes/not_here.stl"/></gazebo></robot>')
        session = self.session()
        with mock.patch.object(self.client, "_call", wraps=self.client._call) as rpc:
            session.add_robot_text(urdf, base_dir=os.path.join(self.dir, "meshbox_pkg"))
        sent = rpc.call_args.args[1]
        self.assertEqual([file.path for file in sent.mesh_files], ["meshes/box.stl"])
        self.assertEqual(sent.mesh_files[0].data, ascii_stl_box(self.half_m))

    def test_a_missing_mesh_is_named_before_any_rpc(self):
        session = self.session()
        cases = [
            (one_link_urdf("meshes/gone.stl", 1.0, 0.05), dict(base_dir=self.dir),
             os.path.join(self.dir, "meshes", "gone.stl")),
            (one_link_urdf("package://nowhere/meshes/box.stl", 1.0, 0.05),
             dict(packages={"meshbox_pkg": self.dir}), "ROS_PACKAGE_PATH"),
            (one_link_urdf("meshes/box.stl", 1.0, 0.05), {}, "no folder"),
            (one_link_urdf("http://example.com/box.stl", 1.0, 0.05), {}, "only package://"),
        ]
        with mock.patch.object(self.client, "_call", wraps=self.client._call) as rpc, \
                mock.patch.dict(os.environ, {"ROS_PACKAGE_PATH": self.dir}):
            for urdf, options, detail in cases:
                with self.assertRaises(contactsim.MeshNotFoundError) as caught:
                    session.add_robot_text(urdf, **options)
                written = ElementTree.fromstring(urdf).find(".//mesh").get("filename")
                self.assertIn(f'mesh "{written}"', str(caught.exception))
                self.assertIn(detail, str(caught.exception))
                self.assertIsInstance(caught.exception, FileNotFoundError)
            with self.assertRaisesRegex(ValueError, "mesh_files: \\['typo.stl'\\] not named"):
                session.add_robot_text(one_link_urdf("meshes/box.stl", 1.0, 0.05),
                                       {"typo.stl": b""},
                                       base_dir=os.path.join(self.dir, "meshbox_pkg"))
            with self.assertRaisesRegex(ValueError, "urdf: not well-formed"):
                session.add_robot_text("<robot name='x'><link>")
            self.assertEqual(rpc.call_count, 0)
        self.assertEqual(session.info().robots, [])

    @unittest.skipUnless(os.path.isfile(os.path.join(SHARED_ROBOTS, "kuka_iiwa", "model.urdf")),
                         f"no ../shared/robots next to the repository ({SHARED_ROBOTS!r})")
    def test_kuka_meshes_as_package_uris(self):
        # The real KUKA description with its mesh paths rewritten as package:// URIs, as a ROS
        # install writes them: 16 files (visual OBJ and collision STL) found and sent.
        kuka_dir = os.path.join(SHARED_ROBOTS, "kuka_iiwa")
        with open(os.path.join(kuka_dir, "model.urdf"), encoding="utf-8") as file:
            urdf = file.read().replace('filename="meshes/', 'filename="package://kuka/meshes/')
        self.assertEqual(urdf.count("package://kuka/"), 16)
        session = self.session()
        kuka = session.add_robot_text(urdf, packages={"kuka": kuka_dir})
        root = ElementTree.fromstring(urdf)
        self.assertEqual(list(kuka.links), [link.get("name") for link in root.iter("link")])
        self.assertEqual(kuka.joint_names, [joint.get("name") for joint in root.iter("joint")])
        # Held bent by stiff PD motors (the C++ service test's pose and gains), it stays there.
        targets = {name: 0.3 for name in kuka.joint_names}
        session.set_joint_state(kuka, positions=targets)
        result = session.step(300, joint_commands=kuka.position(targets, kp=1e5, kd=1e3))
        # the gravity sag m g r / kp is a few 1e-4 rad (docs/robots.md: 3.6e-4)
        np.testing.assert_allclose(result.joints(kuka).positions, 0.3, atol=3e-3)


if __name__ == "__main__":
    unittest.main()
