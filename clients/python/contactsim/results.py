"""Plain-Python results of the client's calls (no numpy needed). Vectors are Vec3 named tuples in
SI units as their field names say; quaternions are (w, x, y, z)."""

import math
from dataclasses import dataclass, field
from typing import NamedTuple, Optional


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
    dt_s: Optional[float] = None  # GetSession only: the step length applied
    body_ids: list = field(default_factory=list)  # GetSession only


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


@dataclass
class BodyState:
    """A body after a step. Rigid bodies: frame B (centre of mass for dynamic bodies, mesh origin
    otherwise). Deformables: every vertex."""

    body_id: int
    kind: str  # "RIGID", "STATIC", "KINEMATIC", "CLOTH", "FEM", "HYPERELASTIC"
    position_m: Vec3
    orientation: Quat
    linear_velocity_m_per_s: Vec3
    angular_velocity_rad_per_s: Vec3
    vertex_positions_m: list = field(default_factory=list)  # deformables: Vec3 per vertex
    vertex_velocities_m_per_s: list = field(default_factory=list)


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


@dataclass
class BodyTotals:
    """What contacts did to one body: impulse J [N*s] and angular impulse about its origin."""

    body_id: int
    impulse_ns: Vec3
    angular_impulse_nms: Vec3
    contact_count: int


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
class StepResult:
    """What Session.step returns. `contacts` are the pairs of the last step; `totals` (by body id)
    are summed over all n steps of the call, so totals[i].impulse_ns / (n * dt_s) is the mean
    contact force on body i over the call."""

    step_count: int
    time_s: float
    bodies: dict  # body id -> BodyState
    contacts: list  # ContactPair
    totals: dict  # body id -> BodyTotals
    diagnostics: list  # Diagnostics, one per step taken


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
    bodies: dict  # body id -> list of Vec3 vertex positions [m]
    velocities: dict  # body id -> list of Vec3 [m/s], when asked
    contacts: list
    totals: dict
    diagnostics: Optional[Diagnostics]
    oldest_available_seq: int


@dataclass
class Snapshot:
    """An opaque snapshot blob (version 1: valid in the same server process and session)."""

    blob: bytes
    step_count: int
    time_s: float
