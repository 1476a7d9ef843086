"""Mesh files and primitives through the Python package against a real contactsim-server.

The expected values come from geometry, not from the code under test: a 100 mm cube at
1000 kg/m^3 is 1 kg; the vertex counts of the generated shapes are the formulas of
primitives.proto.
"""

import math
import os
import struct
import tempfile
import unittest

try:  # first: contactsim says what to install when gRPC or protobuf is missing
    import contactsim
except ImportError as error:
    raise ImportError(f"{error} (ctest needs the targets contactsim_python and "
                      "contactsim-server built)") from error
import grpc
from contactsim.v1 import scene_pb2
from server_process import ServerProcess

DATA_DIR = os.path.join(os.environ.get("CONTACTSIM_TEST_DATA_DIR", ""), "meshes")
# Outward, counter-clockwise box triangles over corners c = x + 2 y + 4 z (a 1 bit: the + side).
BOX_TRIANGLES = [(0, 2, 1), (1, 2, 3), (4, 5, 6), (5, 7, 6), (0, 1, 5), (0, 5, 4),
                 (2, 6, 7), (2, 7, 3), (0, 4, 6), (0, 6, 2), (1, 3, 7), (1, 7, 5)]
FEM = scene_pb2.FemMaterial(youngs_modulus_pa=1e5, poisson_ratio=0.3, density_kg_per_m3=1000.0)

server = None


def setUpModule():
    global server
    if not os.path.isdir(DATA_DIR):
        raise RuntimeError(f"CONTACTSIM_TEST_DATA_DIR: {DATA_DIR} is not the tests/data/meshes "
                           "folder (ctest sets it)")
    server = ServerProcess()


def tearDownModule():
    if server is not None:
        server.stop()


def binary_stl_box(half):
    """A box as a CAD tool exports it: 80-byte header, facet count, 50 bytes per facet with
    every corner repeated (little-endian float32)."""
    corner = [tuple(half if (c >> a) & 1 else -half for a in range(3)) for c in range(8)]
    data = b"contactsim python test".ljust(80, b" ") + struct.pack("<I", 12)
    for triangle in BOX_TRIANGLES:
        data += struct.pack("<3f", 0.0, 0.0, 0.0)
        for c in triangle:
            data += struct.pack("<3f", *corner[c])
        data += struct.pack("<H", 0)
    return data


class MeshFileTest(unittest.TestCase):
    def setUp(self):
        self.client = contactsim.Client(server.address, timeout_s=60.0)
        self.addCleanup(self.client.close)
        self.session = self.client.create_session("mesh-files", dt_s=1e-3)
        self.addCleanup(self.session.close)
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def write(self, name, data):
        path = os.path.join(self.tmp.name, name)
        with open(path, "wb") as out:
            out.write(data)
        return path

    def test_cad_obj_in_millimetres_is_welded_into_a_one_kilogram_cube(self):
        body = self.session.add_mesh_file(os.path.join(DATA_DIR, "cube_100mm_unshared.obj"),
                                          "rigid", scale_to_m=0.001, density_kg_per_m3=1000.0,
                                          position_m=(0.0, 0.0, 1.0))
        self.assertEqual(body.num_vertices, 8)  # 36 corners in the file
        self.assertAlmostEqual(body.mass_kg, 1.0, delta=1e-12)

    def test_binary_stl_is_welded(self):
        uploaded = self.session.upload_mesh_file(self.write("box.stl", binary_stl_box(0.05)))
        self.assertEqual((uploaded.num_vertices, uploaded.num_elements), (8, 12))
        self.assertFalse(uploaded.tetrahedral)
        body = self.session.add_body(uploaded.mesh_id, "rigid", density_kg_per_m3=1000.0)
        self.assertAlmostEqual(body.mass_kg, 1.0, delta=1e-6)  # float32 corners: 6e-8 each

    def test_gmsh_file_is_a_soft_body(self):
        uploaded = self.session.upload_mesh_file(os.path.join(DATA_DIR, "unit_cube_tets.msh"),
                                                 scale_to_m=0.1)
        self.assertTrue(uploaded.tetrahedral)
        self.assertEqual((uploaded.num_vertices, uploaded.num_elements), (8, 6))
        body = self.session.add_body(uploaded.mesh_id, "fem", material=FEM,
                                     position_m=(0.0, 0.0, 1.0))
        self.assertAlmostEqual(body.mass_kg, 1.0, delta=1e-12)
        # Free fall under symplectic Euler: after n steps of dt every vertex has dropped
        # g dt^2 n (n + 1) / 2; the cube spans z in [1, 1.1], mean 1.05.
        n, dt = 10, 1e-3
        vertices = self.session.step(n).bodies[body.body_id].vertex_positions_m
        self.assertEqual(len(vertices), 8)
        mean_z = vertices[:, 2].mean()  # numpy (n, 3) rows of (x, y, z)
        self.assertAlmostEqual(mean_z, 1.05 - 9.81 * dt * dt * n * (n + 1) / 2, delta=1e-9)

    def test_tetgen_node_and_ele_are_sent_together(self):
        # The unit cube split into 6 tets around its diagonal, 1-based as TetGen writes it.
        self.write("cube.ele", b"6 4 0\n1 1 2 4 8\n2 1 4 3 8\n3 1 6 2 8\n4 1 5 6 8\n"
                               b"5 1 3 7 8\n6 1 7 5 8\n")
        node = self.write("cube.node", b"8 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 1 1 0\n"
                                       b"5 0 0 1\n6 1 0 1\n7 0 1 1\n8 1 1 1\n")
        uploaded = self.session.upload_mesh_file(node, scale_to_m=0.1)
        self.assertTrue(uploaded.tetrahedral)
        self.assertEqual((uploaded.num_vertices, uploaded.num_elements), (8, 6))

    def test_bad_files_are_refused_naming_the_field(self):
        truncated = self.write("cut.stl", binary_stl_box(0.05)[:300])
        with self.assertRaises(contactsim.ContactSimError) as refused:
            self.session.upload_mesh_file(truncated)
        self.assertEqual(refused.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertTrue(refused.exception.message.startswith("file_bytes:"),
                        refused.exception.message)
        with self.assertRaises(contactsim.ContactSimError) as refused:
            self.session.upload_mesh_file(os.path.join(DATA_DIR, "cube_100mm_unshared.obj"),
                                          format="msh")
        self.assertTrue(refused.exception.message.startswith("file_bytes: line 1:"))
        with self.assertRaises(contactsim.ContactSimError) as refused:
            self.session.upload_mesh_file(os.path.join(DATA_DIR, "cube_100mm_unshared.obj"),
                                          scale_to_m=-1.0)
        self.assertTrue(refused.exception.message.startswith("chunks[0].scale_to_m:"))
        with self.assertRaisesRegex(ValueError, "unknown mesh file extension"):
            self.session.upload_mesh_file(self.write("mesh.xyz", b"1 2 3"))
        with self.assertRaisesRegex(ValueError, "format:"):
            self.session.upload_mesh_file(truncated, format="step")
        self.assertEqual(self.session.info().body_ids, [])

    def test_primitives_have_the_sizes_primitives_proto_gives(self):
        s = self.session
        sphere = s.add_sphere(0.1, subdivisions=2, position_m=(0, 0, 1))
        self.assertEqual(sphere.num_vertices, 10 * 4 ** 2 + 2)
        # Inscribed in the sphere: lighter than it, within the icosphere's volume deficit (< 5 %).
        self.assertLess(sphere.mass_kg, 1000.0 * 4.0 / 3.0 * math.pi * 0.1 ** 3)
        self.assertGreater(sphere.mass_kg, 0.95 * 1000.0 * 4.0 / 3.0 * math.pi * 0.1 ** 3)
        self.assertEqual(s.add_cylinder(0.05, 0.2, segments=16, position_m=(1, 0, 1))
                         .num_vertices, 2 * 16 + 2)
        self.assertEqual(s.add_torus(0.2, 0.05, major_segments=12, tube_segments=6,
                                     position_m=(2, 0, 1)).num_vertices, 12 * 6)
        self.assertGreater(s.add_capsule(0.05, 0.1, position_m=(3, 0, 1)).mass_kg, 0.0)
        self.assertEqual(s.add_bowl(0.2, 0.02, segments=12, rings=4, position_m=(4, 0, 0))
                         .num_vertices, 2 * 4 * 12 + 2)
        cloth = scene_pb2.ClothMaterial(area_density_kg_per_m2=0.5, stretch_stiffness_n_per_m=20.0)
        self.assertEqual(s.add_cloth_grid(0.5, 0.5, 4, 3, material=cloth, position_m=(5, 0, 1))
                         .num_vertices, 5 * 4)
        tet_box = s.add_tet_box((0.05, 0.05, 0.05), cells=(2, 2, 2), material=FEM,
                                position_m=(6, 0, 1))
        self.assertEqual(tet_box.num_vertices, 27)
        self.assertAlmostEqual(tet_box.mass_kg, 1.0, delta=1e-12)  # 0.1 m cube, 1000 kg/m^3
        self.assertEqual(s.add_tet_sphere(0.1, resolution=3, material=FEM, position_m=(7, 0, 1))
                         .num_vertices, 4 ** 3)
        self.assertEqual(len(s.info().body_ids), 8)


if __name__ == "__main__":
    unittest.main()
