"""Forward and inverse kinematics of a serial chain read from a URDF, in numpy (for the examples).

Chain(urdf_text, tip_link) follows the joints from the root link to `tip_link`; a joint's
transform is its <origin xyz rpy> then a rotation about (revolute, continuous) or a translation
along (prismatic) its <axis> by q; fixed joints are constant. Only the non-fixed joints on the
chain are variables, in root-to-tip order (`joint_names`).

solve_ik is damped least squares (Levenberg–Marquardt) on the 6-vector (position error,
rotation-vector error) with a finite-difference Jacobian: a few hundred microseconds for a 6-axis
arm, which is all a pick-and-place planner needs once per waypoint.
"""

import xml.etree.ElementTree as ElementTree

import numpy as np


def rotation_rpy(roll, pitch, yaw):
    """URDF's rpy: R = Rz(yaw) Ry(pitch) Rx(roll)."""
    cr, sr, cp, sp, cy, sy = (np.cos(roll), np.sin(roll), np.cos(pitch), np.sin(pitch),
                              np.cos(yaw), np.sin(yaw))
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def rotation_axis_angle(axis, angle):
    """Rodrigues' formula for a unit axis."""
    x, y, z = axis
    k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    return np.eye(3) + np.sin(angle) * k + (1.0 - np.cos(angle)) * (k @ k)


def rotation_vector(rotation):
    """The rotation vector (axis * angle) of a rotation matrix."""
    cos_angle = np.clip((np.trace(rotation) - 1.0) / 2.0, -1.0, 1.0)
    angle = np.arccos(cos_angle)
    skew = np.array([rotation[2, 1] - rotation[1, 2], rotation[0, 2] - rotation[2, 0],
                     rotation[1, 0] - rotation[0, 1]])
    if angle < 1e-9:
        return 0.5 * skew
    if np.pi - angle < 1e-6:  # near pi: the axis from the symmetric part
        axis = np.sqrt(np.maximum((np.diag(rotation) + 1.0) / 2.0, 0.0))
        largest = int(np.argmax(axis))
        for i in range(3):  # signs relative to the largest component
            if i != largest and rotation[largest, i] + rotation[i, largest] < 0:
                axis[i] = -axis[i]
        return angle * axis / np.linalg.norm(axis)
    return angle / (2.0 * np.sin(angle)) * skew


def transform(rotation=None, translation=None):
    matrix = np.eye(4)
    if rotation is not None:
        matrix[:3, :3] = rotation
    if translation is not None:
        matrix[:3, 3] = translation
    return matrix


def _floats(text, default):
    return np.array([float(v) for v in text.split()]) if text else np.array(default, float)


class Chain:
    """The serial chain from the URDF's root link to `tip_link`; `tip_offset` (a 4x4 transform)
    puts the tool frame in the tip link's frame; `base` (4x4) the root in the world."""

    def __init__(self, urdf_text, tip_link, tip_offset=None, base=None):
        root = ElementTree.fromstring(urdf_text)
        by_child = {}
        for joint in root.iter("joint"):
            origin = joint.find("origin")
            axis = joint.find("axis")
            limit = joint.find("limit")
            by_child[joint.find("child").get("link")] = {
                "name": joint.get("name"),
                "type": joint.get("type"),
                "parent": joint.find("parent").get("link"),
                "origin": transform(
                    rotation_rpy(*_floats(origin.get("rpy") if origin is not None else None,
                                          [0, 0, 0])),
                    _floats(origin.get("xyz") if origin is not None else None, [0, 0, 0])),
                "axis": _floats(axis.get("xyz") if axis is not None else None, [1, 0, 0]),
                "lower": float(limit.get("lower", "-inf")) if limit is not None else -np.inf,
                "upper": float(limit.get("upper", "inf")) if limit is not None else np.inf,
            }
        chain = []
        link = tip_link
        while link in by_child:
            chain.append(by_child[link])
            link = by_child[link]["parent"]
        if not chain:
            raise ValueError(f"{tip_link!r}: no joint leads to this link")
        self.joints = chain[::-1]
        for joint in self.joints:
            joint["axis"] = joint["axis"] / np.linalg.norm(joint["axis"])
        self.variables = [j for j in self.joints if j["type"] != "fixed"]
        self.joint_names = [j["name"] for j in self.variables]
        self.lower = np.array([j["lower"] if j["type"] != "continuous" else -np.inf
                               for j in self.variables])
        self.upper = np.array([j["upper"] if j["type"] != "continuous" else np.inf
                               for j in self.variables])
        self.tip_offset = np.eye(4) if tip_offset is None else np.asarray(tip_offset, float)
        self.base = np.eye(4) if base is None else np.asarray(base, float)

    def forward(self, q):
        """The tool frame in the world (4x4) at joint values q (joint_names order)."""
        pose = self.base.copy()
        values = iter(q)
        for joint in self.joints:
            pose = pose @ joint["origin"]
            if joint["type"] in ("revolute", "continuous"):
                pose = pose @ transform(rotation_axis_angle(joint["axis"], next(values)))
            elif joint["type"] == "prismatic":
                pose = pose @ transform(translation=joint["axis"] * next(values))
        return pose @ self.tip_offset

    def _error(self, q, target):
        pose = self.forward(q)
        return np.concatenate([target[:3, 3] - pose[:3, 3],
                               rotation_vector(target[:3, :3] @ pose[:3, :3].T)])

    def solve_ik(self, target, seed, *, tolerance=1e-6, iterations=200, damping=1e-3):
        """Joint values (joint_names order) that put the tool frame at `target` (4x4), from
        `seed`, within the joint limits. Returns (q, error norm: metres + radians)."""
        q = np.clip(np.asarray(seed, float), self.lower, self.upper)
        error = self._error(q, target)
        for _ in range(iterations):
            if np.linalg.norm(error) < tolerance:
                break
            jacobian = np.empty((6, len(q)))
            for i in range(len(q)):  # finite differences: d error / d q_i = -d pose / d q_i
                dq = np.zeros(len(q))
                dq[i] = 1e-7
                jacobian[:, i] = (error - self._error(q + dq, target)) / 1e-7
            step = np.linalg.solve(jacobian.T @ jacobian + damping * np.eye(len(q)),
                                   jacobian.T @ error)
            q = np.clip(q + step, self.lower, self.upper)
            error = self._error(q, target)
        return q, float(np.linalg.norm(error))
