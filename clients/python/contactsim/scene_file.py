"""Scene files (scenes/*.textproto: contactsim.v1.SceneFile in protobuf text format) read and
loaded from Python the way `contactsim load` and the server's --scene do (scenes/loader/): the
session is created, the mesh files uploaded, then the bodies and constraints added in file order;
a refused element closes the half-built session and raises ContactSimError with the element
prefixed ("bodies[3] (torus2): ...")."""

import os
from dataclasses import dataclass, field

from google.protobuf import text_format

from contactsim.v1 import scene_file_pb2

from .convert import added_body
from .errors import ContactSimError


@dataclass
class LoadedScene:
    """A loaded scene: its controller Session (which closes the session when used as a context
    manager), the AddedBody of each body and the constraint ids, in file order."""

    session: object
    bodies: list
    constraint_ids: list
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
    return scene


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
    except ContactSimError as error:
        try:  # a scene loads completely or not at all
            session.close()
        except ContactSimError:
            pass
        raise _prefixed(error, element) from None
    return loaded
