// Contact detection against triangle-mesh obstacles (mesh_contact.h): one configuration per
// contact kind, with the normal, gap, weights and H rows worked out by hand, plus the dedup of a
// vertex over a shared edge, kinematic (translating, rotating) obstacles and the validation
// messages.
#include "core/dynamics/local_global/mesh_contact.h"

#include <Eigen/Geometry>
#include <cmath>
#include <vector>

#include "core/dynamics/fem/material.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "core/linalg/cpu_backend.h"
#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

constexpr double kProximity = 0.01;

TetMesh SingleTet(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  Points3 x(4, 3);
  x.row(0) = a.transpose();
  x.row(1) = b.transpose();
  x.row(2) = c.transpose();
  x.row(3) = d.transpose();
  IndexQuads tets(1, 4);
  tets << 0, 1, 2, 3;
  return TetMesh::Create(x, tets).value();
}

std::vector<VertexContact> Detect(const TetMesh& body, const TriangleMeshObstacle& obstacle,
                                  double elapsed_s = 0.0) {
  auto detector = MeshContactDetector::Create(body.surface(), {obstacle});
  EXPECT_TRUE(detector.ok()) << detector.status();
  std::vector<VertexContact> contacts;
  const std::vector<int32_t> free_index = {0, 1, 2, 3};
  const absl::Status s =
      (*detector)->Detect(body.vertices(), free_index, kProximity, elapsed_s, 0.01, &contacts);
  EXPECT_TRUE(s.ok()) << s;
  return contacts;
}

// Floor z = 0 over [-1, 1]^2 as two triangles sharing the diagonal (-1,-1)-(1,1), normal +z.
TriangleMeshObstacle Floor() {
  TriangleMeshObstacle floor;
  floor.vertices_m.resize(4, 3);
  floor.vertices_m << -1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0;
  floor.faces.resize(2, 3);
  floor.faces << 0, 1, 2, 0, 2, 3;
  floor.friction_coefficient = 0.4;
  return floor;
}

// A roof: ridge y in [-1, 1] at x = z = 0, slopes down to z = -1 at x = -1 and x = 1.
TriangleMeshObstacle Roof() {
  TriangleMeshObstacle roof;
  roof.vertices_m.resize(6, 3);
  roof.vertices_m << 0, -1, 0, 0, 1, 0, -1, -1, -1, -1, 1, -1, 1, -1, -1, 1, 1, -1;
  roof.faces.resize(4, 3);
  roof.faces << 0, 4, 5, 0, 5, 1, 0, 1, 3, 0, 3, 2;
  return roof;
}

// A square pyramid, apex at the origin, sides sloping down at 45 degrees (open at the bottom).
TriangleMeshObstacle Pyramid() {
  TriangleMeshObstacle pyramid;
  pyramid.vertices_m.resize(5, 3);
  pyramid.vertices_m << 0, 0, 0, 1, 1, -1, -1, 1, -1, -1, -1, -1, 1, -1, -1;
  pyramid.faces.resize(4, 3);
  pyramid.faces << 0, 4, 1, 0, 1, 2, 0, 2, 3, 0, 3, 4;
  return pyramid;
}

// Vertex 0 sits 4 mm above the floor (over the shared diagonal, so over both triangles); the
// rest of the tet is far above. One contact: normal +z, gap 4 mm, H on vertex 0 only.
TEST(MeshContactTest, VertexAboveTriangleGetsFaceNormalAndOneContactOverSharedEdge) {
  const TetMesh body = SingleTet(Vec3(0.2, 0.2, 0.004), Vec3(0.5, 0.2, 0.5), Vec3(0.2, 0.5, 0.5),
                                 Vec3(0.2, 0.2, 0.8));
  const std::vector<VertexContact> contacts = Detect(body, Floor());
  ASSERT_EQ(contacts.size(), 1u);
  const VertexContact& c = contacts[0];
  EXPECT_EQ(c.kind, ContactKind::kVertexTriangle);
  EXPECT_EQ(c.vertex, 0);
  EXPECT_EQ(c.obstacle, 0);
  EXPECT_DOUBLE_EQ(c.friction_coefficient, 0.4);
  EXPECT_NEAR((c.normal - Vec3::UnitZ()).norm(), 0.0, 1e-15);
  EXPECT_NEAR(c.normal.dot(ContactPoint(c, body.vertices())) - c.offset_m, 0.004, 1e-15);
  EXPECT_NEAR(c.tangent1.dot(c.normal), 0.0, 1e-15);
  EXPECT_NEAR(c.normal.cross(c.tangent1).dot(c.tangent2), 1.0, 1e-15);
  const CsrMatrix h = BuildContactJacobian(contacts, 4);
  ASSERT_EQ(h.rows, 3);
  ASSERT_EQ(h.row_offsets[1], 3);  // the normal row: 3 entries, on vertex 0's dofs
  EXPECT_EQ(h.col_indices[0], 0);
  EXPECT_DOUBLE_EQ(h.values[2], 1.0);
}

// Vertex 0 is 3 mm beyond the floor's edge x = 1 and 4 mm above it: the closest point is on the
// edge, the normal (0.6, 0, 0.8) points from it to the vertex, the gap is 5 mm.
TEST(MeshContactTest, VertexBeyondTriangleEdgeGetsClosestPointNormal) {
  const TetMesh body = SingleTet(Vec3(1.003, 0.2, 0.004), Vec3(1.3, 0.2, 0.5),
                                 Vec3(1.003, 0.5, 0.5), Vec3(1.003, 0.2, 0.8));
  const std::vector<VertexContact> contacts = Detect(body, Floor());
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_NEAR((contacts[0].normal - Vec3(0.6, 0.0, 0.8)).norm(), 0.0, 1e-12);
  EXPECT_NEAR(contacts[0].normal.dot(body.vertices().row(0).transpose()) - contacts[0].offset_m,
              0.005, 1e-12);
}

// A vertex resting on the floor a hair off the shared diagonal: inside one triangle, just
// beyond the other's (flat) edge. Only the face contact counts: the closest point on the flat
// edge would give a sideways normal (the vertex is 1e-6 m off the edge, 1e-9 m above the plane).
TEST(MeshContactTest, VertexBesideFlatEdgeGetsOnlyTheFaceContact) {
  const TetMesh body = SingleTet(Vec3(0.3, 0.3 + 1e-6, 1e-9), Vec3(0.6, 0.3, 0.5),
                                 Vec3(0.3, 0.6, 0.5), Vec3(0.3, 0.3, 0.8));
  const std::vector<VertexContact> contacts = Detect(body, Floor());
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_NEAR((contacts[0].normal - Vec3::UnitZ()).norm(), 0.0, 1e-15);
  EXPECT_EQ(contacts[0].feature, 1);  // the triangle (0, 2, 3) that holds it: y > x
}

// The tet edge (0, 1) runs along x at y = 0.2, 3 mm above the ridge, crossing it at a quarter of
// its length: one edge-edge contact, normal +z, gap 3 mm, weights (0.75, 0.25) on vertices 0, 1.
// (The vertices are 7 cm and 21 cm from the slopes, outside the proximity.)
TEST(MeshContactTest, EdgeCrossingObstacleEdgeGetsEdgeEdgeContactWithWeights) {
  const TetMesh body = SingleTet(Vec3(-0.1, 0.2, 0.003), Vec3(0.3, 0.2, 0.003),
                                 Vec3(-0.1, 0.5, 0.5), Vec3(-0.1, 0.2, 0.6));
  const std::vector<VertexContact> contacts = Detect(body, Roof());
  ASSERT_EQ(contacts.size(), 1u);
  const VertexContact& c = contacts[0];
  EXPECT_EQ(c.kind, ContactKind::kEdgeEdge);
  EXPECT_EQ(c.vertex, 0);
  EXPECT_EQ(c.extra_vertices[0], 1);
  EXPECT_NEAR(c.weight, 0.75, 1e-12);
  EXPECT_NEAR(c.extra_weights[0], 0.25, 1e-12);
  EXPECT_NEAR((c.normal - Vec3::UnitZ()).norm(), 0.0, 1e-12);
  EXPECT_NEAR(c.normal.dot(ContactPoint(c, body.vertices())) - c.offset_m, 0.003, 1e-12);
  // H: the normal row spreads 0.75 n over vertex 0 and 0.25 n over vertex 1.
  const CsrMatrix h = BuildContactJacobian(contacts, 4);
  ASSERT_EQ(h.row_offsets[1], 6);
  EXPECT_EQ(h.col_indices[2], 2);
  EXPECT_NEAR(h.values[2], 0.75, 1e-12);
  EXPECT_EQ(h.col_indices[5], 5);
  EXPECT_NEAR(h.values[5], 0.25, 1e-12);
}

// The tet's bottom face lies 4 mm above the pyramid's apex, which projects to the face's
// centroid: one triangle-vertex contact, normal +z (minus the face's outward normal: the body is
// pushed up, away from the apex), weights 1/3 each.
TEST(MeshContactTest, ObstacleApexUnderBodyFaceGetsTriangleVertexContact) {
  const double z = 0.004;
  const TetMesh body =
      SingleTet(Vec3(-0.1, -0.1, z), Vec3(0.2, -0.1, z), Vec3(-0.1, 0.2, z), Vec3(0.0, 0.0, 0.5));
  const std::vector<VertexContact> contacts = Detect(body, Pyramid());
  ASSERT_EQ(contacts.size(), 1u);
  const VertexContact& c = contacts[0];
  EXPECT_EQ(c.kind, ContactKind::kTriangleVertex);
  EXPECT_EQ(c.feature, 0);
  EXPECT_NEAR((c.normal - Vec3::UnitZ()).norm(), 0.0, 1e-12);
  EXPECT_NEAR(c.weight, 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(c.extra_weights[0], 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(c.extra_weights[1], 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(c.normal.dot(ContactPoint(c, body.vertices())) - c.offset_m, z, 1e-12);
}

// A kinematic floor moving at v: detection uses its position at the step start, the
// non-penetration row its position at the step end (offset + h n . v).
TEST(MeshContactTest, KinematicObstacleIsDetectedWhereItIsAndConstrainsWhereItGoes) {
  TriangleMeshObstacle floor = Floor();
  floor.velocity_mps = Vec3(0.0, 0.0, 0.1);
  // After 0.05 s the floor is at z = 0.005: the vertex at 0.012 is 7 mm above it.
  const TetMesh body = SingleTet(Vec3(0.2, 0.2, 0.012), Vec3(0.5, 0.2, 0.5), Vec3(0.2, 0.5, 0.5),
                                 Vec3(0.2, 0.2, 0.8));
  EXPECT_TRUE(Detect(body, floor, 0.0).empty());  // 12 mm: outside the proximity
  const std::vector<VertexContact> contacts = Detect(body, floor, 0.05);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_NEAR(contacts[0].offset_m, 0.005 + 0.01 * 0.1, 1e-15);  // h = 0.01 s
  EXPECT_NEAR((contacts[0].obstacle_velocity_mps - floor.velocity_mps).norm(), 0.0, 0.0);
}

// A floor hinged at its edge x = -1 (centre c = (-1, 0, 0)), turning about -y at 0.5 rad/s and
// moving along +x at 0.1 m/s. At t = 0.2 s it is tilted by th = 0.1 rad about -y around
// c(t) = (-0.98, 0, 0): normal n = (-sin th, 0, cos th), and its point from (0.2, 0.2, 0) is
// q = c(t) + (1.2 cos th, 0.2, 1.2 sin th). A vertex 4 mm above q along n gets one contact with
// that normal; q moves at u = v + w x (q - c(t)) = (0.1 - 0.6 sin th, 0, 0.6 cos th) (0.6 m/s
// along n from the turn), so the row holds against q + h u: offset n . q + h n . u with
// n . q = n . c(t) = 0.98 sin th, n . u = 0.6 - 0.1 sin th; the vertex, left where it is, would be
// 4 - 6 + 0.1 sin th mm from the floor at the step end. The same detector at t = 0 (floor flat,
// the vertex 0.12 m above it) finds nothing: the trees follow the turn.
TEST(MeshContactTest, RotatingObstacleIsPosedAtTheStepStartAndConstrainsWhereItsPointGoes) {
  TriangleMeshObstacle floor = Floor();
  floor.angular_velocity_radps = Vec3(0.0, -0.5, 0.0);
  floor.rotation_center_m = Vec3(-1.0, 0.0, 0.0);
  floor.velocity_mps = Vec3(0.1, 0.0, 0.0);
  const double t = 0.2, h = 0.01, th = 0.1;
  const Vec3 n(-std::sin(th), 0.0, std::cos(th));
  const Vec3 centre(-0.98, 0.0, 0.0);
  const Vec3 q = centre + Vec3(1.2 * std::cos(th), 0.2, 1.2 * std::sin(th));
  const Vec3 p = q + 0.004 * n;
  const TetMesh body =
      SingleTet(p, p + Vec3(0.3, 0.0, 0.5), p + Vec3(0.0, 0.3, 0.5), p + Vec3(0.0, 0.0, 0.8));
  auto detector = MeshContactDetector::Create(body.surface(), {floor});
  ASSERT_TRUE(detector.ok()) << detector.status();
  const std::vector<int32_t> free_index = {0, 1, 2, 3};
  std::vector<VertexContact> contacts;
  ASSERT_TRUE((*detector)->Detect(body.vertices(), free_index, kProximity, 0.0, h, &contacts).ok());
  EXPECT_TRUE(contacts.empty());
  ASSERT_TRUE((*detector)->Detect(body.vertices(), free_index, kProximity, t, h, &contacts).ok());
  ASSERT_EQ(contacts.size(), 1u);
  const VertexContact& c = contacts[0];
  EXPECT_EQ(c.kind, ContactKind::kVertexTriangle);
  EXPECT_EQ(c.vertex, 0);
  EXPECT_NEAR((c.normal - n).norm(), 0.0, 1e-12);
  const Vec3 u(0.1 - 0.6 * std::sin(th), 0.0, 0.6 * std::cos(th));
  EXPECT_NEAR((c.obstacle_velocity_mps - u).norm(), 0.0, 1e-12);
  EXPECT_NEAR(c.offset_m, 0.98 * std::sin(th) + h * (0.6 - 0.1 * std::sin(th)), 1e-12);
  EXPECT_NEAR(c.normal.dot(p) - c.offset_m, 0.004 - 0.006 + 0.001 * std::sin(th), 1e-12);
  // The posed vertices: the floor's corner (1, 1, 0) at c(t) + (2 cos th, 1, 2 sin th).
  const Points3 posed = ObstacleVerticesAt(floor, t);
  EXPECT_NEAR(
      (posed.row(2).transpose() - (centre + Vec3(2 * std::cos(th), 1.0, 2 * std::sin(th)))).norm(),
      0.0, 1e-12);
}

// Open bodies (cloth) and two-sided (codimensional) obstacles: normals oriented by the side.

// A knife blade: the quad x = 0, y in [-1, 1], z in [-1, 0] (top edge z = 0), wound so its face
// normal is +x, two-sided.
TriangleMeshObstacle Blade(double thickness_m = 0.0) {
  TriangleMeshObstacle blade;
  blade.vertices_m.resize(4, 3);
  blade.vertices_m << 0, -1, -1, 0, 1, -1, 0, 1, 0, 0, -1, 0;
  blade.faces.resize(2, 3);
  blade.faces << 0, 1, 2, 0, 2, 3;  // (0, 2, 0) x (0, 2, 1) = (+4, 0, 0): normal +x
  blade.two_sided = true;
  blade.thickness_m = thickness_m;
  return blade;
}

TriangleMesh OpenSheet(const Points3& x, const IndexTriples& faces) {
  return TriangleMesh::Create(x, faces).value();
}

std::vector<VertexContact> DetectOpen(const TriangleMesh& body,
                                      const TriangleMeshObstacle& obstacle) {
  auto detector = MeshContactDetector::Create(body, {obstacle}, BodySurfaceKind::kOpenTwoSided);
  EXPECT_TRUE(detector.ok()) << detector.status();
  std::vector<VertexContact> contacts;
  std::vector<int32_t> free_index(body.num_vertices());
  for (int v = 0; v < body.num_vertices(); ++v) free_index[v] = v;
  const absl::Status s =
      (*detector)->Detect(body.vertices(), free_index, kProximity, 0.0, 0.01, &contacts);
  EXPECT_TRUE(s.ok()) << s;
  return contacts;
}

// A single cloth triangle far from everything but vertex 0: the other two 0.5 m further along
// `away` (and 0.2 m apart in y).
TriangleMesh TriangleAt(const Vec3& a, const Vec3& away) {
  Points3 x(3, 3);
  x.row(0) = a.transpose();
  x.row(1) = (a + 0.5 * away + Vec3(0.0, 0.1, 0.0)).transpose();
  x.row(2) = (a + 0.5 * away - Vec3(0.0, 0.1, 0.0)).transpose();
  IndexTriples f(1, 3);
  f << 0, 1, 2;
  return OpenSheet(x, f);
}

// A vertex 4 mm in FRONT of the blade (x = +0.004) gets +x, one 4 mm BEHIND it (x = -0.004)
// gets -x, both with gap 4 mm (3 mm with a 2 mm blade: the offset holds half of it). The
// one-sided rule gave the back vertex +x and gap -4 mm, pushing it through the blade.
TEST(MeshContactTest, TwoSidedBladeNormalPointsToTheSideOfTheVertex) {
  for (double side : {1.0, -1.0}) {
    for (double thickness : {0.0, 0.002}) {
      const TriangleMesh body = TriangleAt(Vec3(0.004 * side, 0.2, -0.5), Vec3(side, 0, 0));
      const std::vector<VertexContact> contacts = DetectOpen(body, Blade(thickness));
      ASSERT_EQ(contacts.size(), 1u) << side << " " << thickness;
      const VertexContact& c = contacts[0];
      EXPECT_EQ(c.kind, ContactKind::kVertexTriangle);
      EXPECT_NEAR((c.normal - Vec3(side, 0.0, 0.0)).norm(), 0.0, 1e-15);
      EXPECT_NEAR(c.normal.dot(ContactPoint(c, body.vertices())) - c.offset_m,
                  0.004 - 0.5 * thickness, 1e-15);
    }
  }
}

// A cloth edge along x crossing 3 mm above the blade's top edge (a boundary edge, sharp on both
// sides): edge-edge contact, normal +z whatever the cross product's sign, gap 3 mm, weights from
// where it crosses (x = 0 at a quarter of the edge).
TEST(MeshContactTest, EdgeOverTwoSidedBladeTopGetsNormalTowardsTheEdge) {
  Points3 x(3, 3);
  x << -0.001, 0.2, 0.003, 0.003, 0.2, 0.003, -0.001, 0.7, 0.5;
  // Vertex 0 and 1 are 1 mm and 3 mm beside the plane but over the top edge: their own
  // (vertex-edge) contacts come out too; the edge contact is the one checked.
  x.row(0) << -0.1, 0.2, 0.003;
  x.row(1) << 0.3, 0.2, 0.003;
  IndexTriples f(1, 3);
  f << 0, 1, 2;
  for (bool flip : {false, true}) {
    TriangleMeshObstacle blade = Blade();
    if (flip) blade.faces << 0, 2, 1, 0, 3, 2;  // the other winding: same answer
    const TriangleMesh body = OpenSheet(x, f);
    const std::vector<VertexContact> contacts = DetectOpen(body, blade);
    int edges = 0;
    for (const VertexContact& c : contacts) {
      if (c.kind != ContactKind::kEdgeEdge) continue;
      ++edges;
      EXPECT_NEAR((c.normal - Vec3::UnitZ()).norm(), 0.0, 1e-12) << flip;
      EXPECT_NEAR(c.weight, 0.75, 1e-12);
      EXPECT_NEAR(c.normal.dot(ContactPoint(c, body.vertices())) - c.offset_m, 0.003, 1e-12);
    }
    EXPECT_EQ(edges, 1) << flip;
  }
}

// The blade's top corner (0, 1, 0) is a feature (a boundary vertex of a flat quad) and lies
// under a cloth triangle 4 mm above it. The triangle is wound with normal +z, so the
// closed-body rule (minus the outward normal) gave -z: pulling the cloth onto the corner. The
// open-body rule takes the corner's side: n = +z, gap 4 mm, barycentric weights 1/3 each.
TEST(MeshContactTest, OpenBodyTriangleOverBladeCornerIsPushedAwayFromIt) {
  const double z = 0.004;
  Points3 x(3, 3);
  x << -0.1, 0.9, z, 0.2, 0.9, z, -0.1, 1.2, z;  // centroid (0, 1, z); normal +z
  IndexTriples f(1, 3);
  f << 0, 1, 2;
  const TriangleMesh body = OpenSheet(x, f);
  const std::vector<VertexContact> contacts = DetectOpen(body, Blade());
  int corner = 0;
  for (const VertexContact& c : contacts) {
    if (c.kind != ContactKind::kTriangleVertex) continue;
    ++corner;
    EXPECT_NEAR((c.normal - Vec3::UnitZ()).norm(), 0.0, 1e-12);
    EXPECT_NEAR(c.weight, 1.0 / 3.0, 1e-12);
    EXPECT_NEAR(c.normal.dot(ContactPoint(c, body.vertices())) - c.offset_m, z, 1e-12);
  }
  EXPECT_EQ(corner, 1);
}

// Against a CLOSED obstacle the corner's outward side decides: the pyramid apex (outward +z)
// under a cloth triangle wound +z (n = +z, gap 4 mm) and the apex 2 mm THROUGH a triangle
// wound -z (n = +z still, gap -2 mm: pushed back out; the side rule would hold it through).
TEST(MeshContactTest, OpenBodyTriangleOverClosedApexIsPushedOutward) {
  for (const auto& [z, wound_up] : {std::pair{0.004, true}, std::pair{-0.002, false}}) {
    Points3 x(3, 3);
    x << -0.1, -0.1, z, 0.2, -0.1, z, -0.1, 0.2, z;  // centroid (0, 0, z), normal +z
    IndexTriples f(1, 3);
    if (wound_up) {
      f << 0, 1, 2;
    } else {
      f << 0, 2, 1;
    }
    const TriangleMesh body = OpenSheet(x, f);
    const std::vector<VertexContact> contacts = DetectOpen(body, Pyramid());
    int apex = 0;
    for (const VertexContact& c : contacts) {
      if (c.kind != ContactKind::kTriangleVertex) continue;
      ++apex;
      EXPECT_NEAR((c.normal - Vec3::UnitZ()).norm(), 0.0, 1e-12) << z;
      EXPECT_NEAR(c.normal.dot(ContactPoint(c, body.vertices())) - c.offset_m, z, 1e-12);
    }
    EXPECT_EQ(apex, 1) << z;
  }
}

// The apex 3 mm beside a cloth triangle's edge (y = 0.003) and 4 mm below it: closest to the
// inside of the edge (its midpoint), so a vertex-edge contact on the edge's two vertices, weights
// (1/2, 1/2), normal from the apex to the edge point (0, 0.6, 0.8), gap 5 mm.
TEST(MeshContactTest, OpenBodyEdgeBesideApexGetsVertexEdgeContact) {
  Points3 x(3, 3);
  x << -0.1, 0.003, 0.004, 0.1, 0.003, 0.004, 0.0, 0.3, 0.004;
  IndexTriples f(1, 3);
  f << 0, 1, 2;
  const TriangleMesh body = OpenSheet(x, f);
  const std::vector<VertexContact> contacts = DetectOpen(body, Pyramid());
  int edge = 0;
  for (const VertexContact& c : contacts) {
    if (c.kind != ContactKind::kTriangleVertex) continue;
    ++edge;
    EXPECT_EQ(c.vertex, 0);
    EXPECT_EQ(c.extra_vertices[0], 1);
    EXPECT_EQ(c.extra_vertices[1], -1);
    EXPECT_NEAR(c.weight, 0.5, 1e-12);
    EXPECT_NEAR(c.extra_weights[0], 0.5, 1e-12);
    EXPECT_NEAR((c.normal - Vec3(0.0, 0.6, 0.8)).norm(), 0.0, 1e-12);
    EXPECT_NEAR(c.normal.dot(ContactPoint(c, body.vertices())) - c.offset_m, 0.005, 1e-12);
  }
  EXPECT_EQ(edge, 1);
}

TEST(MeshContactTest, RejectsBadObstaclesNamingTheField) {
  const TetMesh body = SingleTet(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1));
  TriangleMeshObstacle bad = Floor();
  bad.friction_coefficient = -0.1;
  auto status = MeshContactDetector::Create(body.surface(), {Floor(), bad}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message().rfind("mesh_obstacles[1].friction_coefficient", 0), 0u) << status;
  bad = Floor();
  bad.angular_velocity_radps.y() = std::nan("");
  status = MeshContactDetector::Create(body.surface(), {Floor(), bad}).status();
  EXPECT_EQ(status.message().rfind("mesh_obstacles[1].angular_velocity_radps: ", 0), 0u) << status;
  bad = Floor();
  bad.rotation_center_m.x() = INFINITY;
  status = MeshContactDetector::Create(body.surface(), {bad}).status();
  EXPECT_EQ(status.message().rfind("mesh_obstacles[0].rotation_center_m: ", 0), 0u) << status;
  bad = Floor();
  bad.faces(1, 2) = 9;
  status = MeshContactDetector::Create(body.surface(), {bad}).status();
  EXPECT_EQ(status.message().rfind("mesh_obstacles[0]: ", 0), 0u) << status;
  TriangleMeshObstacle thick = Floor();
  thick.thickness_m = 0.002;  // only for two-sided obstacles
  status = MeshContactDetector::Create(body.surface(), {thick}).status();
  EXPECT_EQ(status.message().rfind("mesh_obstacles[0].thickness_m", 0), 0u) << status;
  // Through the solver the message names the option.
  const Material material = MakeMaterial(MaterialModel::kArap, {1e6, 0.3, 1000.0}).value();
  LocalGlobalOptions options;
  options.mesh_obstacles = {bad};
  status = LocalGlobalSolver::Create(body, material, 0.01, options, std::make_shared<CpuBackend>())
               .status();
  EXPECT_EQ(status.message().rfind("options.mesh_obstacles[0]: ", 0), 0u) << status;
  options.mesh_obstacles = {Floor()};
  options.global_step = GlobalStepKind::kCompleteSolve;
  status = LocalGlobalSolver::Create(body, material, 0.01, options, std::make_shared<CpuBackend>())
               .status();
  EXPECT_EQ(status.message().rfind("options.mesh_obstacles: contact needs", 0), 0u) << status;
}

}  // namespace
}  // namespace contactsim::core
