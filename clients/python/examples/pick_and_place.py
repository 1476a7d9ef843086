#!/usr/bin/env python3
"""1 kHz lockstep pick and place: the repository's 6-axis arm takes the top part of a pile of
boxes and puts it in a bin, one Step of one 1 ms step per control tick.

The scene: a rigid_lcp session (PEG contacts, friction coefficient 0.8 with friction pyramids of
4 edges, the pads' torsional friction radius 5 mm so that a held part does not creep;
docs/robots.md), the ground plane, a pile of four 4 cm cubes of 1000 kg/m^3 (three in a row
3 mm apart, one on top) dropped and settled, a bin of five static boxes (12 cm square inside,
walls 7 cm high, centred at (0, 0.4) m), and scenes/robots/six_axis_arm.urdf on a fixed base at
the origin.

The controller sends joint-space PD targets (implicit PD on the server, kp 1e4 N*m/rad on the
shoulder and elbow) with the reference velocity, from waypoints that a small numeric IK
(urdf_kinematics.py, from the URDF's own joint origins and axes) computes once per phase:
above the part, straight down, close (a 10 N effort command on the left finger; the right one
mimics it, so each presses with 5 N), lift, hold, across to the bin, down, open, up. It reads
each reply's joint states (the wrist force: the reaction of the fixed joint `hand_mount` between
link6 and the hand, in the hand frame) and contact pairs (the grasp's impulses over the last
step: finger links against the part), prints them per phase, and at the end says whether the
part lies in the bin. With --steps-per-call k each tick is one Step call of k steps.

Exit codes: 0 the part is in the bin, 1 it is not, 2 usage error, 3 the server refused or could
not be reached.

    python3 pick_and_place.py --address 127.0.0.1:50051 [--steps-per-call 1]
"""

import argparse
import math
import os
import sys
import time
import xml.etree.ElementTree as ElementTree

try:
    import contactsim
except ImportError as error:
    sys.exit(f"pick_and_place: {error}")
import numpy as np

from urdf_kinematics import Chain, rotation_axis_angle, transform

HERE = os.path.dirname(os.path.abspath(__file__))
ARM_URDF = os.path.join(HERE, "..", "..", "..", "scenes", "robots", "six_axis_arm.urdf")
G_M_PER_S2 = 9.81
DT_S = 0.001
ARM_JOINTS = ["joint1", "joint2", "joint3", "joint4", "joint5", "joint6"]
GRIPPER = "finger_left_joint"  # finger_right_joint mimics it
WRIST = "hand_mount"  # the fixed joint link6 -> hand: a wrist force-torque sensor
# Position gains: stiff enough that gravity sags the shoulder by ~1.5 mrad (15 N*m / kp); the
# server's PD is implicit, so any gain is stable at 1 ms.
KP = [1e4, 1e4, 1e4, 2e3, 2e3, 1e3]  # [N*m/rad]
KD = [200.0, 200.0, 200.0, 40.0, 40.0, 20.0]  # [N*m*s/rad]
# Closing: an effort command on the left finger, the URDF's limit. The right finger mimics it, so
# the one effort drives both: at rest each finger presses the part with half of it.
GRIP_EFFORT_N = 10.0
GRIPPER_KP, GRIPPER_KD = 2000.0, 20.0  # opening: PD to 0 [N/m], [N*s/m]
# The tool point: between the fingers' centres, 6 cm from the hand's frame (six_axis_arm.urdf:
# finger origins at z 0.03 in the hand, their boxes 0.06 long above that).
TOOL_OFFSET_M = 0.06

# Edges of each contact's friction pyramid: 4 (the default is 8) keeps the held part's LCP small
# enough for 1 kHz on a small machine; the grip (2 fingers x 5 N x 0.8 cos 45 deg = 5.7 N of
# friction at the pyramid's weakest heading) still holds a 0.63 N part by far.
FRICTION_DIRECTIONS = 4
CUBE_HALF_M = 0.02
CUBE_DENSITY_KG_PER_M3 = 1000.0  # 64 g
PILE_CENTRE_M = (0.40, 0.0)
BIN_CENTRE_M = (0.0, 0.40)
BIN_INNER_HALF_M = 0.06
BIN_WALL_HALF_THICKNESS_M = 0.005
BIN_WALL_TOP_M = 0.07
# Fingers grip the part's upper 38 mm, their tips 2 mm above the row below it (which spans the
# same y range: the fingers close along y, beside that row, never on it).
GRIP_BELOW_TOP_M = 0.008  # the tool point under the part's top face
APPROACH_HEIGHT_M = 0.10
LIFT_HEIGHT_M = 0.15


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--address", "--server", default="127.0.0.1:50051",
                        help="host:port of contactsim-server")
    parser.add_argument("--steps-per-call", type=int, default=1,
                        help="simulation steps of 1 ms per Step call (control tick)")
    parser.add_argument("--timeout-s", type=float, default=30.0, help="deadline per call [s]")
    args = parser.parse_args(argv)
    if args.steps_per_call < 1:
        parser.error("--steps-per-call must be >= 1")
    return args


def min_jerk(tau):
    """s(tau) and ds/dtau of the minimum-jerk profile on [0, 1]."""
    tau = min(max(tau, 0.0), 1.0)
    return (10 * tau**3 - 15 * tau**4 + 6 * tau**5,
            30 * tau**2 - 60 * tau**3 + 30 * tau**4)


class JointMove:
    """Joint-space minimum-jerk move from q0 to q1 in duration_s."""

    def __init__(self, q0, q1, duration_s):
        self.q0, self.q1, self.duration_s = np.asarray(q0), np.asarray(q1), duration_s

    def reference(self, t):
        s, ds = min_jerk(t / self.duration_s)
        return self.q0 + s * (self.q1 - self.q0), ds / self.duration_s * (self.q1 - self.q0)


class LineMove:
    """A straight tool line from p0 to p1 (fixed orientation) with a minimum-jerk timing: the IK
    of `samples` points, joint targets interpolated linearly between them."""

    def __init__(self, chain, q_start, rotation, p0, p1, duration_s, samples=20):
        self.duration_s = duration_s
        self.times = np.linspace(0.0, duration_s, samples + 1)
        self.q = [np.asarray(q_start)]
        for t in self.times[1:]:
            s, _ = min_jerk(t / duration_s)
            p = np.asarray(p0) + s * (np.asarray(p1) - np.asarray(p0))
            q, error = chain.solve_ik(transform(rotation, p), self.q[-1])
            if error > 1e-4:
                raise RuntimeError(f"IK: no solution for the tool at {p} (error {error:.2e})")
            self.q.append(q)
        self.q = np.array(self.q)
        self.end = self.q[-1]

    def reference(self, t):
        t = min(max(t, 0.0), self.duration_s)
        i = min(int(np.searchsorted(self.times, t, side="right")) - 1, len(self.times) - 2)
        span = self.times[i + 1] - self.times[i]
        velocity = (self.q[i + 1] - self.q[i]) / span
        return self.q[i] + (t - self.times[i]) * velocity, velocity


class Hold:
    def __init__(self, q, duration_s):
        self.q, self.duration_s = np.asarray(q), duration_s

    def reference(self, t):
        return self.q, np.zeros(len(self.q))


def tool_rotation(yaw):
    """The tool pointing down (-z), its closing axis (the hand's y) at `yaw` about z."""
    return rotation_axis_angle((0.0, 0.0, 1.0), yaw) @ np.diag([-1.0, 1.0, -1.0])


def yaw_of(orientation):
    w, x, y, z = orientation
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def grip_yaw(part_yaw, preferred):
    """The closing axis along one of the part's side normals, nearest `preferred` (a cube
    repeats every 90 degrees)."""
    k = round((preferred - part_yaw) / (math.pi / 2))
    return part_yaw + k * math.pi / 2


def build_scene(client):
    session = client.create_session(
        "pick_and_place", pipeline="rigid_lcp", dt_s=DT_S,
        ground_planes=[contactsim.ground_plane()],
        rigid_lcp={"contact_model": "peg", "friction_coefficient": 0.8,
                   "friction_directions": FRICTION_DIRECTIONS,
                   "torsional_friction_radius_m": 0.005})
    cube = 2 * CUBE_HALF_M
    gap = 0.003  # beyond the contact search distance (1 mm): no contact across it
    px, py = PILE_CENTRE_M
    # Three in a row along x, 3 mm apart, and one on top straddling the middle and the
    # +x one: the top part touches two others, so one island of three LCP bodies while it lies
    # there (pivoting cost grows fast with a pile's island; docs/rigid_lcp.md "Large islands").
    places = [(px - cube - gap, CUBE_HALF_M), (px, CUBE_HALF_M), (px + cube + gap, CUBE_HALF_M),
              (px + (cube + gap) / 2, 3 * CUBE_HALF_M + gap)]
    pile = [session.add_box(CUBE_HALF_M, position_m=(x, py, z + gap),
                            density_kg_per_m3=CUBE_DENSITY_KG_PER_M3, name=f"part{i}")
            for i, (x, z) in enumerate(places)]
    bx, by = BIN_CENTRE_M
    outer = BIN_INNER_HALF_M + 2 * BIN_WALL_HALF_THICKNESS_M
    floor_half = BIN_WALL_HALF_THICKNESS_M
    session.add_box((outer, outer, floor_half), kind="static",
                    position_m=(bx, by, floor_half), name="bin_floor")
    wall_half_z = (BIN_WALL_TOP_M - 2 * floor_half) / 2
    wall_z = 2 * floor_half + wall_half_z
    offset = BIN_INNER_HALF_M + BIN_WALL_HALF_THICKNESS_M
    for name, (dx, dy), halves in (
            ("bin_wall_x+", (offset, 0.0), (BIN_WALL_HALF_THICKNESS_M, outer, wall_half_z)),
            ("bin_wall_x-", (-offset, 0.0), (BIN_WALL_HALF_THICKNESS_M, outer, wall_half_z)),
            ("bin_wall_y+", (0.0, offset), (BIN_INNER_HALF_M, BIN_WALL_HALF_THICKNESS_M,
                                            wall_half_z)),
            ("bin_wall_y-", (0.0, -offset), (BIN_INNER_HALF_M, BIN_WALL_HALF_THICKNESS_M,
                                             wall_half_z))):
        session.add_box(halves, kind="static", position_m=(bx + dx, by + dy, wall_z), name=name)
    arm = session.add_robot(ARM_URDF, name="arm")
    return session, arm, pile


def in_bin(position):
    """Whether a part's centre lies inside the bin's walls and below their top."""
    x, y, z = position
    bx, by = BIN_CENTRE_M
    return (abs(x - bx) < BIN_INNER_HALF_M and abs(y - by) < BIN_INNER_HALF_M
            and z < BIN_WALL_TOP_M)


class Controller:
    """Runs phases tick by tick: one Step call of `steps_per_call` steps per tick, the arm's
    PD targets (and reference velocities) sent with every call, the gripper's when it changes."""

    def __init__(self, session, arm, part, steps_per_call):
        self.session, self.arm, self.part = session, arm, part
        self.steps_per_call = steps_per_call
        self.tick_s = steps_per_call * DT_S
        self.fingers = (arm.body_id("finger_left"), arm.body_id("finger_right"))
        self.result = None
        self.gripper_command = []
        self.calls = 0

    def run(self, name, motion, on_tick=None):
        start = time.monotonic()
        ticks = max(1, round(motion.duration_s / self.tick_s))
        for tick in range(1, ticks + 1):
            q, qdot = motion.reference(tick * self.tick_s)
            commands = [contactsim.JointPosition(self.arm, joint, q[i], KP[i], KD[i], qdot[i])
                        for i, joint in enumerate(ARM_JOINTS)]
            self.result = self.session.step(
                self.steps_per_call, joint_commands=commands + self.gripper_command,
                parts=("body_poses", "body_velocities", "contact_pairs", "joint_states"))
            self.gripper_command = []  # commands persist on the server
            self.calls += 1
            if on_tick is not None:
                on_tick(self.result)
        self.report(name, ticks, time.monotonic() - start)

    def close_gripper(self):
        self.gripper_command = [contactsim.JointEffort(self.arm, GRIPPER, GRIP_EFFORT_N)]

    def open_gripper(self):
        self.gripper_command = [contactsim.JointPosition(self.arm, GRIPPER, 0.0, GRIPPER_KP,
                                                         GRIPPER_KD)]

    def grasp_impulses(self, result):
        """Per finger: (normal impulse [N*s], friction impulse [N*s]) of its contacts with the
        part over the last step, magnitudes."""
        c = result.contact_arrays
        impulses = []
        for finger in self.fingers:
            mask = ((c.body_a == finger) & (c.body_b == self.part.body_id)) | \
                ((c.body_a == self.part.body_id) & (c.body_b == finger))
            normal = np.linalg.norm(c.normal_impulse_ns[mask].sum(axis=0))
            friction = np.linalg.norm(c.friction_impulse_ns[mask].sum(axis=0))
            impulses.append((float(normal), float(friction)))
        return impulses

    def report(self, name, calls, wall_s):
        r = self.result
        states = r.joints(self.arm)
        force, torque = r.wrist_wrench(self.arm, WRIST)
        part = r.bodies[self.part.body_id].position_m
        grasp = self.grasp_impulses(r)
        print(f"t={r.time_s:6.3f} s  {name:<9} {calls:4d} calls {wall_s * 1e3 / calls:5.2f} "
              f"ms/call  part=({part.x:+.4f}, {part.y:+.4f}, "
              f"{part.z:+.4f}) m  gripper q={states.position(GRIPPER) * 1e3:5.2f} mm  "
              f"wrist |F|={force.norm():6.3f} N (F_z {force.z:+6.3f} N, |T| "
              f"{torque.norm():.4f} N*m)  grasp impulses (last step): left normal "
              f"{grasp[0][0]:.5f} N*s "
              f"friction {grasp[0][1]:.5f} N*s, right normal {grasp[1][0]:.5f} N*s "
              f"friction {grasp[1][1]:.5f} N*s", flush=True)


def pick_and_place(session, arm, pile, steps_per_call):
    """The whole task; returns the summary dict."""
    with open(ARM_URDF, encoding="utf-8") as file:
        urdf_text = file.read()
    chain = Chain(urdf_text, "hand", transform(translation=(0.0, 0.0, TOOL_OFFSET_M)))
    assert chain.joint_names == ARM_JOINTS
    # Start bent over towards the pile, above it, so that nothing swings through the scene.
    home_rotation = tool_rotation(0.0)
    q_home, error = chain.solve_ik(transform(home_rotation, (0.30, 0.0, 0.35)),
                                   [0.0, 0.3, 1.4, 0.0, 1.4, 0.0])
    if error > 1e-4:
        raise RuntimeError(f"IK: home pose unreachable (error {error:.2e})")
    session.set_joint_state(arm, positions=dict(zip(ARM_JOINTS, q_home)))
    # The pile settles while the arm holds its home pose (one call: no control yet).
    hold = arm.position(dict(zip(ARM_JOINTS, q_home)), kp=dict(zip(ARM_JOINTS, KP)),
                        kd=dict(zip(ARM_JOINTS, KD)))
    open_gripper = arm.position({GRIPPER: 0.0}, kp=GRIPPER_KP, kd=GRIPPER_KD)
    settled = session.step(400, joint_commands=hold + open_gripper,
                           parts=("body_poses", "body_velocities"))
    top = max(pile, key=lambda body: settled.bodies[body.body_id].position_m.z)
    state = settled.bodies[top.body_id]
    speed = max(settled.bodies[b.body_id].linear_velocity_m_per_s.norm() for b in pile)
    print(f"pile settled in 0.4 s (fastest part {speed:.2e} m/s); top part: body "
          f"{top.body_id} at ({state.position_m.x:.4f}, {state.position_m.y:.4f}, "
          f"{state.position_m.z:.4f}) m, {top.mass_kg * 1e3:.1f} g", flush=True)

    control = Controller(session, arm, top, steps_per_call)
    part_xyz = np.array(state.position_m)
    yaw = grip_yaw(yaw_of(state.orientation), 0.0)  # close along y, across the row
    rotation = tool_rotation(yaw)
    grasp_m = part_xyz + (0.0, 0.0, CUBE_HALF_M - GRIP_BELOW_TOP_M)
    above_m = grasp_m + (0.0, 0.0, APPROACH_HEIGHT_M)
    q_above, error = chain.solve_ik(transform(rotation, above_m), q_home)
    if error > 1e-4:
        raise RuntimeError(f"IK: no pose above the part (error {error:.2e})")

    control.run("approach", JointMove(q_home, q_above, 1.0))
    descend = LineMove(chain, q_above, rotation, above_m, grasp_m, 0.6)
    control.run("descend", descend)
    control.close_gripper()
    control.run("close", Hold(descend.end, 0.3))
    lift_m = grasp_m + (0.0, 0.0, LIFT_HEIGHT_M)
    lift = LineMove(chain, descend.end, rotation, grasp_m, lift_m, 0.6)
    control.run("lift", lift)

    # Held still: the wrist reads the weight below it, each finger's normal force the grip.
    wrist_forces, normal_forces, gripper_efforts = [], [], []

    def sample(result):
        wrist_forces.append(result.wrist_wrench(arm, WRIST)[0].norm())
        gripper_efforts.append(result.joints(arm).effort(GRIPPER))
        # contact pairs are the call's last step: impulse / dt is its force
        normal_forces.append([n / DT_S for n, _ in control.grasp_impulses(result)])

    control.run("hold", Hold(lift.end, 0.2), on_tick=sample)
    lifted_z = control.result.bodies[top.body_id].position_m.z

    bx, by = BIN_CENTRE_M
    place_yaw = grip_yaw(yaw, math.atan2(by, bx))
    place_rotation = tool_rotation(place_yaw)
    # The part's bottom 1.5 cm above the bin's floor when released.
    release_m = np.array((bx, by, 2 * BIN_WALL_HALF_THICKNESS_M + 0.015 + 2 * CUBE_HALF_M
                          - GRIP_BELOW_TOP_M))
    over_bin_m = release_m + (0.0, 0.0, LIFT_HEIGHT_M)
    q_over_bin, error = chain.solve_ik(transform(place_rotation, over_bin_m),
                                       lift.end + (math.atan2(by, bx), 0, 0, 0, 0, 0))
    if error > 1e-4:
        raise RuntimeError(f"IK: no pose above the bin (error {error:.2e})")
    control.run("transfer", JointMove(lift.end, q_over_bin, 1.8))
    lower = LineMove(chain, q_over_bin, place_rotation, over_bin_m, release_m, 0.6)
    control.run("lower", lower)
    control.open_gripper()
    control.run("open", Hold(lower.end, 0.3))
    retreat = LineMove(chain, lower.end, place_rotation, release_m, over_bin_m, 0.5)
    control.run("retreat", retreat)
    control.run("settle", Hold(retreat.end, 0.3))

    final = control.result.bodies[top.body_id]
    masses = {link.get("name"): float(link.find("inertial/mass").get("value"))
              for link in ElementTree.fromstring(urdf_text).iter("link")}
    hand_and_fingers_kg = masses["hand"] + masses["finger_left"] + masses["finger_right"]
    return {
        "in_bin": in_bin(final.position_m),
        "part_final_m": final.position_m,
        "part_speed_m_per_s": final.linear_velocity_m_per_s.norm(),
        "lifted_by_m": lifted_z - part_xyz[2],
        "wrist_force_held_n": float(np.mean(wrist_forces)),
        "weight_below_wrist_n": (hand_and_fingers_kg + top.mass_kg) * G_M_PER_S2,
        "grip_force_left_n": float(np.mean([f[0] for f in normal_forces])),
        "grip_force_right_n": float(np.mean([f[1] for f in normal_forces])),
        "gripper_effort_n": float(np.mean(gripper_efforts)),
        "time_s": control.result.time_s,
        "calls": control.calls,
    }


def main(argv=None):
    args = parse_args(argv)
    wall_start = time.monotonic()
    try:
        with contactsim.Client(args.address, timeout_s=args.timeout_s) as client:
            session, arm, pile = build_scene(client)
            with session:
                print(f"session {session.id}: {arm.name} (robot {arm.robot_id}, "
                      f"{len(arm.links)} links), {len(pile)} parts, {args.steps_per_call} "
                      f"step(s) of {DT_S * 1e3:g} ms per Step call", flush=True)
                summary = pick_and_place(session, arm, pile, args.steps_per_call)
    except contactsim.ContactSimError as error:
        print(f"pick_and_place: {error} (server {args.address})", file=sys.stderr)
        return 3
    except RuntimeError as error:  # a waypoint the IK cannot reach
        print(f"pick_and_place: {error}", file=sys.stderr)
        return 1
    wall_s = time.monotonic() - wall_start
    p = summary["part_final_m"]
    print(f"summary: in_bin={int(summary['in_bin'])} part_final_m=({p.x:.4f},{p.y:.4f},"
          f"{p.z:.4f}) part_speed_m_per_s={summary['part_speed_m_per_s']:.2e} "
          f"lifted_by_m={summary['lifted_by_m']:.4f} "
          f"wrist_force_held_n={summary['wrist_force_held_n']:.4f} "
          f"weight_below_wrist_n={summary['weight_below_wrist_n']:.4f} "
          f"grip_force_left_n={summary['grip_force_left_n']:.4f} "
          f"grip_force_right_n={summary['grip_force_right_n']:.4f} "
          f"gripper_effort_n={summary['gripper_effort_n']:.4f} time_s={summary['time_s']:.3f} "
          f"step_calls={summary['calls']} wall_s={wall_s:.1f}")
    if not summary["in_bin"]:
        print("pick_and_place: the part did not land in the bin", file=sys.stderr)
        return 1
    print("the part is in the bin")
    return 0


if __name__ == "__main__":
    sys.exit(main())
