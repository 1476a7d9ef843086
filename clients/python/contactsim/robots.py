"""Robots of a session (docs/robots.md): what AddRobot answered (Robot, RobotJoint) and the joint
states a Step returns (JointStates, numpy arrays in the robot's joint order).

Units as robot.proto: a joint "position" is an angle [rad] (revolute, continuous) or a
displacement [m] (prismatic); "effort" a torque [N*m] or a force [N]."""

from dataclasses import dataclass
from typing import Optional

import numpy as np

from .results import Vec3


@dataclass
class RobotJoint:
    """One joint as the URDF describes it (RobotJointInfo). Limits: `lower`/`upper` only when
    `has_limits`; effort_limit and velocity_limit are inf when the URDF gives none."""

    name: str
    type: str  # "FIXED", "REVOLUTE", "CONTINUOUS", "PRISMATIC"
    index: int  # position of this joint in JointStates' arrays
    parent_link: str
    child_link: str
    has_limits: bool
    lower: float
    upper: float
    effort_limit: float
    velocity_limit: float
    damping: float
    friction: float
    mimic_joint: str = ""  # non-empty: this joint follows mimic_joint * multiplier + offset
    mimic_multiplier: float = 1.0
    mimic_offset: float = 0.0

    @property
    def actuated(self):
        """Whether a motor command may name it (neither fixed nor a mimic follower)."""
        return self.type != "FIXED" and not self.mimic_joint


class Robot:
    """A robot in a session, as AddRobot answered (or GetSession lists it).

    robot_id; name; fixed_base; links: {link name: body id} in URDF order, the root first (the
    links are ordinary rigid bodies: their BodyState is in StepResult.bodies); joints: RobotJoint
    list in the joint-state order; notes: what the server's loader read leniently (strings). Pass
    a Robot (or its robot_id) wherever a robot is asked for.

    Command helpers return lists of joint commands for Session.step(joint_commands=...), which
    concatenate with +:
        arm.position({"joint1": 0.5, "joint2": -0.2}, kp=400, kd=40)
          + arm.velocity({"joint6": 1.0}) + arm.effort({"finger_left_joint": 5.0})
          + arm.off(["joint4"])
    """

    def __init__(self, robot_id, name, links, joints, fixed_base, notes=()):
        self.robot_id = robot_id
        self.name = name
        self.links = links
        self.joints = joints
        self.fixed_base = fixed_base
        self.notes = list(notes)
        self._index = {joint.name: joint.index for joint in joints}

    @property
    def joint_names(self):
        """Every joint's name, in the joint-state order."""
        return [joint.name for joint in self.joints]

    @property
    def actuated_joints(self):
        """Names of the joints a motor command may name (not fixed, not mimic followers)."""
        return [joint.name for joint in self.joints if joint.actuated]

    def joint_index(self, name):
        """The joint's position in JointStates' arrays; KeyError naming the robot's joints."""
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"robot {self.name!r} (id {self.robot_id}) has no joint {name!r}; "
                           f"its joints: {', '.join(self._index)}") from None

    def joint(self, name):
        """The RobotJoint named `name`."""
        return self.joints[self.joint_index(name)]

    def body_id(self, link):
        """The body id of a link; KeyError naming the robot's links."""
        try:
            return self.links[link]
        except KeyError:
            raise KeyError(f"robot {self.name!r} (id {self.robot_id}) has no link {link!r}; "
                           f"its links: {', '.join(self.links)}") from None

    def position(self, targets, *, kp, kd, target_velocity=None, max_effort=None):
        """JointPosition commands: targets {joint: q*}; kp, kd, target_velocity and max_effort
        each a number for all, or a dict by joint name."""
        return [JointPosition(self, joint, target, _pick(kp, joint, "kp"),
                              _pick(kd, joint, "kd"),
                              _pick(target_velocity, joint, "target_velocity", 0.0),
                              _pick(max_effort, joint, "max_effort", None))
                for joint, target in targets.items()]

    def velocity(self, targets, *, max_effort=None):
        """JointVelocity commands: targets {joint: qdot*}."""
        return [JointVelocity(self, joint, target, _pick(max_effort, joint, "max_effort", None))
                for joint, target in targets.items()]

    def effort(self, efforts):
        """JointEffort commands: {joint: torque [N*m] or force [N]}."""
        return [JointEffort(self, joint, effort) for joint, effort in efforts.items()]

    def off(self, joints):
        """JointOff commands (motors off) for the named joints."""
        return [JointOff(self, joint) for joint in joints]

    def __repr__(self):
        return (f"Robot(robot_id={self.robot_id}, name={self.name!r}, links={len(self.links)}, "
                f"joints={self.joint_names})")


def _pick(value, joint, what, default=...):
    if isinstance(value, dict):
        if joint in value:
            return value[joint]
        if default is ...:
            raise KeyError(f"{what}: no value for joint {joint!r}")
        return default
    if value is None and default is ...:
        raise ValueError(f"{what}: required")
    return default if value is None else value


def robot_id_of(robot):
    """A Robot's robot_id, or the int given."""
    return robot.robot_id if isinstance(robot, Robot) else int(robot)


# Joint commands (robot.proto JointCommand). Each PERSISTS on the server until another command
# for the same joint replaces it; `robot` is a Robot or a robot id, `joint` the URDF joint name.

@dataclass
class JointPosition:
    """PD to `target` [rad or m]: effort = kp (target - q) + kd (target_velocity - qdot), within
    the URDF's effort limit or `max_effort` (> 0) when lower; solved implicitly (docs/robots.md)."""

    robot: object
    joint: str
    target: float
    kp: float  # >= 0 [N*m/rad or N/m]
    kd: float  # >= 0 [N*m*s/rad or N*s/m]
    target_velocity: float = 0.0  # [rad/s or m/s]
    max_effort: Optional[float] = None  # [N*m or N]


@dataclass
class JointVelocity:
    """Drives qdot to `target` [rad/s or m/s] with at most the effort limit (or max_effort)."""

    robot: object
    joint: str
    target: float
    max_effort: Optional[float] = None


@dataclass
class JointEffort:
    """Applies `effort` [N*m or N], clamped to the URDF's effort limit."""

    robot: object
    joint: str
    effort: float


@dataclass
class JointOff:
    """Turns the joint's motor off (damping and friction of the URDF stay)."""

    robot: object
    joint: str


def command_into(command, message):
    """Fills a JointCommand message from one of the classes above."""
    if not isinstance(command, (JointPosition, JointVelocity, JointEffort, JointOff)):
        raise TypeError(f"joint_commands: expected JointPosition, JointVelocity, JointEffort or "
                        f"JointOff items, got {type(command).__name__}")
    message.robot_id = robot_id_of(command.robot)
    message.joint = command.joint
    if isinstance(command, JointPosition):
        position = message.position
        position.target = float(command.target)
        position.kp = float(command.kp)
        position.kd = float(command.kd)
        position.target_velocity = float(command.target_velocity)
        if command.max_effort is not None:
            position.max_effort = float(command.max_effort)
    elif isinstance(command, JointVelocity):
        message.velocity.target = float(command.target)
        if command.max_effort is not None:
            message.velocity.max_effort = float(command.max_effort)
    elif isinstance(command, JointEffort):
        message.effort.effort = float(command.effort)
    # JointOff: no mode set


@dataclass(eq=False)
class JointStates:
    """One robot's joints at the end of a Step call (or a frame), numpy arrays in the robot's
    joint order (Robot.joints; `joint_names` when the session knows the robot): positions,
    velocities, efforts (n,) and the reaction of each joint on its child link, force [N] and
    torque [N*m] about the joint origin in the child link's frame, (n, 3) — a force-torque
    sensor at that joint."""

    robot_id: int
    positions: np.ndarray  # (n,) [rad or m]
    velocities: np.ndarray  # (n,) [rad/s or m/s]
    efforts: np.ndarray  # (n,) the motor's effort over the last step [N*m or N]
    reaction_forces_n: np.ndarray  # (n, 3)
    reaction_torques_n_m: np.ndarray  # (n, 3)
    joint_names: Optional[list] = None

    def index(self, joint):
        """The row of `joint` (a name, when joint_names is known, or an int)."""
        if isinstance(joint, int):
            return joint
        if self.joint_names is None:
            raise KeyError(f"joint {joint!r}: robot {self.robot_id}'s joint names are unknown "
                           "to this session handle (index by int, or call Session.info())")
        try:
            return self.joint_names.index(joint)
        except ValueError:
            raise KeyError(f"robot {self.robot_id} has no joint {joint!r}; its joints: "
                           f"{', '.join(self.joint_names)}") from None

    def position(self, joint):
        return float(self.positions[self.index(joint)])

    def velocity(self, joint):
        return float(self.velocities[self.index(joint)])

    def effort(self, joint):
        return float(self.efforts[self.index(joint)])

    def wrench(self, joint):
        """(force Vec3 [N], torque Vec3 [N*m]) of the parent on the child link at the joint
        origin, in the child link's frame: a wrist force-torque sensor's reading."""
        row = self.index(joint)
        return Vec3(*self.reaction_forces_n[row]), Vec3(*self.reaction_torques_n_m[row])

    def as_dict(self, field="positions"):
        """{joint name: value} of one array ("positions", "velocities", "efforts")."""
        names = self.joint_names or list(range(len(self.positions)))
        return dict(zip(names, getattr(self, field).tolist()))

    def __len__(self):
        return len(self.positions)


def joint_states(message, names=None):
    """JointStates from a RobotJointStates message: one flat pass over the joints (9 numbers
    each), then column views."""
    values = []
    extend = values.extend
    for j in message.joints:
        f, t = j.reaction_force_n, j.reaction_torque_n_m
        extend((j.position, j.velocity, j.applied_effort, f.x, f.y, f.z, t.x, t.y, t.z))
    table = np.array(values, dtype=np.float64).reshape(-1, 9)
    return JointStates(robot_id=message.robot_id, positions=table[:, 0], velocities=table[:, 1],
                       efforts=table[:, 2], reaction_forces_n=table[:, 3:6],
                       reaction_torques_n_m=table[:, 6:9], joint_names=names)
