"""Scene files (scenes/*.textproto: contactsim.v1.SceneFile in protobuf text format) read and
loaded from Python the way `contactsim load` and the server's --scene do (scenes/loader/): the
session is created, the mesh files uploaded, then the bodies, constraints and robots (with their
joint positions and starting motors) added in file order; a refused element closes the
half-built session and raises ContactSimError with the element prefixed ("bodies[3] (torus2):
...")."""

import math
import os
from dataclasses import dataclass, field

from google.protobuf import text_format

from contactsim.v1 import robot_pb2, scene_file_pb2

from .convert import added_body
from .errors import ContactSimError


@dataclass
class LoadedScene:
    """A loaded scene: its controller Session (which closes the session when used as a context
    manager), the AddedBody of each body and the constraint ids, in file order."""

    session: object
    bodies: list
    constraint_ids: list
    robots: list = field(default_factory=list)  # contactsim.Robot per scene robot, in file order
    description: str = ""
    suggested_steps: int = 0
    body_ids_by_name: dict = field(default_factory=dict)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return self.session.__exit__(*exc_info)


def parse_scene_file(text, source="scene"):
    """A SceneFile message from text format; ValueError "<source>:<line>:<column>: ..." when it is
    not one."""
    scene = scene_file_pb2.SceneFile()
    try:
        text_format.Parse(text, scene)
    except text_format.ParseError as error:
        line, column = error.GetLine(), error.GetColumn()
        where = f"{source}:{line}:{column}" if line else source
        raise ValueError(f"{where}: {error}") from None
    try:
        check_scene_robot_motors(scene)
    except ValueError as error:
        raise ValueError(f"{source}: {error}") from None
    return scene


def read_scene_file(path):
    """Reads and parses a scene file; relative mesh_files[].path become relative to the file's
    directory. OSError when it cannot be read, ValueError when it does not parse."""
    path = os.fspath(path)
    with open(path, encoding="utf-8") as scene_text:
        scene = parse_scene_file(scene_text.read(), path)
    directory = os.path.dirname(path)
    for mesh_file in scene.mesh_files:
        if mesh_file.path and not os.path.isabs(mesh_file.path):
            mesh_file.path = os.path.join(directory, mesh_file.path)
    # So are a robot's URDF and package folders.
    for robot in scene.robots:
        if robot.urdf_path and not os.path.isabs(robot.urdf_path):
            robot.urdf_path = os.path.join(directory, robot.urdf_path)
        for package, folder in robot.packages.items():
            if folder and not os.path.isabs(folder):
                robot.packages[package] = os.path.join(directory, folder)
    return scene


def _check_value(path, value, lowest=None, lowest_allowed=True):
    ok = math.isfinite(value) and (lowest is None or
                                   (value >= lowest if lowest_allowed else value > lowest))
    if not ok:
        bound = "" if lowest is None else f" and {'>=' if lowest_allowed else '>'} {lowest:g}"
        raise ValueError(f"{path}: must be finite{bound}, got {value:g}")


def _check_motor(motor, label, is_default):
    if is_default and motor.joint:
        raise ValueError(f"{label}.joint: must be empty: the default is every joint's that "
                         "`motors` does not name")
    if not is_default and not motor.joint:
        raise ValueError(f"{label}.joint: required (the URDF joint name)")
    mode = motor.WhichOneof("mode")
    if mode == "position":
        p = motor.position
        if is_default and p.target != 0.0:
            raise ValueError(f"{label}.position.target: must be 0 in default_motor (it holds each "
                             f"joint at its joint_positions value), got {p.target:g}")
        _check_value(f"{label}.position.target", p.target)
        _check_value(f"{label}.position.kp", p.kp, 0.0)
        _check_value(f"{label}.position.kd", p.kd, 0.0)
        _check_value(f"{label}.position.target_velocity", p.target_velocity)
        if p.HasField("max_effort"):
            _check_value(f"{label}.position.max_effort", p.max_effort, 0.0, False)
    elif mode == "velocity":
        _check_value(f"{label}.velocity.target", motor.velocity.target)
        if motor.velocity.HasField("max_effort"):
            _check_value(f"{label}.velocity.max_effort", motor.velocity.max_effort, 0.0, False)
    elif mode == "effort":
        _check_value(f"{label}.effort.effort", motor.effort.effort)


def check_scene_robot_motors(scene):
    """ValueError naming robots[i].motors[j] or .default_motor and the field for what the scene
    alone determines (the C++ loader's checks, scenes/loader/scene_robot_motors.h): a motor
    without a joint, a joint named twice, a default naming a joint or with a position target,
    non-finite values, negative gains, max_effort <= 0."""
    for i, robot in enumerate(scene.robots):
        named = {}
        for j, motor in enumerate(robot.motors):
            label = f"robots[{i}].motors[{j}]"
            _check_motor(motor, label, is_default=False)
            if motor.joint in named:
                raise ValueError(f"{label}.joint: '{motor.joint}' is also "
                                 f"motors[{named[motor.joint]}]'s joint (one motor per joint)")
            named[motor.joint] = j
        if robot.HasField("default_motor"):
            _check_motor(robot.default_motor, f"robots[{i}].default_motor", is_default=True)


def _scene_robot_commands(scene_robot, robot_id, joints):
    """SetJointStateRequest.commands for a scene robot's motors: motors[j] first (commands[j]),
    then default_motor for every joint that takes a motor and that motors does not name, as
    the C++ loader sends them. `joints`: the Robot's RobotJoint list."""
    names = [joint.name for joint in joints]
    commands = []
    for j, motor in enumerate(scene_robot.motors):
        if motor.joint not in names:
            raise LookupError(f"motors[{j}].joint: '{motor.joint}' is not a joint of the robot "
                              f"(joints: {', '.join(names)})")
        commands.append((motor.joint, motor))
    default = scene_robot.default_motor
    if scene_robot.HasField("default_motor") and default.WhichOneof("mode"):
        named = {motor.joint for motor in scene_robot.motors}
        for joint in joints:
            if not joint.actuated or joint.name in named:
                continue
            commands.append((joint.name, default))
    messages = []
    for joint, motor in commands:
        command = robot_pb2.JointCommand(robot_id=robot_id, joint=joint)
        mode = motor.WhichOneof("mode")
        if mode:
            getattr(command, mode).CopyFrom(getattr(motor, mode))
        if mode == "position" and motor is default:
            command.position.target = scene_robot.joint_positions.get(joint, 0.0)
        messages.append(command)
    return messages


def check_scene_mesh_files(scene):
    """ValueError naming the element when a mesh_files entry has no name or path, two share a
    name, or a body's mesh_id names none of them (a scene refers to its own mesh files)."""
    names = {}
    for i, mesh_file in enumerate(scene.mesh_files):
        if not mesh_file.name:
            raise ValueError(f"mesh_files[{i}].name: required")
        if not mesh_file.path:
            raise ValueError(f"mesh_files[{i}].path: required")
        if mesh_file.name in names:
            raise ValueError(f"mesh_files[{i}].name: '{mesh_file.name}' is also "
                             f"mesh_files[{names[mesh_file.name]}]'s name")
        names[mesh_file.name] = i
    for i, body in enumerate(scene.bodies):
        if body.WhichOneof("mesh") == "mesh_id" and body.mesh_id not in names:
            raise ValueError(f"{_body_label(i, body)}.mesh_id: '{body.mesh_id}' names no entry of "
                             "mesh_files (a scene refers to its own mesh files)")


def _body_label(index, body):
    return f"bodies[{index}] ({body.name})" if body.name else f"bodies[{index}]"


def _prefixed(error, prefix):
    return ContactSimError(error.code, f"{prefix}: {error.message}", error.rpc)


def load_scene(client, scene, name=None):
    """Loads a SceneFile message or a scene file path through `client`; returns LoadedScene."""
    if not isinstance(scene, scene_file_pb2.SceneFile):
        scene = read_scene_file(scene)
    check_scene_mesh_files(scene)
    check_scene_robot_motors(scene)
    for i, mesh_file in enumerate(scene.mesh_files):
        if not os.path.isfile(mesh_file.path):
            raise OSError(f"mesh_files[{i}] ({mesh_file.name}): {mesh_file.path}: cannot read "
                          "the file")
    request = type(scene.session)()
    request.CopyFrom(scene.session)
    if name:
        request.name = name
    try:
        session = client._create_session(request)
    except ContactSimError as error:
        raise _prefixed(error, "session") from None
    loaded = LoadedScene(session=session, bodies=[], constraint_ids=[],
                         description=scene.description, suggested_steps=scene.suggested_steps)
    element = "session"
    try:
        mesh_ids = {}
        for i, mesh_file in enumerate(scene.mesh_files):
            element = f"mesh_files[{i}] ({mesh_file.name})"
            scale = mesh_file.scale_to_m if mesh_file.HasField("scale_to_m") else None
            uploaded = session.upload_mesh_file(mesh_file.path, format=mesh_file.format or None,
                                                scale_to_m=scale)
            mesh_ids[mesh_file.name] = uploaded.mesh_id
        for i, body in enumerate(scene.bodies):
            element = _body_label(i, body)
            spec = type(body)()
            spec.CopyFrom(body)
            if spec.WhichOneof("mesh") == "mesh_id":
                spec.mesh_id = mesh_ids[spec.mesh_id]
            added = added_body(session._add_body_spec(spec))
            loaded.bodies.append(added)
            if body.name:
                loaded.body_ids_by_name[body.name] = added.body_id
        for i, constraint in enumerate(scene.constraints):
            element = f"constraints[{i}]"
            loaded.constraint_ids.append(session._add_constraint(constraint))
        for i, scene_robot in enumerate(scene.robots):
            element = f"robots[{i}] ({scene_robot.urdf_path})"
            loaded.robots.append(_add_scene_robot(session, scene_robot))
    except ContactSimError as error:
        _close_quietly(session)  # a scene loads completely or not at all
        raise _prefixed(error, element) from None
    except (OSError, LookupError) as error:  # a robot's file or joint, found on this machine
        _close_quietly(session)
        raise type(error)(f"{element}: {error}") from None
    return loaded


def _close_quietly(session):
    try:
        session.close()
    except ContactSimError:
        pass


def _add_scene_robot(session, scene_robot):
    """AddRobot, then one SetJointState with the joint positions and the starting motors."""
    base_pose = None
    if scene_robot.HasField("base_pose"):
        p, q = scene_robot.base_pose.position_m, scene_robot.base_pose.orientation
        quaternion = (q.w, q.x, q.y, q.z) if scene_robot.base_pose.HasField("orientation") \
            else (1.0, 0.0, 0.0, 0.0)
        base_pose = ((p.x, p.y, p.z), quaternion)
    robot = session.add_robot(
        scene_robot.urdf_path, packages=dict(scene_robot.packages), base_pose=base_pose,
        fixed_base=scene_robot.fixed_base if scene_robot.HasField("fixed_base") else True,
        cylinder_sides=scene_robot.options.cylinder_sides or None,
        sphere_segments=scene_robot.options.sphere_segments or None, name=scene_robot.name)
    commands = _scene_robot_commands(scene_robot, robot.robot_id, robot.joints)
    if scene_robot.joint_positions or commands:
        request = robot_pb2.SetJointStateRequest(session_id=session.id, robot_id=robot.robot_id,
                                                 commands=commands)
        for joint, value in scene_robot.joint_positions.items():
            request.positions[joint] = value
        try:
            session._call("SetJointState", request)
        except ContactSimError as error:
            message = error.message
            if message.startswith("commands["):
                index = int(message[len("commands["):message.index("]")])
                named = (f"motors[{index}]" if index < len(scene_robot.motors)
                         else f"default_motor (joint '{commands[index].joint}')")
                message = named + message[message.index("]") + 1:]
            raise ContactSimError(error.code, message, error.rpc) from None
    return robot
