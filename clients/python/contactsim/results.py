"""Results of the client's calls. Single vectors are Vec3 named tuples in SI units as their field
names say, quaternions (w, x, y, z); per-vertex data (positions, velocities) and the contact
arrays are numpy arrays of shape (n, 3). A StepResult converts its parts when first read."""

import math
from dataclasses import dataclass, field
from typing import NamedTuple, Optional

import numpy as np


class Vec3(NamedTuple):
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0

    def norm(self):
        return math.sqrt(self.x * self.x + self.y * self.y + self.z * self.z)

    def __add__(self, other):  # element-wise, not tuple concatenation
        return Vec3(self.x + other[0], self.y + other[1], self.z + other[2])


class Quat(NamedTuple):
    w: float = 1.0
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0


@dataclass
class SessionInfo:
    """One session as ListSessions / GetSession describe it."""

    session_id: str
    name: str
    pipeline: str
    state: str  # "ACTIVE" or "FAILED"
    failure_message: str
    step_count: int
    time_s: float
    num_bodies: int
    # Host memory the session holds as the server accounts it (docs/service.md, "Memory"), and
    # its parts: "meshes", "bodies", "collision", "solver", "frames" and "snapshots" [bytes]
    memory_bytes: int = 0
    memory: dict = field(default_factory=dict)
    dt_s: Optional[float] = None  # GetSession only: the step length applied
    body_ids: list = field(default_factory=list)  # GetSession only
    # GetSession only: the contactsim.v1 WorldSettings as applied, defaults filled in
    settings: Optional[object] = None
    robots: list = field(default_factory=list)  # GetSession only: Robot list, ascending id


@dataclass
class UploadedMesh:
    """A mesh stored in a session by UploadMesh: its id for add_body(mesh_id), its counts after
    the server welded and validated it, and whether it holds tetrahedra (a .msh or TetGen file)
    or triangles."""

    mesh_id: str
    num_vertices: int
    num_elements: int
    tetrahedral: bool


@dataclass
class AddedBody:
    body_id: int
    num_vertices: int
    mass_kg: float  # 0 for static and kinematic bodies
    center_of_mass_m: Vec3  # dynamic rigid bodies: in the mesh frame


def _no_vertices():
    return np.empty((0, 3))


@dataclass(eq=False)
class BodyState:
    """A body after a step. Rigid bodies: frame B (centre of mass for dynamic bodies, mesh origin
    otherwise). Deformables: every vertex, as float64 numpy arrays of shape (n, 3) (row i is
    vertex i's (x, y, z); empty, shape (0, 3), for rigid bodies)."""

    body_id: int
    kind: str  # "RIGID", "STATIC", "KINEMATIC", "CLOTH", "FEM", "HYPERELASTIC"
    position_m: Vec3
    orientation: Quat
    linear_velocity_m_per_s: Vec3
    angular_velocity_rad_per_s: Vec3
    vertex_positions_m: np.ndarray = field(default_factory=_no_vertices)  # (n, 3) [m]
    vertex_velocities_m_per_s: np.ndarray = field(default_factory=_no_vertices)  # (n, 3) [m/s]

    def __eq__(self, other):  # exact equality, arrays element by element
        if not isinstance(other, BodyState):
            return NotImplemented
        return (self.body_id, self.kind, self.position_m, self.orientation,
                self.linear_velocity_m_per_s, self.angular_velocity_rad_per_s) == (
                    other.body_id, other.kind, other.position_m, other.orientation,
                    other.linear_velocity_m_per_s, other.angular_velocity_rad_per_s) and \
            np.array_equal(self.vertex_positions_m, other.vertex_positions_m) and \
            np.array_equal(self.vertex_velocities_m_per_s, other.vertex_velocities_m_per_s)


@dataclass
class ContactPair:
    """One contact over a step; impulses act on body_a, body_b gets the opposite. A body id of
    -1 is a ground plane."""

    body_a: int
    body_b: int
    kind: str  # "VERTEX_FACE", "EDGE_EDGE", "VERTEX_PLANE"
    feature_a: int
    feature_b: int
    point_m: Vec3
    normal: Vec3  # unit, from B towards A
    depth_m: float
    normal_impulse_ns: Vec3
    friction_impulse_ns: Vec3
    # Spin friction on body_a about the normal [N*m*s] (rigid_lcp's torsional_friction_radius_m).
    torsional_impulse_nms: Vec3


@dataclass
class BodyTotals:
    """What contacts did to one body: impulse J [N*s] and angular impulse about its origin."""

    body_id: int
    impulse_ns: Vec3
    angular_impulse_nms: Vec3
    contact_count: int


@dataclass
class ConstraintReaction:
    """A constraint's reaction impulse over a Step call [N*s] on the constrained body (an
    attachment's target_body_id, else -1, takes the opposite)."""

    constraint_id: int
    kind: str  # "PIN", "ATTACHMENT", "POSITION_TARGET"
    body_id: int
    target_body_id: int
    impulse_ns: Vec3


@dataclass
class Reactions:
    """Constraint reactions of a Step call: `constraints` by constraint id, `bodies` the summed
    impulse per body acted on (body id -> Vec3 [N*s])."""

    constraints: dict
    bodies: dict


@dataclass
class Diagnostics:
    step: int
    time_s: float
    kinetic_energy_j: float
    potential_energy_j: float
    max_penetration_depth_m: float
    active_pairs: int
    plane_contacts: int
    stick_contacts: int
    slip_contacts: int
    diverged: bool
    divergence_message: str


@dataclass
class ContactArrays:
    """The contact pairs of one step as numpy arrays, one row per pair (the same pairs, in the
    same order, as the ContactPair list): integer arrays body_a, body_b, feature_a, feature_b,
    kind (ContactFeatureKind numbers: 1 vertex-face, 2 edge-edge, 3 vertex-plane); float64
    point_m, normal, normal_impulse_ns, friction_impulse_ns, torsional_impulse_nms of shape (n, 3)
    and depth_m (n,).
    Impulses act on body_a; body_b gets the opposite."""

    body_a: np.ndarray
    body_b: np.ndarray
    kind: np.ndarray
    feature_a: np.ndarray
    feature_b: np.ndarray
    point_m: np.ndarray
    normal: np.ndarray
    depth_m: np.ndarray
    normal_impulse_ns: np.ndarray
    friction_impulse_ns: np.ndarray
    torsional_impulse_nms: np.ndarray

    def __len__(self):
        return len(self.body_a)


class StepResult:
    """What Session.step returns. `contacts` are the pairs of the last step (ContactPair list;
    `contact_arrays` the same as numpy arrays); `totals` (by body id) are summed over all n steps
    of the call, so totals[i].impulse_ns / (n * dt_s) is the mean contact force on body i over
    the call. `bodies` (body id -> BodyState), `contacts`, `contact_arrays`, `totals` and
    `diagnostics` (one per step taken) are converted from the reply when first read, so a
    caller pays only for what it reads; `response` is the reply message itself."""

    def __init__(self, response, convert, robots=None):
        self.response = response
        self._robots = robots or {}
        self.step_count = response.step_count
        self.time_s = response.time_s
        self.contacts_omitted = response.contacts_omitted
        self._convert = convert
        self._cache = {}

    def _cached(self, name, make):
        if name not in self._cache:
            self._cache[name] = make()
        return self._cache[name]

    @property
    def bodies(self):
        return self._cached("bodies", lambda: {body.body_id: self._convert.body_state(body)
                                               for body in self.response.bodies})

    @property
    def contacts(self):
        return self._cached("contacts",
                            lambda: self._convert.contact_pairs(self.response.contacts))

    @property
    def contact_arrays(self):
        return self._cached("contact_arrays",
                            lambda: self._convert.contact_arrays(self.response.contacts))

    @property
    def totals(self):
        return self._cached("totals", lambda: self._convert.body_totals(self.response.contacts))

    @property
    def reactions(self):
        """Reactions of the constraints over the call (Reactions)."""
        return self._cached("reactions", lambda: self._convert.reactions(self.response.reactions))

    @property
    def joint_states(self):
        """Every robot's joints at the end of the call: robot id -> JointStates (numpy arrays
        in the robot's joint order; empty without robots or when `parts` left them out)."""
        return self._cached("joint_states", lambda: self._convert.joint_states(
            self.response.joint_states, self._robots))

    def joints(self, robot):
        """The JointStates of one robot (a Robot or its id); KeyError when the reply has none."""
        robot_id = robot.robot_id if hasattr(robot, "robot_id") else int(robot)
        try:
            return self.joint_states[robot_id]
        except KeyError:
            raise KeyError(f"robot {robot_id}: no joint states in this reply (robots in it: "
                           f"{sorted(self.joint_states)}; were they left out by parts=?)") \
                from None

    def wrist_wrench(self, robot, joint):
        """(force Vec3 [N], torque Vec3 [N*m]) the joint's parent link exerts on its child link
        over the last step, at the joint origin in the child link's frame: what a force-torque
        sensor at that joint (the wrist) reads. `joint` is a name or an index."""
        return self.joints(robot).wrench(joint)

    @property
    def diagnostics(self):
        return self._cached("diagnostics", lambda: [self._convert.diagnostics(d)
                                                    for d in self.response.diagnostics])

    def __repr__(self):
        return (f"StepResult(step_count={self.step_count}, time_s={self.time_s}, "
                f"bodies={len(self.response.bodies)}, "
                f"contacts={len(self.response.contacts.contacts)})")


@dataclass
class BodyTopology:
    body_id: int
    kind: str
    name: str
    triangles: list  # (i, j, k) over the body's vertices


@dataclass
class Frame:
    """One StreamState frame. `contacts` and `totals` are of the last step only (one step of
    dt_s), so totals[i].impulse_ns / dt_s is the contact force on body i at time_s."""

    seq: int
    time_s: float
    step_count: int
    coalesced: int  # frames skipped for this viewer since the previous one it got
    topology: Optional[list]  # BodyTopology list on the first frame and after content changes
    bodies: dict  # body id -> numpy (n, 3) vertex positions [m] (float32 or float64 as asked)
    velocities: dict  # body id -> numpy (n, 3) [m/s], when asked
    contacts: list
    totals: dict
    diagnostics: Optional[Diagnostics]
    oldest_available_seq: int
    reactions: Optional[Reactions] = None  # of the Step call that published the frame
    # robot id -> JointStates at this frame (names when the viewing handle knows the robot)
    joint_states: dict = field(default_factory=dict)


@dataclass
class Snapshot:
    """An opaque snapshot blob (version 1: valid in the same server process and session)."""

    blob: bytes
    step_count: int
    time_s: float
