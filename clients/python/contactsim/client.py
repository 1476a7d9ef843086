"""Client and Session: the pythonic face of the contactsim.v1.Simulation service.

Client holds the channel and makes the token-free calls (ping, create_session, list_sessions);
Session holds a session id and one token and sends it as `authorization: Bearer <token>` with
every call, and the session id as `x-contactsim-session` metadata, which a gateway in front of
several servers routes by (docs/deploy.md). Every failure is raised as ContactSimError with the gRPC
code and the server's message.
"""

import os
import urllib.parse

import grpc

from contactsim.v1 import (primitives_pb2, robot_pb2, scene_pb2, simulation_pb2,
                           simulation_pb2_grpc)

from . import convert, robots, scene_file, urdf_meshes
from .errors import ContactSimError
from .results import Snapshot, StepResult, UploadedMesh
from .scene import box_mesh
from .tls import TlsOptions

_MIB = 1 << 20
# The parts a Step reply can be limited to (StepRequest.reply_parts).
STEP_REPLY_PARTS = ("body_poses", "body_velocities", "vertex_positions", "contact_pairs",
                    "contact_totals", "diagnostics", "joint_states")
# The metadata key that carries a call's session id; the gateway maps it to the session's replica.
SESSION_HEADER = "x-contactsim-session"


def _metadata(token, session_id):
    metadata = []
    if token is not None:
        metadata.append(("authorization", f"Bearer {token}"))
    if session_id is not None:
        metadata.append((SESSION_HEADER, session_id))
    return tuple(metadata) or None


class Client:
    """A connection to a contactsim-server.

    target: "host:port"; timeout_s: deadline of each unary call [s] (streams have none);
    max_message_mib: the largest message sent or received (the server's default limit is 64);
    creator_token: the server's creator token (its --creator-token-file), sent with
    create_session when the server needs one.
    tls: None for plaintext (which a TLS server refuses: UNAVAILABLE), a TlsOptions (e.g.
    TlsOptions.from_files(ca_file, cert_file, key_file) for a server started with --tls-cert and,
    for mutual TLS, --tls-client-ca), or True for TLS with gRPC's default roots. A failed
    handshake shows up at the first call, as UNAVAILABLE.
    Use as a context manager, or call close(), to release the channel.
    """

    def __init__(self, target="127.0.0.1:50051", timeout_s=30.0, max_message_mib=64,
                 creator_token=None, tls=None):
        if timeout_s is not None and timeout_s <= 0:
            raise ValueError("timeout_s: must be > 0 (or None for no deadline)")
        self.target = target
        self.timeout_s = timeout_s
        self.creator_token = creator_token
        limit = int(max_message_mib * _MIB)
        options = [("grpc.max_send_message_length", limit),
                   ("grpc.max_receive_message_length", limit)]
        if tls is True:
            tls = TlsOptions()
        if tls:
            if not isinstance(tls, TlsOptions):
                raise TypeError("tls: expected contactsim.TlsOptions, True or None")
            if tls.target_name_override:
                options.append(("grpc.ssl_target_name_override", tls.target_name_override))
            self._channel = grpc.secure_channel(target, tls.channel_credentials(),
                                                options=options)
        else:
            self._channel = grpc.insecure_channel(target, options=options)
        self._stub = simulation_pb2_grpc.SimulationStub(self._channel)

    def _call(self, rpc, request, token=None, session_id=None):
        metadata = _metadata(token, session_id)
        try:
            return getattr(self._stub, rpc)(request, timeout=self.timeout_s, metadata=metadata)
        except grpc.RpcError as error:
            raise ContactSimError.from_rpc_error(error, rpc) from None

    def ping(self, payload=b""):
        """Round trip of `payload` (no token, no work); returns the echoed bytes."""
        return self._call("Ping", simulation_pb2.PingRequest(payload=payload)).payload

    def create_session(self, name="", *, ground_planes=(), dt_s=None, gravity_m_per_s2=None,
                       stiffness_n_per_m=None, contact_model=None, friction=None,
                       min_separation_m=None, self_collision=False, energy_growth_factor=None,
                       contact_restitution=None, pipeline="", local_global=None, rigid_lcp=None,
                       device="", settings=None):
        """Creates a session and returns its controller Session (which also knows the viewer
        token). Unset settings take the server defaults (dt 0.001 s, gravity (0, 0, -9.81) m/s^2,
        stiffness 1e4 N/m, CPF contacts, no friction, contact_restitution 1: no contact
        damping; in [0, 1], the bounce speed over the approach speed of one contact).
        pipeline: "penalty" (default), "local_global" or "rigid_lcp"; contact_model: "dpf",
        "dpf_ccd_normal", "dpf_proximity", "cpf" or "cpf_exact"; friction: a contactsim.Friction;
        ground_planes: GroundPlane items (contactsim.ground_plane() is z = 0).
        local_global: the local_global pipeline's settings as a dict, e.g. {"iterations": 20,
        "contact_proximity_m": 1e-3, "friction_coefficient": 0.5, "cr_iterations": 50} (or a
        scene_pb2.LocalGlobalSettings); rigid_lcp: the rigid_lcp pipeline's, e.g.
        {"contact_model": "peg", "friction_coefficient": 0.5, "friction_directions": 8,
        "lcp_tolerance": 1e-10, "contact_distance_floor_m": 1e-4, "projection_passes": 2} (or a
        scene_pb2.RigidLcpSettings); field names as in proto/contactsim/v1/scene.proto, an
        unknown one raises ValueError naming it. settings: any other WorldSettings fields as a
        dict (or a whole WorldSettings message), applied before the named arguments. device:
        "auto", "cpu" or "cuda" (local_global sessions)."""
        request = simulation_pb2.CreateSessionRequest(pipeline=pipeline, name=name,
                                                      device=device)
        settings_message = request.settings
        if settings is not None:
            convert.fill_message(settings_message, settings, "settings")
        if local_global is not None:
            convert.fill_message(settings_message.local_global, local_global,
                                 "settings.local_global")
        if rigid_lcp is not None:
            convert.fill_message(settings_message.rigid_lcp, rigid_lcp, "settings.rigid_lcp")
        settings = settings_message
        if dt_s is not None:
            settings.dt_s = float(dt_s)
        if gravity_m_per_s2 is not None:
            convert.to_vec3(gravity_m_per_s2, settings.gravity_m_per_s2)
        if stiffness_n_per_m is not None:
            settings.stiffness_n_per_m = float(stiffness_n_per_m)
        if contact_model is not None:
            settings.contact_model = convert.contact_model(contact_model)
        if friction is not None:
            convert.friction_into(friction, settings.friction)
        if min_separation_m is not None:
            settings.min_separation_m = float(min_separation_m)
        if energy_growth_factor is not None:
            settings.energy_growth_factor = float(energy_growth_factor)
        if contact_restitution is not None:
            settings.contact_restitution = float(contact_restitution)
        if self_collision:
            settings.self_collision = True
        for plane in ground_planes:
            convert.ground_plane_into(plane, request.ground_planes.add())
        return self._create_session(request)

    def _create_session(self, request):
        created = self._call("CreateSession", request, token=self.creator_token)
        return Session(self, created.session_id, created.controller_token,
                       viewer_token=created.viewer_token, owned=True)

    def load_scene(self, scene, name=None):
        """Loads a scene file (a path to a scenes/*.textproto, or a contactsim.v1.scene_file_pb2
        .SceneFile) as `contactsim load` does: creates its session (named `name` when given),
        uploads its mesh files (paths relative to the scene file), adds its bodies,
        constraints and robots (URDFs relative to the scene file; their joint_positions and
        starting motors, motors and default_motor, in one SetJointState). Returns LoadedScene
        (session, bodies, constraint_ids, robots, description, suggested_steps,
        body_ids_by_name); its session closes when used as a context manager. A refused element
        closes the half-built session and raises ContactSimError with the element first
        ("bodies[3] (torus2): ...", "robots[0] (arm.urdf): motors[1].joint: ..."); a file that
        does not parse or a motor the scene alone shows to be wrong raises ValueError
        ("path:line:column: ...", "path: robots[0].motors[1].position.kp: ..."), a missing file
        OSError, a motor naming a joint the robot lacks LookupError."""
        return scene_file.load_scene(self, scene, name)

    def list_sessions(self):
        """Every session on the server as SessionInfo (no tokens)."""
        response = self._call("ListSessions", simulation_pb2.ListSessionsRequest())
        return [convert.session_info(summary) for summary in response.sessions]

    def session(self, session_id, token, viewer_token=None):
        """A handle on an existing session with a controller or viewer token (a viewer handle
        can read and stream; stepping with it raises PERMISSION_DENIED); viewer_token, when
        known, is what viewer_url() puts in the URL. Leaving it as a context manager does not
        close the session."""
        return Session(self, session_id, token, viewer_token=viewer_token, owned=False)

    def close(self):
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


class FrameStream:
    """An iterator of Frame from StreamState. cancel() (from any thread) ends it; the iteration
    also ends when the session closes. Errors are raised as ContactSimError."""

    def __init__(self, call, robots=None):
        self._call = call
        self._robots = robots
        self._cancelled = False

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return convert.frame(next(self._call), self._robots)
        except grpc.RpcError as error:
            if self._cancelled and error.code() == grpc.StatusCode.CANCELLED:
                raise StopIteration from None
            raise ContactSimError.from_rpc_error(error, "StreamState") from None

    def cancel(self):
        self._cancelled = True
        self._call.cancel()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.cancel()


class Session:
    """One session seen through one token. `id` and `token` identify it; sessions made by
    Client.create_session also carry `viewer_token` and close the session when used as a
    context manager."""

    def __init__(self, client, session_id, token, viewer_token=None, owned=False):
        self.client = client
        self.id = session_id
        self.token = token
        self.viewer_token = viewer_token
        # robot id -> Robot, from add_robot and info(); names the joints of step results.
        self.robots = {}
        self._owned = owned

    def _call(self, rpc, request):
        return self.client._call(rpc, request, self.token, self.id)

    def info(self):
        """The session's SessionInfo, with dt_s, body_ids and robots (GetSession; either
        token). Also refreshes `robots`, so that a handle on an existing session names the
        joints in its step results after one info()."""
        response = self._call("GetSession", simulation_pb2.GetSessionRequest(session_id=self.id))
        info = convert.session_info(response.summary, response.settings, response.body_ids,
                                    response.robots)
        self.robots = {robot.robot_id: robot for robot in info.robots}
        return info

    def add_robot(self, urdf_path, *, packages=None, base_pose=None, fixed_base=True,
                  cylinder_sides=None, sphere_segments=None, name="", mesh_files=None):
        """Loads a URDF file into this session (a rigid_lcp one; others: FAILED_PRECONDITION)
        and returns its Robot (robot_id, name, links {name: body id}, joints).

        Every `<mesh filename>` of the URDF (visual and collision) is found on this machine and
        sent as bytes under the name the URDF writes: `package://NAME/REST` from
        packages={"NAME": folder}, else the first ROS_PACKAGE_PATH root holding NAME/REST;
        file:// and absolute paths as given; relative paths against the URDF's folder
        (docs/robots.md, "Python"). A mesh that cannot be found or read raises
        contactsim.MeshNotFoundError (a FileNotFoundError) naming it BEFORE any rpc.
        base_pose: the root link's pose, (x, y, z) or ((x, y, z), (w, x, y, z)); fixed_base:
        the root held by the world (True) or free; cylinder_sides in [3, 256] (server default
        16) and sphere_segments in [4, 64] (12): the collision polytopes' resolution; name:
        empty for the URDF's <robot name>. mesh_files: {filename as written: bytes} sent
        instead of reading those files."""
        with open(urdf_path, encoding="utf-8-sig") as file:  # -sig: a BOM is no text
            urdf_text = file.read()
        return self.add_robot_text(
            urdf_text, mesh_files, base_dir=os.path.dirname(os.path.abspath(urdf_path)),
            packages=packages, base_pose=base_pose, fixed_base=fixed_base,
            cylinder_sides=cylinder_sides, sphere_segments=sphere_segments, name=name)

    def add_robot_text(self, urdf_text, mesh_files=None, *, base_dir=None, packages=None,
                       base_pose=None, fixed_base=True, cylinder_sides=None,
                       sphere_segments=None, name=""):
        """add_robot from the URDF's text: mesh_files {filename as written: bytes} are sent as
        given; meshes the URDF names that mesh_files lacks are found as add_robot finds them,
        relative paths against base_dir (none: a relative one raises MeshNotFoundError). A key
        of mesh_files that the URDF does not name raises ValueError."""
        files = urdf_meshes.read_mesh_files(urdf_text, given=mesh_files, urdf_dir=base_dir,
                                            packages=packages)
        request = robot_pb2.AddRobotRequest(session_id=self.id, urdf=urdf_text, name=name,
                                            fixed_base=bool(fixed_base))
        for path, data in files.items():
            request.mesh_files.add(path=path, data=data)
        if base_pose is not None:
            convert.pose_into(base_pose, request.base_pose, "base_pose")
        if cylinder_sides is not None:
            request.options.cylinder_sides = int(cylinder_sides)
        if sphere_segments is not None:
            request.options.sphere_segments = int(sphere_segments)
        robot = convert.robot(self._call("AddRobot", request).robot)
        self.robots[robot.robot_id] = robot
        return robot

    def set_joint_state(self, robot, positions=None, velocities=None, joint_commands=None):
        """Sets joint positions {joint: q [rad or m]} and velocities {joint: qdot}; the links
        follow by forward kinematics from the base (its pose and velocity kept). Joints not
        named keep their positions, with velocity 0. joint_commands (this robot's JointPosition,
        JointVelocity, JointEffort or JointOff, as step takes them) set its motors with the
        state; they persist as step's do. NOT_FOUND naming an unknown robot or joint;
        INVALID_ARGUMENT naming commands[i] for a command the joint cannot take (nothing is set
        then). Returns (step_count, time_s), unchanged by the call."""
        request = robot_pb2.SetJointStateRequest(session_id=self.id,
                                                 robot_id=robots.robot_id_of(robot))
        for joint, value in (positions or {}).items():
            request.positions[joint] = float(value)
        for joint, value in (velocities or {}).items():
            request.velocities[joint] = float(value)
        if isinstance(joint_commands, dict):
            raise TypeError("joint_commands: expected a list of JointPosition, JointVelocity, "
                            "JointEffort or JointOff (robot.position({...}, kp=..., kd=...) "
                            "makes one from a dict)")
        for command in joint_commands or []:
            robots.command_into(command, request.commands.add())
        response = self._call("SetJointState", request)
        return response.step_count, response.time_s

    def add_body(self, mesh, kind="rigid", *, position_m=(0.0, 0.0, 0.0), orientation=None,
                 density_kg_per_m3=None, name="", linear_velocity_m_per_s=None,
                 angular_velocity_rad_per_s=None, collision_disabled=False, material=None):
        """Adds a body from an inline TriangleMesh or TetMesh, an uploaded mesh's id (str, from
        upload_mesh_file) or a contactsim.v1.primitives_pb2.PrimitiveMesh, placed at position_m
        [m] with orientation (w, x, y, z). kind: "rigid" (needs density_kg_per_m3 and a closed mesh),
        "static", "kinematic", "cloth", "fem" or "hyperelastic" (pass
        material=scene_pb2.ClothMaterial(...), FemMaterial(...) or HyperelasticMaterial(...);
        hyperelastic bodies need a session with pipeline="local_global"). Returns AddedBody (id,
        vertex count, mass)."""
        spec = scene_pb2.BodySpec(name=name, kind=convert.body_kind(kind),
                                  collision_disabled=bool(collision_disabled))
        convert.mesh_into(mesh, spec)
        convert.to_vec3(position_m, spec.pose.position_m)
        if orientation is not None:
            convert.to_quat(orientation, spec.pose.orientation)
        if density_kg_per_m3 is not None:
            spec.rigid.density_kg_per_m3 = float(density_kg_per_m3)
        if linear_velocity_m_per_s is not None:
            convert.to_vec3(linear_velocity_m_per_s, spec.linear_velocity_m_per_s)
        if angular_velocity_rad_per_s is not None:
            convert.to_vec3(angular_velocity_rad_per_s, spec.angular_velocity_rad_per_s)
        if isinstance(material, scene_pb2.ClothMaterial):
            spec.cloth.CopyFrom(material)
        elif isinstance(material, scene_pb2.FemMaterial):
            spec.fem.CopyFrom(material)
        elif isinstance(material, scene_pb2.HyperelasticMaterial):
            spec.hyperelastic.CopyFrom(material)
        elif material is not None:
            raise TypeError("material: expected a contactsim.v1.scene_pb2.ClothMaterial, "
                            "FemMaterial or HyperelasticMaterial")
        return convert.added_body(self._add_body_spec(spec))

    def _add_body_spec(self, spec):
        return self._call("AddBody", simulation_pb2.AddBodyRequest(session_id=self.id, body=spec))

    def add_box(self, half_extents_m, *, position_m=(0.0, 0.0, 0.0), kind="rigid",
                density_kg_per_m3=1000.0, **kwargs):
        """Adds a box with half sizes (hx, hy, hz) [m] (or one number for a cube) centred at
        position_m. density_kg_per_m3 is used by rigid boxes only."""
        cube = isinstance(half_extents_m, (int, float))
        halves = (half_extents_m,) * 3 if cube else half_extents_m
        density = density_kg_per_m3 if kind == "rigid" else None
        return self.add_body(box_mesh(*halves), kind, position_m=position_m,
                             density_kg_per_m3=density, **kwargs)

    def upload_mesh_file(self, path, *, format=None, scale_to_m=None, chunk_bytes=1 << 20):
        """Sends a mesh file to the session (UploadMesh), where the server parses it: OBJ, STL
        (ASCII or binary), PLY, glTF (buffers embedded) or GLB give a triangle mesh with corners
        at equal positions welded; Gmsh .msh (ASCII 2.2 or 4.1) or TetGen (.node with its .ele
        beside it) a tet mesh. format: "obj", "stl", "ply", "gltf", "glb", "msh" or "tetgen"
        (default: from the extension). scale_to_m: metres per file unit (0.001 for millimetres;
        default 1). Returns UploadedMesh; its mesh_id goes to add_body. A file the server cannot
        read raises ContactSimError INVALID_ARGUMENT naming "file_bytes" and the line or element;
        a missing local file raises OSError."""
        file_format = convert.mesh_file_format(path, format)
        if chunk_bytes <= 0:
            raise ValueError("chunk_bytes: must be > 0")
        path = os.fspath(path)
        ele_bytes = b""
        if file_format == simulation_pb2.MESH_FILE_FORMAT_TETGEN:
            root, extension = os.path.splitext(path)
            stem = root if extension.lower() in (".node", ".ele") else path
            path = stem + ".node"
            with open(stem + ".ele", "rb") as ele_file:
                ele_bytes = ele_file.read()
        with open(path, "rb") as mesh_file:
            data = mesh_file.read()

        def chunks():
            first = simulation_pb2.UploadMeshChunk(session_id=self.id, format=file_format)
            if scale_to_m is not None:
                first.scale_to_m = float(scale_to_m)
            first.file_bytes = data[:chunk_bytes]
            yield first
            for offset in range(chunk_bytes, len(data), chunk_bytes):
                yield simulation_pb2.UploadMeshChunk(file_bytes=data[offset:offset + chunk_bytes])
            for offset in range(0, len(ele_bytes), chunk_bytes):
                yield simulation_pb2.UploadMeshChunk(
                    ele_file_bytes=ele_bytes[offset:offset + chunk_bytes])

        response = self._call("UploadMesh", chunks())
        return UploadedMesh(mesh_id=response.mesh_id, num_vertices=response.num_vertices,
                            num_elements=response.num_elements,
                            tetrahedral=response.tetrahedral)

    def add_mesh_file(self, path, kind="rigid", *, scale_to_m=None, format=None, **kwargs):
        """Uploads a mesh file (upload_mesh_file: format, scale_to_m) and adds a body of it
        (add_body: kind, position_m, orientation, density_kg_per_m3, material, name, ...). A
        CAD export in millimetres as a 1000 kg/m^3 rigid body:
        session.add_mesh_file("part.stl", "rigid", scale_to_m=0.001, density_kg_per_m3=1000).
        A Gmsh tet mesh as a soft body: session.add_mesh_file("ball.msh", "fem",
        material=scene_pb2.FemMaterial(...)). Returns AddedBody."""
        uploaded = self.upload_mesh_file(path, format=format, scale_to_m=scale_to_m)
        return self.add_body(uploaded.mesh_id, kind, **kwargs)

    def _add_primitive(self, primitive, kind, density_kg_per_m3, kwargs):
        density = density_kg_per_m3 if kind == "rigid" else None
        return self.add_body(primitive, kind, density_kg_per_m3=density, **kwargs)

    # Primitives the server builds (primitives.proto), centred on the mesh origin; position_m,
    # orientation, name, material and the other add_body arguments pass through. Surface shapes
    # default to 1000 kg/m^3 rigid bodies (density is used by rigid bodies only); tet shapes are
    # FEM (or, in a local_global session, hyperelastic) bodies and need material=.

    def add_sphere(self, radius_m, *, subdivisions=3, kind="rigid", density_kg_per_m3=1000.0,
                   **kwargs):
        """An icosphere: 10 * 4^subdivisions + 2 vertices on the sphere of radius_m [m]."""
        shape = primitives_pb2.PrimitiveMesh()
        shape.sphere.radius_m = float(radius_m)
        shape.sphere.subdivisions = int(subdivisions)
        return self._add_primitive(shape, kind, density_kg_per_m3, kwargs)

    def add_capsule(self, radius_m, half_length_m, *, segments=24, cap_rings=6, kind="rigid",
                    density_kg_per_m3=1000.0, **kwargs):
        """A capsule along z: a cylinder of length 2 half_length_m with hemispherical caps."""
        shape = primitives_pb2.PrimitiveMesh()
        shape.capsule.radius_m = float(radius_m)
        shape.capsule.half_length_m = float(half_length_m)
        shape.capsule.segments = int(segments)
        shape.capsule.cap_rings = int(cap_rings)
        return self._add_primitive(shape, kind, density_kg_per_m3, kwargs)

    def add_cylinder(self, radius_m, height_m, *, segments=32, kind="rigid",
                     density_kg_per_m3=1000.0, **kwargs):
        """A closed cylinder along z from -height_m / 2 to +height_m / 2."""
        shape = primitives_pb2.PrimitiveMesh()
        shape.cylinder.radius_m = float(radius_m)
        shape.cylinder.height_m = float(height_m)
        shape.cylinder.segments = int(segments)
        return self._add_primitive(shape, kind, density_kg_per_m3, kwargs)

    def add_torus(self, major_radius_m, tube_radius_m, *, major_segments=48, tube_segments=16,
                  kind="rigid", density_kg_per_m3=1000.0, **kwargs):
        """A torus in the xy-plane around z."""
        shape = primitives_pb2.PrimitiveMesh()
        shape.torus.major_radius_m = float(major_radius_m)
        shape.torus.tube_radius_m = float(tube_radius_m)
        shape.torus.major_segments = int(major_segments)
        shape.torus.tube_segments = int(tube_segments)
        return self._add_primitive(shape, kind, density_kg_per_m3, kwargs)

    def add_bowl(self, inner_radius_m, thickness_m, *, segments=32, rings=8, kind="static",
                 density_kg_per_m3=1000.0, **kwargs):
        """A thick hemispherical bowl opening towards +z (static by default)."""
        shape = primitives_pb2.PrimitiveMesh()
        shape.bowl.inner_radius_m = float(inner_radius_m)
        shape.bowl.thickness_m = float(thickness_m)
        shape.bowl.segments = int(segments)
        shape.bowl.rings = int(rings)
        return self._add_primitive(shape, kind, density_kg_per_m3, kwargs)

    def add_convex_hulls(self, pieces, *, kind="rigid", density_kg_per_m3=1000.0, **kwargs):
        """A body given as convex hulls: pieces is a list of point sets, each an (n, 3) array or a
        list of (x, y, z) [m] with n >= 4; each piece is the convex hull of its points. The
        rigid_lcp pipeline collides the body as the union of the pieces (a non-convex part);
        pieces may touch but must not overlap. At most 64 pieces."""
        shape = primitives_pb2.PrimitiveMesh()
        for points in pieces:
            piece = shape.convex_hulls.pieces.add()
            for point in points:
                if len(point) != 3:
                    raise ValueError(f"pieces: a point of {len(point)} numbers, not (x, y, z)")
                piece.points_m.extend(float(c) for c in point)
        return self._add_primitive(shape, kind, density_kg_per_m3, kwargs)

    def add_random_hull(self, points=10, min_radius_m=0.035, max_radius_m=0.05, *, seed=0,
                        kind="rigid", density_kg_per_m3=1000.0, **kwargs):
        """The convex hull of `points` random points min_radius_m to max_radius_m [m] from the
        mesh origin, fixed by seed (the same body for the same seed); the defaults are issue 18's
        pouring bodies."""
        shape = primitives_pb2.PrimitiveMesh()
        shape.random_hull.points = int(points)
        shape.random_hull.min_radius_m = float(min_radius_m)
        shape.random_hull.max_radius_m = float(max_radius_m)
        shape.random_hull.seed = int(seed)
        return self._add_primitive(shape, kind, density_kg_per_m3, kwargs)

    def add_cloth_grid(self, size_x_m, size_y_m, cells_x, cells_y, *, material, **kwargs):
        """A rectangular cloth in the xy-plane: (cells_x + 1) (cells_y + 1) vertices;
        material=scene_pb2.ClothMaterial(...)."""
        shape = primitives_pb2.PrimitiveMesh()
        grid = shape.cloth_grid
        grid.size_x_m, grid.size_y_m = float(size_x_m), float(size_y_m)
        grid.cells_x, grid.cells_y = int(cells_x), int(cells_y)
        return self.add_body(shape, "cloth", material=material, **kwargs)

    def add_tet_box(self, half_extents_m, *, cells=(2, 2, 2), kind="fem", **kwargs):
        """A tetrahedralized box with half sizes (hx, hy, hz) [m] (or one number), 6 tets per
        cell; kind "fem" or "hyperelastic", with material=."""
        halves = (half_extents_m,) * 3 if isinstance(half_extents_m, (int, float)) else \
            half_extents_m
        shape = primitives_pb2.PrimitiveMesh()
        convert.to_vec3(halves, shape.tet_box.half_extents_m)
        shape.tet_box.cells_x, shape.tet_box.cells_y, shape.tet_box.cells_z = \
            (int(c) for c in cells)
        return self.add_body(shape, kind, **kwargs)

    def add_tet_sphere(self, radius_m, *, resolution=4, kind="fem", **kwargs):
        """A tetrahedralized ball: (resolution + 1)^3 vertices, 6 resolution^3 tets; kind "fem"
        or "hyperelastic", with material=."""
        shape = primitives_pb2.PrimitiveMesh()
        shape.tet_sphere.radius_m = float(radius_m)
        shape.tet_sphere.resolution = int(resolution)
        return self.add_body(shape, kind, **kwargs)

    def remove_body(self, body_id):
        self._call("RemoveBody", simulation_pb2.RemoveBodyRequest(session_id=self.id,
                                                                  body_id=int(body_id)))

    def _add_constraint(self, spec):
        response = self._call("AddConstraint", simulation_pb2.AddConstraintRequest(
            session_id=self.id, constraint=spec))
        return response.constraint_id

    def add_pin(self, body_id, vertices):
        """Holds vertices of a deformable body where they are; returns the constraint id."""
        spec = scene_pb2.ConstraintSpec()
        spec.pin.body_id = int(body_id)
        spec.pin.vertices.extend(int(v) for v in vertices)
        return self._add_constraint(spec)

    def add_attachment(self, body_id, vertices, target_body_id):
        """Makes vertices of a deformable body follow a rigid (or, with local_global, static or
        kinematic) body at the offsets they have in its frame now; returns the constraint id."""
        spec = scene_pb2.ConstraintSpec()
        spec.attachment.body_id = int(body_id)
        spec.attachment.vertices.extend(int(v) for v in vertices)
        spec.attachment.target_body_id = int(target_body_id)
        return self._add_constraint(spec)

    def add_position_target(self, body_id, vertices, targets_m, stiffness_n_per_m):
        """Pulls each listed vertex to its (x, y, z) target [m] with a spring of stiffness
        stiffness_n_per_m [N/m] (penalty: explicit and critically damped; local_global: implicit);
        move the targets with step(constraint_targets=...). Returns the constraint id."""
        spec = scene_pb2.ConstraintSpec()
        spec.position_target.body_id = int(body_id)
        spec.position_target.vertices.extend(int(v) for v in vertices)
        for target in targets_m:
            spec.position_target.targets_m.extend(float(c) for c in target)
        spec.position_target.stiffness_n_per_m = float(stiffness_n_per_m)
        return self._add_constraint(spec)

    def remove_constraint(self, constraint_id):
        """Removes a constraint, releasing the vertices it held."""
        self._call("RemoveConstraint", simulation_pb2.RemoveConstraintRequest(
            session_id=self.id, constraint_id=int(constraint_id)))

    def step(self, n=1, *, forces=None, torques=None, kinematic=None, vertex_forces=None,
             constraint_targets=None, joint_commands=None, parts=None):
        """Advances n steps holding the controls, and returns a StepResult.

        forces, torques: {body_id: (x, y, z)} at the centre of mass of dynamic rigid bodies [N],
        [N*m]; kinematic: {body_id: KinematicControl}; vertex_forces: {body_id: (vertices,
        forces)} with one (x, y, z) [N] per listed vertex of a deformable; constraint_targets:
        {constraint_id: targets} with one (x, y, z) [m] per vertex of a position target (lists
        of triples, flat lists or numpy arrays of shape (n, 3)), set
        before the first step and kept until moved again.
        joint_commands: robot motor commands, an iterable of contactsim.JointPosition,
        JointVelocity, JointEffort and JointOff (Robot.position/velocity/effort/off build them
        from dicts); each persists until a later command for the same joint replaces it.
        parts: None for the whole reply, or the parts to return (STEP_REPLY_PARTS: "body_poses",
        "body_velocities", "vertex_positions", "contact_pairs", "contact_totals",
        "diagnostics", "joint_states"); the others come back empty (docs/service.md, "Replies
        the caller asked for"), which saves the server and this process the copies."""
        request = simulation_pb2.StepRequest(session_id=self.id, n_steps=int(n))
        if parts is not None:
            if isinstance(parts, str):
                parts = (parts,)
            for part in parts:
                if part not in STEP_REPLY_PARTS:
                    raise ValueError(f"parts: unknown part {part!r}; expected some of "
                                     f"{', '.join(STEP_REPLY_PARTS)}")
                setattr(request.reply_parts, part, True)
            request.reply_parts.SetInParent()  # asked, even when no part is
        controls = {}

        def control(body_id):
            if body_id not in controls:
                controls[body_id] = request.controls.bodies.add(body_id=int(body_id))
            return controls[body_id]

        for body_id, force in (forces or {}).items():
            convert.to_vec3(force, control(body_id).force_n)
        for body_id, torque in (torques or {}).items():
            convert.to_vec3(torque, control(body_id).torque_n_m)
        for body_id, target in (kinematic or {}).items():
            message = control(body_id)
            if target.position_m is not None:
                convert.to_vec3(target.position_m, message.kinematic_target.position_m)
            if target.orientation is not None:
                convert.to_quat(target.orientation, message.kinematic_target.orientation)
            if target.linear_velocity_m_per_s is not None:
                convert.to_vec3(target.linear_velocity_m_per_s,
                                message.kinematic_linear_velocity_m_per_s)
            if target.angular_velocity_rad_per_s is not None:
                convert.to_vec3(target.angular_velocity_rad_per_s,
                                message.kinematic_angular_velocity_rad_per_s)
        for body_id, (vertices, vertex_force_list) in (vertex_forces or {}).items():
            message = request.controls.vertex_forces.add(body_id=int(body_id))
            message.vertices.extend(int(v) for v in vertices)
            message.forces_n.extend(convert.packed_xyz(vertex_force_list))
        for constraint_id, targets in (constraint_targets or {}).items():
            message = request.controls.constraint_targets.add(constraint_id=int(constraint_id))
            message.targets_m.extend(convert.packed_xyz(targets))
        if joint_commands is not None:
            if isinstance(joint_commands, dict):
                raise TypeError("joint_commands: expected a list of JointPosition, "
                                "JointVelocity, JointEffort or JointOff (robot.position({...}, "
                                "kp=..., kd=...) makes one from a dict)")
            for command in joint_commands:
                robots.command_into(command, request.controls.joint_commands.add())
        return StepResult(self._call("Step", request), convert, self.robots)

    def stream(self, from_seq=0, *, contacts=True, velocities=False, max_rate_hz=0.0,
               float64=False):
        """Live frames as a FrameStream (an iterator; cancel() ends it). from_seq 0 starts at
        the newest frame; a positive one replays buffered frames from that seq first.
        max_rate_hz 0 sends as fast as this reader reads; a slower reader gets the newest frame
        with the count it skipped (Frame.coalesced)."""
        request = simulation_pb2.StreamStateRequest(
            session_id=self.id, from_seq=int(from_seq), include_velocities=bool(velocities),
            include_contacts=bool(contacts), max_rate_hz=float(max_rate_hz),
            precision=simulation_pb2.PRECISION_FLOAT64 if float64 else
            simulation_pb2.PRECISION_FLOAT32)
        call = self.client._stub.StreamState(request, metadata=_metadata(self.token, self.id))
        return FrameStream(call, self.robots)

    def snapshot(self):
        """Captures the whole session state as a Snapshot (restore it with restore())."""
        response = self._call("Snapshot", simulation_pb2.SnapshotRequest(session_id=self.id))
        return Snapshot(blob=response.snapshot, step_count=response.step_count,
                        time_s=response.time_s)

    def restore(self, snapshot):
        """Returns the session to `snapshot` (a Snapshot or its blob); returns (step_count,
        time_s) after the restore. Refreshes `robots` (one GetSession)."""
        blob = snapshot.blob if isinstance(snapshot, Snapshot) else bytes(snapshot)
        response = self._call("Restore", simulation_pb2.RestoreRequest(session_id=self.id,
                                                                       snapshot=blob))
        self.info()  # the restored state's robots name the joints of later results
        return response.step_count, response.time_s

    def set_body_state(self, body_id, state=None, *, position_m=None, orientation=None,
                       linear_velocity_m_per_s=None, angular_velocity_rad_per_s=None,
                       vertex_positions_m=None, vertex_velocities_m_per_s=None):
        """Replaces one body's state between steps (SetBodyState; controller token); its contact
        history is dropped (docs/service.md, "Reset and set-state").

        Rigid bodies: position_m of frame B (a dynamic body's centre of mass) [m], orientation
        (w, x, y, z) (identity when None), velocities [m/s], [rad/s] (zero when None).
        Deformables: vertex_positions_m, one (x, y, z) per vertex [m] (or a flat sequence, or a
        numpy array), and vertex_velocities_m_per_s (zero when None).
        `state`: a BodyState from a step result, whose values are used for everything not given
        (a state read back sets exactly that state). Returns (step_count, time_s)."""
        request = simulation_pb2.SetBodyStateRequest(session_id=self.id, body_id=int(body_id))
        if state is not None:
            rigid = state.kind in ("RIGID", "STATIC", "KINEMATIC")
            if rigid:
                position_m = state.position_m if position_m is None else position_m
                orientation = state.orientation if orientation is None else orientation
                if linear_velocity_m_per_s is None:
                    linear_velocity_m_per_s = state.linear_velocity_m_per_s
                if angular_velocity_rad_per_s is None:
                    angular_velocity_rad_per_s = state.angular_velocity_rad_per_s
            else:
                if vertex_positions_m is None:
                    vertex_positions_m = state.vertex_positions_m
                if vertex_velocities_m_per_s is None:
                    vertex_velocities_m_per_s = state.vertex_velocities_m_per_s
        if position_m is not None:
            rigid = request.rigid
            convert.to_vec3(position_m, rigid.pose.position_m)
            convert.to_quat((1.0, 0.0, 0.0, 0.0) if orientation is None else orientation,
                            rigid.pose.orientation)
            if linear_velocity_m_per_s is not None:
                convert.to_vec3(linear_velocity_m_per_s, rigid.linear_velocity_m_per_s)
            if angular_velocity_rad_per_s is not None:
                convert.to_vec3(angular_velocity_rad_per_s, rigid.angular_velocity_rad_per_s)
        elif vertex_positions_m is not None:
            request.vertices.positions_m.extend(convert.packed_xyz(vertex_positions_m))
            if vertex_velocities_m_per_s is not None:
                request.vertices.velocities_m_per_s.extend(
                    convert.packed_xyz(vertex_velocities_m_per_s))
        else:
            raise ValueError("set_body_state: give position_m (rigid) or vertex_positions_m "
                             "(deformable), or a BodyState")
        response = self._call("SetBodyState", request)
        return response.step_count, response.time_s

    def reset(self, snapshot=None):
        """Back to the session's initial state: the one kept when its first step began, or at
        mark_initial_state(); or to `snapshot` (a Snapshot or its blob) when given
        (ResetSession; controller token). Returns (step_count, time_s) after the reset and
        refreshes `robots` (one GetSession)."""
        blob = b""
        if snapshot is not None:
            blob = snapshot.blob if isinstance(snapshot, Snapshot) else bytes(snapshot)
        response = self._call("ResetSession",
                              simulation_pb2.ResetSessionRequest(session_id=self.id,
                                                                 snapshot=blob))
        self.info()  # the state's robots (one GetSession) name the joints of later results
        return response.step_count, response.time_s

    def mark_initial_state(self):
        """Keeps the current state as the one reset() goes back to (MarkInitialState; controller
        token). Returns (step_count, time_s) of the state kept."""
        response = self._call("MarkInitialState",
                              simulation_pb2.MarkInitialStateRequest(session_id=self.id))
        return response.step_count, response.time_s

    def viewer_url(self, viewer, *, token=None):
        """The browser viewer's URL of this session (docs/viewer.md) on a server started with
        --viewer-listen: `viewer` is that address ("127.0.0.1:8080", served over http) or the
        viewer's base URL ("https://host:8443" for a server with TLS, or a gateway's viewer).
        The token after # is `token`, else the session's viewer token, else this handle's own
        token (a handle opened with a viewer token). The URL carries the token: share it as you
        would the token."""
        base = viewer if "://" in viewer else f"http://{viewer}"
        token = token or self.viewer_token or self.token
        return (f"{base.rstrip('/')}/view#session={urllib.parse.quote(self.id, safe='')}"
                f"&token={urllib.parse.quote(token, safe='')}")

    def close(self):
        """Closes the session on the server (controller token) and ends its streams."""
        self._call("CloseSession", simulation_pb2.CloseSessionRequest(session_id=self.id))
        self._owned = False

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, traceback):
        if self._owned:
            try:
                self.close()
            except ContactSimError:
                if exc_type is None:
                    raise
