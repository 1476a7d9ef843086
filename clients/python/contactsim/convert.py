"""Conversions between the generated contactsim.v1 messages and the package's plain types."""

import os

from contactsim.v1 import primitives_pb2, scene_pb2, simulation_pb2

from .scene import Friction, GroundPlane, TetMesh, TriangleMesh
from .results import (BodyState, BodyTopology, BodyTotals, ContactPair, Diagnostics, Frame, Quat,
                      SessionInfo, Vec3)

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
        return [float(v) for v in points.ravel()]
    values = []
    for point in points:
        if isinstance(point, (int, float)):
            values.append(float(point))
        else:
            values.extend(float(v) for v in point)
    return values


def _triples(packed):
    return [Vec3(packed[i], packed[i + 1], packed[i + 2]) for i in range(0, len(packed) - 2, 3)]


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


def session_info(summary, settings=None, body_ids=()):
    return SessionInfo(
        session_id=summary.session_id,
        name=summary.name,
        pipeline=summary.pipeline,
        state=_enum_suffix(simulation_pb2.SessionState, summary.state, "SESSION_STATE_"),
        failure_message=summary.failure_message,
        step_count=summary.step_count,
        time_s=summary.time_s,
        num_bodies=summary.num_bodies,
        dt_s=settings.dt_s if settings is not None and settings.HasField("dt_s") else None,
        body_ids=list(body_ids),
    )


def body_state(message):
    return BodyState(
        body_id=message.body_id,
        kind=_enum_suffix(scene_pb2.BodyKind, message.kind, "BODY_KIND_"),
        position_m=vec3(message.p_WB_m),
        orientation=Quat(message.q_WB.w, message.q_WB.x, message.q_WB.y, message.q_WB.z),
        linear_velocity_m_per_s=vec3(message.v_WB_m_per_s),
        angular_velocity_rad_per_s=vec3(message.w_WB_rad_per_s),
        vertex_positions_m=_triples(message.positions_m),
        vertex_velocities_m_per_s=_triples(message.velocities_m_per_s),
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
        )
        for record in report.contacts
    ]


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


def frame(message):
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
        positions[body.body_id] = _triples(body.positions_m_f64 or body.positions_m_f32)
        packed_velocities = body.velocities_m_per_s_f64 or body.velocities_m_per_s_f32
        if packed_velocities:
            velocities[body.body_id] = _triples(packed_velocities)
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
    )

