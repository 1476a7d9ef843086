// TetMesh::Create: boundary extraction and orientation, volumes, and every validation error.
#include "core/geometry/tet_mesh.h"

#include <Eigen/Geometry>
#include <limits>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

using ::testing::HasSubstr;

void ExpectInvalid(const absl::Status& status, const std::string& message) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_EQ(status.message(), message);
}

// Unit cube corners: corner c has coordinate 1 on axis a when bit a of c is set.
Points3 CubeCorners() {
  Points3 v(8, 3);
  for (int c = 0; c < 8; ++c) v.row(c) << (c & 1), (c >> 1) & 1, (c >> 2) & 1;
  return v;
}

// The six Kuhn tets around diagonal 0-7, ordered by hand to positive volume.
IndexQuads CubeTets() {
  IndexQuads t(6, 4);
  t << 0, 1, 3, 7, 0, 3, 2, 7, 0, 5, 1, 7, 0, 4, 5, 7, 0, 2, 6, 7, 0, 6, 4, 7;
  return t;
}

Points3 UnitTetVertices() {
  Points3 v(4, 3);
  v << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1;
  return v;
}

TEST(TetMeshTest, SingleTetVolumeAndOutwardSurface) {
  IndexQuads t(1, 4);
  t << 0, 1, 2, 3;
  auto mesh = TetMesh::Create(UnitTetVertices(), t);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  // V = |det(e1, e2, e3)| / 6 = 1/6 exactly in binary floating point up to one rounding.
  EXPECT_NEAR(mesh->TetVolume(0), 1.0 / 6.0, 1e-16);
  EXPECT_NEAR(mesh->TotalVolume(), 1.0 / 6.0, 1e-16);
  const TriangleMesh& s = mesh->surface();
  EXPECT_EQ(s.num_faces(), 4);
  EXPECT_TRUE(s.is_closed());
  const Vec3 centroid(0.25, 0.25, 0.25);
  for (int f = 0; f < 4; ++f) {
    const Vec3 x0 = s.vertices().row(s.faces()(f, 0));
    EXPECT_GT(s.FaceNormal(f).dot(x0 - centroid), 0.0) << "face " << f;
  }
}

TEST(TetMeshTest, CubeOfSixTets) {
  auto mesh = TetMesh::Create(CubeCorners(), CubeTets());
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_NEAR(mesh->TotalVolume(), 1.0, 1e-15);
  for (int t = 0; t < 6; ++t) EXPECT_NEAR(mesh->TetVolume(t), 1.0 / 6.0, 1e-16);
  const TriangleMesh& s = mesh->surface();
  EXPECT_EQ(s.num_faces(), 12);  // two triangles per cube face; interior faces dropped
  EXPECT_EQ(s.num_edges(), 18);
  EXPECT_TRUE(s.is_closed());
  EXPECT_EQ(s.num_vertices() - s.num_edges() + s.num_faces(), 2);
  const Vec3 centre(0.5, 0.5, 0.5);
  for (int f = 0; f < s.num_faces(); ++f) {
    const Vec3 x0 = s.vertices().row(s.faces()(f, 0));
    EXPECT_GT(s.FaceNormal(f).dot(x0 - centre), 0.0) << "face " << f;
  }
  // The surface shares the tet mesh's vertex indices.
  EXPECT_EQ(s.vertices(), mesh->vertices());
}

TEST(TetMeshTest, InteriorVerticesAreNotOnTheSurface) {
  // Unit tet split into 4 around an interior point p: the surface is the original 4 faces.
  Points3 v(5, 3);
  v << UnitTetVertices(), 0.2, 0.2, 0.2;
  IndexQuads t(4, 4);
  t << 4, 1, 2, 3, 0, 4, 2, 3, 0, 1, 4, 3, 0, 1, 2, 4;
  auto mesh = TetMesh::Create(v, t);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_NEAR(mesh->TotalVolume(), 1.0 / 6.0, 1e-15);
  EXPECT_EQ(mesh->surface().num_faces(), 4);
  EXPECT_EQ(mesh->surface().vertex_faces_begin(4), mesh->surface().vertex_faces_end(4));
}

TEST(TetMeshTest, RejectsEmptyAndNonFinite) {
  ExpectInvalid(TetMesh::Create(UnitTetVertices(), IndexQuads(0, 4)).status(),
                "mesh has no tetrahedra");
  Points3 v = UnitTetVertices();
  v(1, 0) = std::numeric_limits<double>::infinity();
  IndexQuads t(1, 4);
  t << 0, 1, 2, 3;
  ExpectInvalid(TetMesh::Create(v, t).status(), "vertex 1: coordinate x is +Inf");
}

TEST(TetMeshTest, RejectsBadIndices) {
  IndexQuads t = CubeTets();
  t(4, 2) = 8;
  ExpectInvalid(TetMesh::Create(CubeCorners(), t).status(), "tet 4: index 8 out of range [0, 8)");
  t = CubeTets();
  t(2, 3) = 0;
  ExpectInvalid(TetMesh::Create(CubeCorners(), t).status(),
                "tet 2: vertex index 0 appears more than once");
}

TEST(TetMeshTest, RejectsDegenerateTet) {
  Points3 v = UnitTetVertices();
  v.row(3) << 0.5, 0.5, 0.0;  // in the plane of the others
  IndexQuads t(1, 4);
  t << 0, 1, 2, 3;
  ExpectInvalid(TetMesh::Create(v, t).status(), "tet 0: degenerate (volume 0 m^3)");
}

TEST(TetMeshTest, RejectsInvertedTet) {
  IndexQuads t = CubeTets();
  std::swap(t(3, 1), t(3, 2));
  ExpectInvalid(TetMesh::Create(CubeCorners(), t).status(),
                "tet 3: inverted (volume -0.166667 m^3); corners must be positively oriented");
}

TEST(TetMeshTest, RejectsFaceSharedByThreeTets) {
  // Tets 0 and 2 sit above face (0, 1, 2) (z > 0), tet 1 below it.
  Points3 v(6, 3);
  v << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.2, 0.2, -1, 0.3, 0.3, 2;
  IndexQuads t(3, 4);
  t << 0, 1, 2, 3, 0, 2, 1, 4, 0, 1, 2, 5;
  const auto status = TetMesh::Create(v, t).status();
  ExpectInvalid(status,
                "face (0, 1, 2): shared by 3 tetrahedra (tets 0, 1, 2); at most two may "
                "share a face");
}

TEST(TetMeshTest, RejectsOverlappingTets) {
  Points3 v(5, 3);
  v << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.3, 0.3, 2;
  IndexQuads t(2, 4);
  t << 0, 1, 2, 3, 0, 1, 2, 4;  // both above face (0, 1, 2)
  ExpectInvalid(TetMesh::Create(v, t).status(),
                "face (0, 1, 2): tets 0 and 1 lie on the same side of it (overlapping "
                "tetrahedra)");
}

TEST(TetMeshTest, RejectsNonManifoldBoundary) {
  // Two tets touching at a single vertex: each face is used once, but the boundary pinches.
  Points3 v(7, 3);
  v << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, -1, 0, 0, 0, -1, 0, 0, 0, -1;
  IndexQuads t(2, 4);
  t << 0, 1, 2, 3, 0, 4, 6, 5;
  const auto status = TetMesh::Create(v, t).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("boundary surface: vertex 0: its 6 faces form more "
                        "than one fan (non-manifold vertex)"));
  // Two tets sharing only an edge: four boundary faces meet at edge (0, 1).
  Points3 w(6, 3);
  w << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0, 0, 0, -1;
  t << 0, 1, 2, 3, 0, 1, 4, 5;
  ExpectInvalid(TetMesh::Create(w, t).status(),
                "boundary surface: edge (0, 1): shared by 4 faces (non-manifold)");
}

TEST(TetMeshTest, SizeLimits) {
  MeshOptions options;
  options.limits.max_elements = 5;
  ExpectInvalid(TetMesh::Create(CubeCorners(), CubeTets(), options).status(),
                "6 tetrahedra exceed the limit of 5");
  options.limits.max_elements = 6;
  options.limits.max_vertices = 7;
  ExpectInvalid(TetMesh::Create(CubeCorners(), CubeTets(), options).status(),
                "8 vertices exceed the limit of 7");
}

}  // namespace
}  // namespace contactsim::core
