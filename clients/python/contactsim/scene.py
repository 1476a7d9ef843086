"""Scene inputs as plain Python: triangle and tet meshes, a closed box surface, ground planes,
friction settings and kinematic controls. SI units as the field names say; meshes are given in
their own frame and placed by a pose; quaternions are (w, x, y, z)."""

from dataclasses import dataclass, field
from typing import Optional


@dataclass
class TriangleMesh:
    """A triangle surface: vertex positions [m] as (x, y, z) tuples, triangles as (i, j, k) vertex
    indices, counter-clockwise seen from outside."""

    vertices_m: list = field(default_factory=list)
    triangles: list = field(default_factory=list)


@dataclass
class TetMesh:
    """A tetrahedral volume: vertex positions [m] as (x, y, z), tetrahedra as 4 vertex indices,
    positively oriented."""

    vertices_m: list = field(default_factory=list)
    tetrahedra: list = field(default_factory=list)


@dataclass
class Friction:
    """Contact friction of a session. model: "none", "yamane_nakamura" (static spring-damper,
    dynamic Coulomb: spring_n_per_m, damping_ns_per_m, mu_static, mu_dynamic) or "viscous"
    (f = -c v_tangential: viscous_coefficient_ns_per_m)."""

    model: str = "yamane_nakamura"
    spring_n_per_m: float = 0.0
    damping_ns_per_m: float = 0.0
    mu_static: float = 0.0
    mu_dynamic: float = 0.0
    viscous_coefficient_ns_per_m: float = 0.0


@dataclass
class KinematicControl:
    """Controls of a kinematic body for one Step call: either a pose reached at the end of the
    call (position_m, optional orientation), or velocities held for the call."""

    position_m: Optional[tuple] = None
    orientation: Optional[tuple] = None  # (w, x, y, z)
    linear_velocity_m_per_s: Optional[tuple] = None
    angular_velocity_rad_per_s: Optional[tuple] = None


@dataclass
class GroundPlane:
    """A static half-space boundary {x : normal . x = offset_m}; bodies stay on the side the
    normal points to."""

    normal: tuple = (0.0, 0.0, 1.0)
    offset_m: float = 0.0


def ground_plane(height_m=0.0):
    """The horizontal ground z = height_m (z is up)."""
    return GroundPlane(normal=(0.0, 0.0, 1.0), offset_m=height_m)


# Two triangles per face with outward normals (-z, +z, -y, +y, -x, +x) over the vertices
# index = x + 2 y + 4 z, where a 1 bit means the + side.
_BOX_TRIANGLES = [
    (0, 2, 1), (1, 2, 3), (4, 5, 6), (5, 7, 6),
    (0, 1, 5), (0, 5, 4), (2, 6, 7), (2, 7, 3),
    (0, 4, 6), (0, 6, 2), (1, 3, 7), (1, 7, 5),
]


def box_mesh(half_x_m, half_y_m=None, half_z_m=None):
    """A closed box surface centred on the mesh origin: 8 vertices, 12 triangles. One half size
    makes a cube."""
    half_y_m = half_x_m if half_y_m is None else half_y_m
    half_z_m = half_x_m if half_z_m is None else half_z_m
    if min(half_x_m, half_y_m, half_z_m) <= 0.0:
        raise ValueError("box_mesh: half sizes must be > 0 m")
    vertices = []
    for i in range(8):
        vertices.append((half_x_m if i & 1 else -half_x_m,
                         half_y_m if i & 2 else -half_y_m,
                         half_z_m if i & 4 else -half_z_m))
    return TriangleMesh(vertices_m=vertices, triangles=list(_BOX_TRIANGLES))
