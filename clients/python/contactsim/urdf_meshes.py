"""The mesh files a URDF names, found on this machine and read as bytes for AddRobot.

The server never reads its own disk for a robot (robot.proto, MeshFile): the client finds every
`<mesh filename="...">` and sends the file under the name exactly as the URDF writes it. The
rules are the C++ client's (clients/cpp/mesh_path_resolver.cc):
- `package://NAME/REST`: `packages[NAME]/REST` when NAME is in `packages`, else the first
  `ROOT/NAME/REST` that exists under the ROS_PACKAGE_PATH roots (colon-separated);
- `file:///abs/path` and absolute paths as given;
- other URIs (`http://...`) are refused;
- relative paths against the URDF's folder.
"""

import errno
import os
import xml.etree.ElementTree as ElementTree

_PACKAGE_SCHEME = "package://"
_FILE_SCHEME = "file://"


class MeshNotFoundError(FileNotFoundError):
    """A mesh the URDF names that cannot be found or read here (raised before any rpc).
    `written` is the filename as the URDF writes it; `filename` the path tried, if any."""

    def __init__(self, written, message, tried=None):
        super().__init__(errno.ENOENT, f"mesh \"{written}\": {message}", tried)
        self.written = written

    def __str__(self):  # the message alone: OSError's "[Errno 2] ...: 'path'" says it twice
        return self.strerror


def _local_name(element):
    """A tag without its "{namespace}" (a URDF with a default xmlns has them)."""
    return element.tag.rpartition("}")[2] if isinstance(element.tag, str) else ""


def _children(element, name):
    return [child for child in element if _local_name(child) == name]


def mesh_filenames(urdf_text):
    """Every distinct `<mesh filename>` of the URDF's links (visual and collision geometry: what
    the server's loader reads; meshes in other tags, e.g. <gazebo>, are not sent), in document
    order. ValueError "urdf: ..." when the text is not XML."""
    try:
        root = ElementTree.fromstring(urdf_text)
    except ElementTree.ParseError as error:
        raise ValueError(f"urdf: not well-formed XML ({error})") from None
    names = []
    for link in _children(root, "link"):
        for element in _children(link, "visual") + _children(link, "collision"):
            for geometry in _children(element, "geometry"):
                for mesh in _children(geometry, "mesh"):
                    filename = mesh.get("filename")
                    # one without a filename: the server's loader names the element
                    if filename is not None and filename not in names:
                        names.append(filename)
    return names


def package_search_roots(value=None):
    """The roots of ROS_PACKAGE_PATH (or of `value`), empty entries dropped."""
    if value is None:
        value = os.environ.get("ROS_PACKAGE_PATH", "")
    return [root for root in value.split(":") if root]


def resolve_mesh_path(written, *, urdf_dir=None, packages=None, search_roots=None):
    """The local file a URDF's mesh filename names (see the module's rules). Raises
    MeshNotFoundError naming `written` when no rule finds it; does not check that a path given
    by `packages`, file:// or an absolute name exists (read_mesh_files does)."""
    if not written:
        raise MeshNotFoundError(written, "empty filename")
    if written.startswith(_PACKAGE_SCHEME):
        rest_of_uri = written[len(_PACKAGE_SCHEME):]
        name, slash, rest = rest_of_uri.partition("/")
        if not slash or not name or not rest:
            raise MeshNotFoundError(written, "expected package://NAME/PATH")
        if packages and name in packages:
            return os.path.join(os.fspath(packages[name]), rest)
        roots = package_search_roots() if search_roots is None else search_roots
        for root in roots:
            candidate = os.path.join(os.fspath(root), name, rest)
            if os.path.isfile(candidate):
                return candidate
        raise MeshNotFoundError(
            written, f"package \"{name}\" is not in packages={{...}} and is under no "
            f"ROS_PACKAGE_PATH root ({':'.join(os.fspath(r) for r in roots) or 'unset'})")
    if written.startswith(_FILE_SCHEME):
        return written[len(_FILE_SCHEME):]
    if "://" in written:
        raise MeshNotFoundError(written, "only package://, file:// and plain paths")
    if os.path.isabs(written):
        return written
    if urdf_dir is None:
        raise MeshNotFoundError(written, "a relative path, and no folder to resolve it against "
                                "(pass base_dir=, or the file to add_robot)")
    return os.path.join(os.fspath(urdf_dir), written)


def read_mesh_files(urdf_text, *, given=None, urdf_dir=None, packages=None, search_roots=None):
    """{filename as written: bytes} for every mesh of the URDF: from `given` ({filename: bytes})
    when it has the name, else read from the file resolve_mesh_path finds. MeshNotFoundError
    naming the filename and the path tried for a file that is missing or unreadable."""
    given = dict(given or {})
    files = {}
    for written in mesh_filenames(urdf_text):
        if written in given:
            files[written] = bytes(given.pop(written))
            continue
        path = resolve_mesh_path(written, urdf_dir=urdf_dir, packages=packages,
                                 search_roots=search_roots)
        try:
            with open(path, "rb") as file:
                files[written] = file.read()
        except OSError as error:
            raise MeshNotFoundError(written, f"cannot read {path}: {error.strerror}",
                                    path) from None
    if given:  # a typo in a key would otherwise resurface as a file the server says is missing
        raise ValueError(f"mesh_files: {sorted(given)} not named by any <mesh filename> of the "
                         f"URDF (it names {sorted(files) or 'none'})")
    return files
