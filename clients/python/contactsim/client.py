"""Client and Session: the pythonic face of the contactsim.v1.Simulation service.

Client holds the channel and makes the token-free calls (ping, create_session, list_sessions);
Session holds a session id and one token and sends it as `authorization: Bearer <token>` with
every call, and the session id as `x-contactsim-session` metadata, which a gateway in front of
several servers routes by (docs/deploy.md). Every failure is raised as ContactSimError with the gRPC
code and the server's message.
"""

import grpc

from contactsim.v1 import scene_pb2, simulation_pb2, simulation_pb2_grpc

from . import convert
from .errors import ContactSimError
from .results import AddedBody, Snapshot, StepResult
from .scene import box_mesh

_MIB = 1 << 20
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
    Use as a context manager, or call close(), to release the channel.
    """

    def __init__(self, target="127.0.0.1:50051", timeout_s=30.0, max_message_mib=64,
                 creator_token=None):
        if timeout_s is not None and timeout_s <= 0:
            raise ValueError("timeout_s: must be > 0 (or None for no deadline)")
        self.target = target
        self.timeout_s = timeout_s
        self.creator_token = creator_token
        limit = int(max_message_mib * _MIB)
        self._channel = grpc.insecure_channel(
            target, options=[("grpc.max_send_message_length", limit),
                             ("grpc.max_receive_message_length", limit)])
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
                       contact_restitution=None, pipeline=""):
        """Creates a session and returns its controller Session (which also knows the viewer
        token). Unset settings take the server defaults (dt 0.001 s, gravity (0, 0, -9.81) m/s^2,
        stiffness 1e4 N/m, CPF contacts, no friction, contact_restitution 1: no contact
        damping; in [0, 1], the bounce speed over the approach speed of one contact). contact_model: "dpf", "dpf_ccd_normal",
        "dpf_proximity", "cpf" or "cpf_exact"; friction: a contactsim.Friction; ground_planes: GroundPlane items
        (contactsim.ground_plane() is z = 0)."""
        request = simulation_pb2.CreateSessionRequest(pipeline=pipeline, name=name)
        settings = request.settings
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
        settings.self_collision = bool(self_collision)
        for plane in ground_planes:
            convert.ground_plane_into(plane, request.ground_planes.add())
        created = self._call("CreateSession", request, token=self.creator_token)
        return Session(self, created.session_id, created.controller_token,
                       viewer_token=created.viewer_token, owned=True)

    def list_sessions(self):
        """Every session on the server as SessionInfo (no tokens)."""
        response = self._call("ListSessions", simulation_pb2.ListSessionsRequest())
        return [convert.session_info(summary) for summary in response.sessions]

    def session(self, session_id, token):
        """A handle on an existing session with a controller or viewer token (a viewer handle
        can read and stream; stepping with it raises PERMISSION_DENIED). Leaving it as a context
        manager does not close the session."""
        return Session(self, session_id, token, owned=False)

    def close(self):
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


class FrameStream:
    """An iterator of Frame from StreamState. cancel() (from any thread) ends it; the iteration
    also ends when the session closes. Errors are raised as ContactSimError."""

    def __init__(self, call):
        self._call = call
        self._cancelled = False

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return convert.frame(next(self._call))
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
        self._owned = owned

    def _call(self, rpc, request):
        return self.client._call(rpc, request, self.token, self.id)

    def info(self):
        """The session's SessionInfo, with dt_s and body_ids (GetSession; either token)."""
        response = self._call("GetSession", simulation_pb2.GetSessionRequest(session_id=self.id))
        return convert.session_info(response.summary, response.settings, response.body_ids)

    def add_body(self, mesh, kind="rigid", *, position_m=(0.0, 0.0, 0.0), orientation=None,
                 density_kg_per_m3=None, name="", linear_velocity_m_per_s=None,
                 angular_velocity_rad_per_s=None, collision_disabled=False, material=None):
        """Adds a body from an inline TriangleMesh or TetMesh placed at position_m [m] with
        orientation (w, x, y, z). kind: "rigid" (needs density_kg_per_m3 and a closed mesh),
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
        response = self._call("AddBody",
                              simulation_pb2.AddBodyRequest(session_id=self.id, body=spec))
        return AddedBody(body_id=response.body_id, num_vertices=response.num_vertices,
                         mass_kg=response.mass_kg,
                         center_of_mass_m=convert.vec3(response.center_of_mass_M_m))

    def add_box(self, half_extents_m, *, position_m=(0.0, 0.0, 0.0), kind="rigid",
                density_kg_per_m3=1000.0, **kwargs):
        """Adds a box with half sizes (hx, hy, hz) [m] (or one number for a cube) centred at
        position_m. density_kg_per_m3 is used by rigid boxes only."""
        cube = isinstance(half_extents_m, (int, float))
        halves = (half_extents_m,) * 3 if cube else half_extents_m
        density = density_kg_per_m3 if kind == "rigid" else None
        return self.add_body(box_mesh(*halves), kind, position_m=position_m,
                             density_kg_per_m3=density, **kwargs)

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
             constraint_targets=None):
        """Advances n steps holding the controls, and returns a StepResult.

        forces, torques: {body_id: (x, y, z)} at the centre of mass of dynamic rigid bodies [N],
        [N*m]; kinematic: {body_id: KinematicControl}; vertex_forces: {body_id: (vertices,
        forces)} with one (x, y, z) [N] per listed vertex of a deformable; constraint_targets:
        {constraint_id: targets} with one (x, y, z) [m] per vertex of a position target, set
        before the first step and kept until moved again."""
        request = simulation_pb2.StepRequest(session_id=self.id, n_steps=int(n))
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
            for force in vertex_force_list:
                message.forces_n.extend(float(c) for c in force)
        for constraint_id, targets in (constraint_targets or {}).items():
            message = request.controls.constraint_targets.add(constraint_id=int(constraint_id))
            for target in targets:
                message.targets_m.extend(float(c) for c in target)
        response = self._call("Step", request)
        return StepResult(
            step_count=response.step_count,
            time_s=response.time_s,
            bodies={body.body_id: convert.body_state(body) for body in response.bodies},
            contacts=convert.contact_pairs(response.contacts),
            totals=convert.body_totals(response.contacts),
            diagnostics=[convert.diagnostics(d) for d in response.diagnostics],
        )

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
        return FrameStream(call)

    def snapshot(self):
        """Captures the whole session state as a Snapshot (restore it with restore())."""
        response = self._call("Snapshot", simulation_pb2.SnapshotRequest(session_id=self.id))
        return Snapshot(blob=response.snapshot, step_count=response.step_count,
                        time_s=response.time_s)

    def restore(self, snapshot):
        """Returns the session to `snapshot` (a Snapshot or its blob); returns (step_count,
        time_s) after the restore."""
        blob = snapshot.blob if isinstance(snapshot, Snapshot) else bytes(snapshot)
        response = self._call("Restore", simulation_pb2.RestoreRequest(session_id=self.id,
                                                                       snapshot=blob))
        return response.step_count, response.time_s

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
