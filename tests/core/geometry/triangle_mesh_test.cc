// TriangleMesh::Create: derived topology against brute-force references, and every validation
// error with the element it names.
#include "core/geometry/triangle_mesh.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "core/geometry/generators.h"
#include "core/geometry/mesh_validation.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

using ::testing::HasSubstr;

// Regular-ish tetrahedron surface, outward-oriented.
Points3 TetVertices() {
  Points3 v(4, 3);
  v << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1;
  return v;
}
IndexTriples TetFaces() {
  IndexTriples f(4, 3);
  f << 0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3;
  return f;
}

MeshOptions Closed() {
  MeshOptions options;
  options.require_closed = true;
  return options;
}

void ExpectInvalid(const absl::Status& status, const std::string& message) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_EQ(status.message(), message);
}

// Checks every derived array against a direct recomputation from the faces.
void ExpectTopologyMatchesBruteForce(const TriangleMesh& mesh) {
  std::map<std::pair<int, int>, std::vector<int>> edge_faces;
  std::vector<std::vector<int>> vertex_faces(mesh.num_vertices());
  for (int f = 0; f < mesh.num_faces(); ++f) {
    for (int k = 0; k < 3; ++k) {
      const int a = mesh.faces()(f, k), b = mesh.faces()(f, (k + 1) % 3);
      edge_faces[{std::min(a, b), std::max(a, b)}].push_back(f);
      vertex_faces[a].push_back(f);
    }
  }
  ASSERT_EQ(mesh.num_edges(), static_cast<int>(edge_faces.size()));
  int e = 0;
  bool closed = true;
  for (const auto& [edge, faces] : edge_faces) {  // std::map iterates in (lo, hi) order
    EXPECT_EQ(mesh.edges()(e, 0), edge.first);
    EXPECT_EQ(mesh.edges()(e, 1), edge.second);
    EXPECT_EQ(std::vector<int>(mesh.edge_faces_begin(e), mesh.edge_faces_end(e)), faces);
    EXPECT_EQ(mesh.edge_face_count(e), static_cast<int>(faces.size()));
    closed = closed && faces.size() == 2;
    ++e;
  }
  EXPECT_EQ(mesh.is_closed(), closed);
  for (int f = 0; f < mesh.num_faces(); ++f) {
    for (int k = 0; k < 3; ++k) {
      const int edge = mesh.face_edges()(f, k);
      const int a = mesh.faces()(f, k), b = mesh.faces()(f, (k + 1) % 3);
      EXPECT_EQ(mesh.edges()(edge, 0), std::min(a, b));
      EXPECT_EQ(mesh.edges()(edge, 1), std::max(a, b));
    }
  }
  for (int v = 0; v < mesh.num_vertices(); ++v) {
    EXPECT_EQ(std::vector<int>(mesh.vertex_faces_begin(v), mesh.vertex_faces_end(v)),
              vertex_faces[v]);
  }
}

TEST(TriangleMeshTest, TetrahedronSurfaceIsClosedWithSixEdges) {
  auto mesh = TriangleMesh::Create(TetVertices(), TetFaces(), Closed());
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_EQ(mesh->num_vertices(), 4);
  EXPECT_EQ(mesh->num_faces(), 4);
  EXPECT_EQ(mesh->num_edges(), 6);
  EXPECT_TRUE(mesh->is_closed());
  ExpectTopologyMatchesBruteForce(*mesh);
  // Outward: the normal of each face points away from the opposite vertex, so from the centroid.
  const Vec3 centroid(0.25, 0.25, 0.25);
  for (int f = 0; f < 4; ++f) {
    const Vec3 x0 = mesh->vertices().row(mesh->faces()(f, 0));
    EXPECT_GT(mesh->FaceNormal(f).dot(x0 - centroid), 0.0) << "face " << f;
    EXPECT_NEAR(mesh->FaceNormal(f).norm(), 1.0, 1e-15);
  }
}

TEST(TriangleMeshTest, TopologyMatchesBruteForceOnGeneratedMeshes) {
  auto sphere = MakeSphere(1.0, 2);
  ASSERT_TRUE(sphere.ok()) << sphere.status();
  ExpectTopologyMatchesBruteForce(*sphere);
  auto cloth = MakeClothGrid(1.0, 2.0, 5, 3);
  ASSERT_TRUE(cloth.ok()) << cloth.status();
  ExpectTopologyMatchesBruteForce(*cloth);
  auto torus = MakeTorus(1.0, 0.25, 7, 5);
  ASSERT_TRUE(torus.ok()) << torus.status();
  ExpectTopologyMatchesBruteForce(*torus);
}

TEST(TriangleMeshTest, OpenSingleTriangle) {
  Points3 v(3, 3);
  v << 0, 0, 0, 1, 0, 0, 0, 1, 0;
  IndexTriples f(1, 3);
  f << 0, 1, 2;
  auto mesh = TriangleMesh::Create(v, f);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_FALSE(mesh->is_closed());
  EXPECT_EQ(mesh->num_edges(), 3);
  for (int e = 0; e < 3; ++e) EXPECT_EQ(mesh->edge_face_count(e), 1);
  EXPECT_TRUE(mesh->FaceNormal(0).isApprox(Vec3(0, 0, 1)));
  ExpectInvalid(TriangleMesh::Create(v, f, Closed()).status(),
                "edge (0, 1): boundary edge, but a closed surface is required");
}

TEST(TriangleMeshTest, UnreferencedVerticesAreAllowed) {
  Points3 v(5, 3);
  v << TetVertices(), 5, 5, 5;
  auto mesh = TriangleMesh::Create(v, TetFaces(), Closed());
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_EQ(mesh->vertex_faces_begin(4), mesh->vertex_faces_end(4));
}

TEST(TriangleMeshTest, RejectsEmptyMesh) {
  ExpectInvalid(TriangleMesh::Create(TetVertices(), IndexTriples(0, 3)).status(),
                "mesh has no faces");
}

TEST(TriangleMeshTest, RejectsNonFiniteCoordinates) {
  Points3 v = TetVertices();
  v(2, 1) = std::numeric_limits<double>::quiet_NaN();
  ExpectInvalid(TriangleMesh::Create(v, TetFaces()).status(), "vertex 2: coordinate y is NaN");
  v = TetVertices();
  v(3, 2) = -std::numeric_limits<double>::infinity();
  ExpectInvalid(TriangleMesh::Create(v, TetFaces()).status(), "vertex 3: coordinate z is -Inf");
}

TEST(TriangleMeshTest, RejectsIndexOutOfRange) {
  IndexTriples f = TetFaces();
  f(1, 2) = 7;
  ExpectInvalid(TriangleMesh::Create(TetVertices(), f).status(),
                "face 1: index 7 out of range [0, 4)");
  f = TetFaces();
  f(3, 0) = -1;
  ExpectInvalid(TriangleMesh::Create(TetVertices(), f).status(),
                "face 3: index -1 out of range [0, 4)");
}

TEST(TriangleMeshTest, RejectsRepeatedIndexInFace) {
  IndexTriples f = TetFaces();
  f.row(2) << 3, 0, 3;
  ExpectInvalid(TriangleMesh::Create(TetVertices(), f).status(),
                "face 2: vertex index 3 appears more than once");
}

TEST(TriangleMeshTest, RejectsDegenerateFaces) {
  Points3 v(4, 3);
  v << 0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0;  // 0, 1, 2 collinear
  IndexTriples f(2, 3);
  f << 0, 1, 3, 0, 2, 1;
  ExpectInvalid(TriangleMesh::Create(v, f).status(), "face 1: degenerate (area 0 m^2)");
  // Non-zero but below tolerance: height 1e-14 m over a 1 m base gives area 5e-15 m^2, under
  // 1e-12 * (mean edge)^2 ~ 1e-12 m^2.
  v(2, 1) = 1e-14;
  ExpectInvalid(TriangleMesh::Create(v, f).status(), "face 1: degenerate (area 5e-15 m^2)");
  // The same face passes when the tolerance is zero (only exact zero is then degenerate).
  MeshOptions lenient;
  lenient.degenerate_relative_tolerance = 0.0;
  EXPECT_TRUE(TriangleMesh::Create(v, f, lenient).ok());
}

TEST(TriangleMeshTest, RejectsDuplicateFaces) {
  IndexTriples f(5, 3);
  f << TetFaces(), 1, 3, 0;  // face 1 (0, 1, 3) rotated
  ExpectInvalid(TriangleMesh::Create(TetVertices(), f).status(), "face 4 duplicates face 1");
  f.row(4) << 3, 1, 0;  // face 1 reversed: the same triangle seen from the other side
  ExpectInvalid(TriangleMesh::Create(TetVertices(), f).status(), "face 4 duplicates face 1");
}

TEST(TriangleMeshTest, NonManifoldEdgeOnlyRejectedWhenClosedIsRequired) {
  Points3 v(5, 3);
  v << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1;
  IndexTriples f(3, 3);
  f << 0, 1, 2, 1, 0, 3, 0, 1, 4;  // three fins on edge (0, 1)
  auto open = TriangleMesh::Create(v, f);
  ASSERT_TRUE(open.ok()) << open.status();
  EXPECT_EQ(open->edge_face_count(0), 3);
  EXPECT_FALSE(open->is_closed());
  ExpectInvalid(TriangleMesh::Create(v, f, Closed()).status(),
                "edge (0, 1): shared by 3 faces (non-manifold)");
}

TEST(TriangleMeshTest, InconsistentOrientation) {
  IndexTriples f = TetFaces();
  f.row(3) << 1, 3, 2;  // flipped
  auto open = TriangleMesh::Create(TetVertices(), f);
  ASSERT_TRUE(open.ok()) << open.status();
  EXPECT_FALSE(open->is_closed());  // every edge has two faces, but not a consistent surface
  ExpectInvalid(TriangleMesh::Create(TetVertices(), f, Closed()).status(),
                "edge (1, 2): faces 0 and 3 traverse it in the same direction (inconsistent "
                "orientation)");
}

TEST(TriangleMeshTest, RejectsPinchedVertexWhenClosedIsRequired) {
  // Two tetrahedra touching tip to tip at vertex 0: every edge is manifold, vertex 0 is not.
  Points3 v(7, 3);
  v << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, -1, 0, 0, 0, -1, 0, 0, 0, -1;
  IndexTriples f(8, 3);
  f << TetFaces(), 4, 6, 5, 0, 5, 6, 0, 4, 5, 0, 6, 4;
  auto open = TriangleMesh::Create(v, f);
  ASSERT_TRUE(open.ok()) << open.status();
  EXPECT_TRUE(open->is_closed());
  ExpectInvalid(TriangleMesh::Create(v, f, Closed()).status(),
                "vertex 0: its 6 faces form more than one fan (non-manifold vertex), but a closed "
                "surface is required");
}

TEST(TriangleMeshTest, SizeLimitsAreCheckedFirst) {
  MeshOptions options;
  options.limits.max_vertices = 3;
  Points3 v = TetVertices();
  v(0, 0) = std::numeric_limits<double>::quiet_NaN();  // would fail later, limits win
  ExpectInvalid(TriangleMesh::Create(v, TetFaces(), options).status(),
                "4 vertices exceed the limit of 3");
  options.limits.max_vertices = 10;
  options.limits.max_elements = 3;
  ExpectInvalid(TriangleMesh::Create(v, TetFaces(), options).status(),
                "4 faces exceed the limit of 3");
}

TEST(TriangleMeshTest, LimitMessageGroupsThousands) {
  MeshOptions options;
  options.limits.max_vertices = 1'000'000;
  Points3 v = Points3::Zero(1'000'001, 3);
  ExpectInvalid(TriangleMesh::Create(v, TetFaces(), options).status(),
                "1,000,001 vertices exceed the limit of 1,000,000");
  EXPECT_EQ(internal::FormatCount(3'000'001), "3,000,001");
  EXPECT_EQ(internal::FormatCount(999), "999");
  EXPECT_EQ(internal::FormatCount(1000), "1,000");
  EXPECT_EQ(internal::FormatCount(-12345), "-12,345");
  EXPECT_EQ(internal::FormatCount(0), "0");
}

TEST(TriangleMeshTest, RejectsBadOptions) {
  MeshOptions options;
  options.degenerate_relative_tolerance = -1.0;
  const auto status = TriangleMesh::Create(TetVertices(), TetFaces(), options).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("options.degenerate_relative_tolerance"));
}

}  // namespace
}  // namespace contactsim::core
