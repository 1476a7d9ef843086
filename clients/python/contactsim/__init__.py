"""contactsim: Python client of the ContactSim gRPC service (contactsim.v1.Simulation).

    import contactsim
    with contactsim.Client("127.0.0.1:50051") as client:
        with client.create_session("demo", ground_planes=[contactsim.ground_plane()]) as session:
            box = session.add_box(0.05, position_m=(0, 0, 0.05))
            result = session.step(100)
            print(result.bodies[box.body_id].position_m, result.totals[box.body_id].impulse_ns)

Needs Debian's python3-grpcio, python3-protobuf and python3-numpy, and the stubs generated from
proto/: `pip install --no-build-isolation clients/python` into a venv made with
`/usr/bin/python3 -m venv --system-site-packages`, or the build's target contactsim_python with
build/clients/python on PYTHONPATH. See docs/python.md.
"""

try:
    import grpc  # noqa: F401
    import google.protobuf  # noqa: F401
    import numpy  # noqa: F401
except ImportError as error:
    raise ImportError(
        f"contactsim needs gRPC, protobuf and numpy for Python ({error}): install Debian's "
        "python3-grpcio, python3-protobuf and python3-numpy (deploy/install-deps.sh) and run "
        "Debian's /usr/bin/python3 (or a venv made from it with --system-site-packages)") \
        from error

try:
    from contactsim.v1 import simulation_pb2  # noqa: F401
except ImportError as error:
    raise ImportError(
        f"contactsim: generated stubs missing ({error}): build the target contactsim_python "
        "(cmake --build build --target contactsim_python) and put build/clients/python, not "
        "clients/python, on PYTHONPATH") from error

from .client import STEP_REPLY_PARTS, Client, FrameStream, Session
from .errors import ContactSimError
from .robots import (JointEffort, JointOff, JointPosition, JointStates, JointVelocity, Robot,
                     RobotJoint)
from .results import (AddedBody, BodyState, BodyTopology, BodyTotals, ContactArrays, ContactPair,
                      Diagnostics, Frame, Quat, SessionInfo, Snapshot, StepResult, UploadedMesh,
                      Vec3)
from .scene_file import LoadedScene, parse_scene_file, read_scene_file
from .tls import TlsOptions
from .urdf_meshes import MeshNotFoundError
from .scene import (Friction, GroundPlane, KinematicControl, TetMesh, TriangleMesh, box_mesh,
                    ground_plane)

__all__ = [
    "STEP_REPLY_PARTS", "AddedBody", "BodyState", "BodyTopology", "BodyTotals", "Client",
    "ContactArrays", "ContactPair", "LoadedScene", "TlsOptions", "parse_scene_file",
    "read_scene_file",
    "ContactSimError", "Diagnostics", "Frame", "FrameStream", "Friction", "GroundPlane",
    "JointEffort", "JointOff", "JointPosition", "JointStates", "JointVelocity",
    "KinematicControl", "MeshNotFoundError", "Quat", "Robot", "RobotJoint", "Session",
    "SessionInfo", "Snapshot", "StepResult", "TetMesh", "TriangleMesh", "UploadedMesh", "Vec3",
    "box_mesh", "ground_plane",
]
