"""Builds the `contactsim` package with its contactsim.v1 stubs generated from the repository's
proto/ files (nothing generated is committed). The metadata is in pyproject.toml; this file only
adds the generation step to build_py.

Tools (Debian 12: protobuf-compiler, protobuf-compiler-grpc; deploy/install-deps.sh):
  $PROTOC or `protoc`, $GRPC_PYTHON_PLUGIN or `grpc_python_plugin` on PATH.
The protos: $CONTACTSIM_PROTO_DIR, or ../../proto beside this file (a repository checkout).
"""

import glob
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

_HERE = os.path.dirname(os.path.abspath(__file__))


def _tool(variable, name, package):
    path = os.environ.get(variable) or shutil.which(name)
    if not path:
        raise SystemExit(f"contactsim: {name} not found (set ${variable} or install Debian's "
                         f"{package}: deploy/install-deps.sh)")
    return path


def _proto_dir():
    proto_dir = os.environ.get("CONTACTSIM_PROTO_DIR") or os.path.join(_HERE, "..", "..", "proto")
    proto_dir = os.path.abspath(proto_dir)
    if not glob.glob(os.path.join(proto_dir, "contactsim", "v1", "*.proto")):
        raise SystemExit(f"contactsim: no contactsim/v1/*.proto under {proto_dir}: install from "
                         "a repository checkout (pip install clients/python) or set "
                         "$CONTACTSIM_PROTO_DIR")
    return proto_dir


class BuildPyWithStubs(build_py):
    """build_py, then protoc writes contactsim/v1/*_pb2.py and *_pb2_grpc.py into build_lib (the
    generated code imports contactsim.v1.*, which is why the stubs live inside the package)."""

    def run(self):
        super().run()
        proto_dir = _proto_dir()
        protos = sorted(glob.glob(os.path.join(proto_dir, "contactsim", "v1", "*.proto")))
        plugin = _tool("GRPC_PYTHON_PLUGIN", "grpc_python_plugin", "protobuf-compiler-grpc")
        protoc = _tool("PROTOC", "protoc", "protobuf-compiler")
        out = os.path.abspath(self.build_lib)
        os.makedirs(os.path.join(out, "contactsim", "v1"), exist_ok=True)
        self.announce(f"generating contactsim.v1 stubs from {proto_dir}", level=2)
        subprocess.run([protoc, "-I", proto_dir, f"--python_out={out}", f"--grpc_python_out={out}",
                        f"--plugin=protoc-gen-grpc_python={plugin}", *protos], check=True)
        with open(os.path.join(out, "contactsim", "v1", "__init__.py"), "w", encoding="utf-8"):
            pass


setup(cmdclass={"build_py": BuildPyWithStubs})
