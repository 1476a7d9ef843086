"""Conversions between the generated contactsim.v1 messages and the package's plain types."""

import os

from contactsim.v1 import primitives_pb2, scene_pb2, simulation_pb2

import numpy as np

from . import robots as robot_types
from . import wire
from .scene import Friction, GroundPlane, TetMesh, TriangleMesh
from .results import (BodyState, BodyTopology, BodyTotals, ConstraintReaction, ContactArrays,
                      ContactPair, Diagnostics, Frame, Quat, Reactions, SessionInfo, Vec3)

_BODY_KINDS = {
    "rigid": scene_pb2.BODY_KIND_RIGID,
    "static": scene_pb2.BODY_KIND_STATIC,
    "kinematic": scene_pb2.BODY_KIND_KINEMATIC,
    "cloth": scene_pb2.BODY_KIND_CLOTH,
    "fem": scene_pb2.BODY_KIND_FEM,
    "hyperelastic": scene_pb2.BODY_KIND_HYPERELASTIC,
}
_CONTACT_MODELS = {
    "dpf": scene_pb2.CONTACT_MODEL_DPF,
    "dpf_ccd_normal": scene_pb2.CONTACT_MODEL_DPF_CCD_NORMAL,
    "cpf": scene_pb2.CONTACT_MODEL_CPF,
    "cpf_exact": scene_pb2.CONTACT_MODEL_CPF_EXACT,
    "dpf_proximity": scene_pb2.CONTACT_MODEL_DPF_PROXIMITY,
}


def body_kind(name):
    """"rigid", "static", "kinematic", "cloth", "fem" or "hyperelastic" -> the BodyKind value."""
    try:
        return _BODY_KINDS[name.lower()]
    except KeyError:
        raise ValueError(f"kind: {name!r} is not one of {sorted(_BODY_KINDS)}") from None


def contact_model(name):
    try:
        return _CONTACT_MODELS[name.lower()]
    except KeyError:
        raise ValueError(
            f"contact_model: {name!r} is not one of {sorted(_CONTACT_MODELS)}") from None


def _enum_suffix(enum_type, value, prefix):
    """BODY_KIND_RIGID -> "RIGID" (the enum name without its prefix)."""
    try:
        name = enum_type.Name(value)
    except ValueError:
        return str(value)
    return name[len(prefix):] if name.startswith(prefix) else name


def vec3(message):
    return Vec3(message.x, message.y, message.z)


def to_vec3(values, message):
    """Fills a Vec3 message from any (x, y, z) sequence."""
    x, y, z = values
    message.x, message.y, message.z = float(x), float(y), float(z)


def to_quat(values, message):
    w, x, y, z = values
    message.w, message.x, message.y, message.z = float(w), float(x), float(y), float(z)


def packed_xyz(points):
    """Packed x y z floats from a sequence of (x, y, z) points, a flat sequence of 3 n numbers or
    anything with .ravel() (a numpy array of shape (n, 3))."""
    if hasattr(points, "ravel"):
        return np.asarray(points, dtype=np.float64).ravel().tolist()
    values = []
    for point in points:
        if isinstance(point, (int, float)):
            values.append(float(point))
        else:
            values.extend(float(v) for v in point)
    return values


# Mesh file formats by name and by extension (UploadMeshChunk.format).
_MESH_FILE_FORMATS = {
    "obj": simulation_pb2.MESH_FILE_FORMAT_OBJ,
    "stl": simulation_pb2.MESH_FILE_FORMAT_STL,
    "ply": simulation_pb2.MESH_FILE_FORMAT_PLY,
    "gltf": simulation_pb2.MESH_FILE_FORMAT_GLTF,
    "glb": simulation_pb2.MESH_FILE_FORMAT_GLB,
    "msh": simulation_pb2.MESH_FILE_FORMAT_GMSH,
    "gmsh": simulation_pb2.MESH_FILE_FORMAT_GMSH,
    "tetgen": simulation_pb2.MESH_FILE_FORMAT_TETGEN,
    "node": simulation_pb2.MESH_FILE_FORMAT_TETGEN,
    "ele": simulation_pb2.MESH_FILE_FORMAT_TETGEN,
}
MESH_FILE_FORMAT_NAMES = ("obj", "stl", "ply", "gltf", "glb", "msh", "tetgen")


def mesh_file_format(path, name=None):
    """The MeshFileFormat of `name` ("obj", "stl", "ply", "gltf", "glb", "msh", "tetgen") or,
    when name is None, of the path's extension (.obj .stl .ply .gltf .glb .msh .node .ele)."""
    if isinstance(name, int) and name in _MESH_FILE_FORMATS.values():
        return name  # a MeshFileFormat value (as a scene file's mesh_files[].format has it)
    if name is not None:
        key = str(name).lower()
        if key not in _MESH_FILE_FORMATS:
            raise ValueError(f"format: {name!r} is not one of {list(MESH_FILE_FORMAT_NAMES)}")
        return _MESH_FILE_FORMATS[key]
    extension = os.path.splitext(os.fspath(path))[1].lstrip(".").lower()
    if extension in ("tetgen", "gmsh") or extension not in _MESH_FILE_FORMATS:
        raise ValueError(f"{path}: unknown mesh file extension (known: .obj .stl .ply .gltf .glb "
                         ".msh .node/.ele); pass format=")
    return _MESH_FILE_FORMATS[extension]


def mesh_into(mesh, spec):
    """Puts a TriangleMesh, TetMesh, PrimitiveMesh message or uploaded mesh id (str) into a
    BodySpec's mesh oneof."""
    if isinstance(mesh, str):
        spec.mesh_id = mesh
    elif isinstance(mesh, primitives_pb2.PrimitiveMesh):
        spec.primitive.CopyFrom(mesh)
    elif isinstance(mesh, TriangleMesh):
        target = spec.triangle_mesh
        for vertex in mesh.vertices_m:
            target.vertices_m.extend(float(c) for c in vertex)
        for triangle in mesh.triangles:
            target.triangles.extend(int(i) for i in triangle)
    elif isinstance(mesh, TetMesh):
        target = spec.tet_mesh
        for vertex in mesh.vertices_m:
            target.vertices_m.extend(float(c) for c in vertex)
        for tet in mesh.tetrahedra:
            target.tetrahedra.extend(int(i) for i in tet)
    else:
        raise TypeError("mesh: expected contactsim.TriangleMesh, contactsim.TetMesh, a "
                        "contactsim.v1.primitives_pb2.PrimitiveMesh or an uploaded mesh id (str)")


_FRICTION_MODELS = {
    "none": scene_pb2.FRICTION_MODEL_NONE,
    "yamane_nakamura": scene_pb2.FRICTION_MODEL_YAMANE_NAKAMURA,
    "viscous": scene_pb2.FRICTION_MODEL_VISCOUS,
}


def friction_into(friction, message):
    if not isinstance(friction, Friction):
        raise TypeError("friction: expected contactsim.Friction")
    try:
        message.model = _FRICTION_MODELS[friction.model.lower()]
    except KeyError:
        raise ValueError(
            f"friction.model: {friction.model!r} is not one of {sorted(_FRICTION_MODELS)}"
        ) from None
    message.spring_n_per_m = float(friction.spring_n_per_m)
    message.damping_ns_per_m = float(friction.damping_ns_per_m)
    message.mu_static = float(friction.mu_static)
    message.mu_dynamic = float(friction.mu_dynamic)
    message.viscous_coefficient_ns_per_m = float(friction.viscous_coefficient_ns_per_m)


def ground_plane_into(plane, message):
    if not isinstance(plane, GroundPlane):
        raise TypeError("ground_planes: expected contactsim.GroundPlane items")
    to_vec3(plane.normal, message.normal)
    message.offset_m = float(plane.offset_m)


_ROBOT_JOINT_TYPE_PREFIX = "ROBOT_JOINT_TYPE_"


def robot(message):
    """A Robot from a RobotInfo message."""
    from contactsim.v1 import robot_pb2

    joints = [
        robot_types.RobotJoint(
            name=j.name, type=_enum_suffix(robot_pb2.RobotJointType, j.type,
                                           _ROBOT_JOINT_TYPE_PREFIX),
            index=j.index, parent_link=j.parent_link, child_link=j.child_link,
            has_limits=j.has_limits, lower=j.lower, upper=j.upper,
            effort_limit=j.effort_limit, velocity_limit=j.velocity_limit, damping=j.damping,
            friction=j.friction, mimic_joint=j.mimic_joint, mimic_multiplier=j.mimic_multiplier,
            mimic_offset=j.mimic_offset)
        for j in message.joints
    ]
    joints.sort(key=lambda joint: joint.index)
    return robot_types.Robot(robot_id=message.robot_id, name=message.name,
                             links={link.name: link.body_id for link in message.links},
                             joints=joints, fixed_base=message.fixed_base,
                             notes=list(message.notes))


def pose_into(pose, message, field):
    """Fills a Pose message from a scene_pb2.Pose, a dict {"position_m", "orientation"}, a
    (position_m, orientation) pair or a bare (x, y, z) position; orientation (w, x, y, z) or
    None for identity."""
    if isinstance(pose, scene_pb2.Pose):
        message.CopyFrom(pose)
        return
    if isinstance(pose, dict):
        unknown = set(pose) - {"position_m", "orientation"}
        if unknown:
            raise ValueError(f"{field}: unknown keys {sorted(unknown)}; expected position_m, "
                             "orientation")
        position, orientation = pose.get("position_m"), pose.get("orientation")
    elif len(pose) == 3 and all(isinstance(v, (int, float, np.floating, np.integer))
                                for v in pose):
        position, orientation = pose, None
    elif len(pose) == 2:
        position, orientation = pose
    else:
        raise ValueError(f"{field}: expected (x, y, z), ((x, y, z), (w, x, y, z)) or a dict")
    to_vec3((0.0, 0.0, 0.0) if position is None else position, message.position_m)
    to_quat((1.0, 0.0, 0.0, 0.0) if orientation is None else orientation, message.orientation)


def joint_states(messages, robots):
    """{robot id: JointStates} of a reply's RobotJointStates list; `robots` ({robot id: Robot})
    supplies the joint names it knows."""
    states = {}
    for message in messages:
        known = robots.get(message.robot_id)
        states[message.robot_id] = robot_types.joint_states(
            message, known.joint_names if known is not None else None)
    return states


def session_info(summary, settings=None, body_ids=(), robots=()):
    return SessionInfo(
        session_id=summary.session_id,
        name=summary.name,
        pipeline=summary.pipeline,
        state=_enum_suffix(simulation_pb2.SessionState, summary.state, "SESSION_STATE_"),
        failure_message=summary.failure_message,
        step_count=summary.step_count,
        time_s=summary.time_s,
        num_bodies=summary.num_bodies,
        memory_bytes=summary.memory_bytes,
        memory={
            part: getattr(summary.memory, part + "_bytes")
            for part in ("meshes", "bodies", "collision", "solver", "frames", "snapshots")
        },
        dt_s=settings.dt_s if settings is not None and settings.HasField("dt_s") else None,
        body_ids=list(body_ids),
        settings=settings,
        robots=[robot(message) for message in robots],
    )


# Field numbers of the packed per-vertex arrays (scene.proto BodyState, simulation.proto BodyFrame).
_BODY_STATE_ARRAYS = {7: "<f8", 8: "<f8"}  # positions_m, velocities_m_per_s
_BODY_FRAME_ARRAYS = {2: "<f4", 3: "<f8", 4: "<f4", 5: "<f8"}


def body_state(message):
    arrays = wire.packed_arrays(message, _BODY_STATE_ARRAYS)
    return BodyState(
        body_id=message.body_id,
        kind=_enum_suffix(scene_pb2.BodyKind, message.kind, "BODY_KIND_"),
        position_m=vec3(message.p_WB_m),
        orientation=Quat(message.q_WB.w, message.q_WB.x, message.q_WB.y, message.q_WB.z),
        linear_velocity_m_per_s=vec3(message.v_WB_m_per_s),
        angular_velocity_rad_per_s=vec3(message.w_WB_rad_per_s),
        vertex_positions_m=wire.xyz(arrays[7]),
        vertex_velocities_m_per_s=wire.xyz(arrays[8]),
    )


def contact_pairs(report):
    return [
        ContactPair(
            body_a=record.body_a,
            body_b=record.body_b,
            kind=_enum_suffix(scene_pb2.ContactFeatureKind, record.kind, "CONTACT_FEATURE_"),
            feature_a=record.feature_a,
            feature_b=record.feature_b,
            point_m=vec3(record.p_WC_m),
            normal=vec3(record.normal_W),
            depth_m=record.depth_m,
            normal_impulse_ns=vec3(record.normal_impulse_ns),
            friction_impulse_ns=vec3(record.friction_impulse_ns),
            torsional_impulse_nms=vec3(record.torsional_impulse_nms),
        )
        for record in report.contacts
    ]


def contact_arrays(report):
    # One flat pass over the records (21 numbers each) into one float64 array, then column views:
    # about 3x faster than one pass per field. Ids and kinds are int32 on the wire, exact in a
    # float64.
    values = []
    extend = values.extend
    for r in report.contacts:
        p, n, jn, jf = r.p_WC_m, r.normal_W, r.normal_impulse_ns, r.friction_impulse_ns
        jt = r.torsional_impulse_nms
        extend((r.body_a, r.body_b, r.kind, r.feature_a, r.feature_b, p.x, p.y, p.z, n.x, n.y,
                n.z, r.depth_m, jn.x, jn.y, jn.z, jf.x, jf.y, jf.z, jt.x, jt.y, jt.z))
    table = np.array(values, dtype=np.float64).reshape(-1, 21)
    ids = table[:, :5].astype(np.int64)
    return ContactArrays(
        body_a=ids[:, 0], body_b=ids[:, 1], kind=ids[:, 2], feature_a=ids[:, 3],
        feature_b=ids[:, 4], point_m=table[:, 5:8], normal=table[:, 8:11], depth_m=table[:, 11],
        normal_impulse_ns=table[:, 12:15], friction_impulse_ns=table[:, 15:18],
        torsional_impulse_nms=table[:, 18:21])


def body_totals(report):
    return {
        totals.body_id: BodyTotals(
            body_id=totals.body_id,
            impulse_ns=vec3(totals.impulse_ns),
            angular_impulse_nms=vec3(totals.angular_impulse_nms),
            contact_count=totals.contact_count,
        )
        for totals in report.body_totals
    }


def reactions(message):
    return Reactions(
        constraints={
            r.constraint_id: ConstraintReaction(
                constraint_id=r.constraint_id,
                kind=_enum_suffix(scene_pb2.ConstraintKind, r.kind, "CONSTRAINT_KIND_"),
                body_id=r.body_id,
                target_body_id=r.target_body_id,
                impulse_ns=vec3(r.impulse_ns),
            )
            for r in message.constraints
        },
        bodies={b.body_id: vec3(b.impulse_ns) for b in message.body_totals},
    )


def diagnostics(message):
    return Diagnostics(
        step=message.step,
        time_s=message.time_s,
        kinetic_energy_j=message.kinetic_energy_j,
        potential_energy_j=message.potential_energy_j,
        max_penetration_depth_m=message.max_penetration_depth_m,
        active_pairs=message.active_pairs,
        plane_contacts=message.plane_contacts,
        stick_contacts=message.stick_contacts,
        slip_contacts=message.slip_contacts,
        diverged=message.diverged,
        divergence_message=message.divergence_message,
    )


def frame(message, robots=None):
    topology = None
    if message.topology:
        topology = [
            BodyTopology(
                body_id=body.body_id,
                kind=_enum_suffix(scene_pb2.BodyKind, body.kind, "BODY_KIND_"),
                name=body.name,
                triangles=[tuple(body.surface.triangles[i:i + 3])
                           for i in range(0, len(body.surface.triangles) - 2, 3)],
            )
            for body in message.topology
        ]
    positions = {}
    velocities = {}
    for body in message.bodies:
        arrays = wire.packed_arrays(body, _BODY_FRAME_ARRAYS)
        positions[body.body_id] = wire.xyz(arrays[3] if arrays[3].size else arrays[2])
        packed_velocities = arrays[5] if arrays[5].size else arrays[4]
        if packed_velocities.size:
            velocities[body.body_id] = wire.xyz(packed_velocities)
    return Frame(
        seq=message.seq,
        time_s=message.time_s,
        step_count=message.step_count,
        coalesced=message.coalesced,
        topology=topology,
        bodies=positions,
        velocities=velocities,
        contacts=contact_pairs(message.contacts),
        totals=body_totals(message.contacts),
        diagnostics=diagnostics(message.diagnostics) if message.HasField("diagnostics") else None,
        oldest_available_seq=message.oldest_available_seq,
        reactions=reactions(message.reactions) if message.HasField("reactions") else None,
        joint_states=joint_states(message.joint_states, robots or {}),
    )



def fill_message(message, values, path):
    """Sets the fields of `message` from a dict {field name: value} (or copies a message of the
    same type), so that every field of the proto, present and future, is settable by name. Enum
    fields take the value's name with or without the enum's prefix ("peg", "RIGID_CONTACT_MODEL_PEG")
    or its number; message fields take a dict or a message. ValueError naming `path.field` for an
    unknown field or enum value."""
    if isinstance(values, type(message)):
        message.CopyFrom(values)
        return
    if not isinstance(values, dict):
        raise TypeError(f"{path}: expected a dict of settings or a {message.DESCRIPTOR.name}")
    fields = message.DESCRIPTOR.fields_by_name
    for name, value in values.items():
        field_path = f"{path}.{name}"
        if name not in fields:
            raise ValueError(f"{field_path}: unknown setting; {path} has "
                             f"{', '.join(sorted(fields))}")
        if value is None:
            continue
        descriptor = fields[name]
        if descriptor.message_type is not None:
            if descriptor.message_type.name == "Vec3" and not isinstance(value, dict) and \
                    not hasattr(value, "DESCRIPTOR"):
                to_vec3(value, getattr(message, name))
            else:
                fill_message(getattr(message, name), value, field_path)
        elif descriptor.enum_type is not None:
            setattr(message, name, _enum_value(descriptor.enum_type, value, field_path))
        else:
            setattr(message, name, value)


def _enum_value(enum_type, value, path):
    if isinstance(value, int):
        return value
    names = [v.name for v in enum_type.values]
    prefix = os.path.commonprefix(names)
    prefix = prefix[:prefix.rfind("_") + 1]
    key = str(value).upper()
    for candidate in (key, prefix + key):
        if candidate in enum_type.values_by_name:
            return enum_type.values_by_name[candidate].number
    raise ValueError(f"{path}: {value!r} is not one of "
                     f"{[n[len(prefix):].lower() for n in names if not n.endswith('UNSPECIFIED')]}")


def added_body(response):
    from .results import AddedBody

    return AddedBody(body_id=response.body_id, num_vertices=response.num_vertices,
                     mass_kg=response.mass_kg,
                     center_of_mass_m=vec3(response.center_of_mass_M_m))
