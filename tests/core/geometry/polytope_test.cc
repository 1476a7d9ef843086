// ConvexPolytope: the feature conventions of the PEG paper (edges, tangents, orientation, fans)
// checked against the face loops directly; hulls with Qhull against known hulls; primitives'
// counts and edge lengths against the closed forms; refusals naming the element.
#include "core/geometry/polytope.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <set>
#include <vector>

#include "core/geometry/generators.h"
#include "core/geometry/polytope_hull.h"
#include "core/geometry/polytope_primitives.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

using ::testing::HasSubstr;

constexpr double kPhi = std::numbers::phi;

// Axis-aligned cube [-1, 1]^3 by explicit counter-clockwise quads.
Points3 CubeCorners() {
  Points3 x(8, 3);
  for (int i = 0; i < 8; ++i) x.row(i) << (i & 1 ? 1 : -1), (i & 2 ? 1 : -1), (i & 4 ? 1 : -1);
  return x;
}
std::vector<std::vector<int32_t>> CubeFaces() {
  // Each loop is counter-clockwise seen from outside (checked by the normals below).
  return {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
}

// Position of (a -> b) in a loop, or -1.
int FindDirected(absl::Span<const int32_t> loop, int32_t a, int32_t b) {
  for (size_t k = 0; k < loop.size(); ++k) {
    if (loop[k] == a && loop[(k + 1) % loop.size()] == b) return static_cast<int>(k);
  }
  return -1;
}

Vec3 FaceCentroid(const ConvexPolytope& p, int f) {
  Vec3 c = Vec3::Zero();
  for (int32_t v : p.face_vertices(f)) c += p.vertex(v);
  return c / static_cast<double>(p.face_vertices(f).size());
}

// The paper's conventions (polytope.h), for every edge, face and vertex of a polytope.
void ExpectConventions(const ConvexPolytope& p) {
  // Rounding only: unit vectors and exact-coordinate polytopes.
  constexpr double kTol = 1e-12;
  for (int f = 0; f < p.num_faces(); ++f) {
    const Vec3 n = p.face_normal(f);
    EXPECT_NEAR(n.norm(), 1.0, kTol);
    // Outward: every vertex is behind the plane, and the body's vertex mean strictly behind.
    for (int v = 0; v < p.num_vertices(); ++v) {
      EXPECT_LE(n.dot(p.vertex(v)) - p.face_offset_m(f), kTol);
    }
    EXPECT_LT(n.dot(p.vertex_mean_m()) - p.face_offset_m(f), 0.0);
    // Counter-clockwise from outside: the loop's vector area points along n.
    const auto loop = p.face_vertices(f);
    Vec3 area = Vec3::Zero();
    for (size_t k = 0; k < loop.size(); ++k) {
      area += p.vertex(loop[k]).cross(p.vertex(loop[(k + 1) % loop.size()]));
    }
    EXPECT_GT(area.dot(n), 0.0);
    for (size_t k = 0; k < loop.size(); ++k) {
      const PolytopeEdge& e = p.edge(p.face_edges(f)[k]);
      const std::set<int32_t> ends = {e.tail, e.head};
      EXPECT_EQ(ends, (std::set<int32_t>{loop[k], loop[(k + 1) % loop.size()]}));
    }
  }
  for (int e = 0; e < p.num_edges(); ++e) {
    const PolytopeEdge& edge = p.edge(e);
    EXPECT_GE(FindDirected(p.face_vertices(edge.face1), edge.tail, edge.head), 0) << "edge " << e;
    EXPECT_GE(FindDirected(p.face_vertices(edge.face2), edge.head, edge.tail), 0) << "edge " << e;
    const Vec3 mid = 0.5 * (p.vertex(edge.tail) + p.vertex(edge.head));
    const Vec3 dir = p.EdgeVector(e).normalized();
    const Vec3 t1 = p.EdgeTangent1(e), t2 = p.EdgeTangent2(e);
    // Unit, perpendicular to e, in the face plane, pointing into the face.
    EXPECT_NEAR(t1.norm(), 1.0, kTol);
    EXPECT_NEAR(t1.dot(dir), 0.0, kTol);
    EXPECT_NEAR(t1.dot(p.face_normal(edge.face1)), 0.0, kTol);
    EXPECT_GT(t1.dot(FaceCentroid(p, edge.face1) - mid), 0.0);
    EXPECT_NEAR(t2.dot(dir), 0.0, kTol);
    EXPECT_NEAR(t2.dot(p.face_normal(edge.face2)), 0.0, kTol);
    EXPECT_GT(t2.dot(FaceCentroid(p, edge.face2) - mid), 0.0);
    // O_e: perpendicular to e and to the outward bisector, towards f1's side.
    const Vec3 o = p.EdgeOrientation(e);
    EXPECT_NEAR(o.dot(dir), 0.0, kTol);
    EXPECT_NEAR(o.dot(p.face_normal(edge.face1) + p.face_normal(edge.face2)), 0.0, kTol);
    EXPECT_GT(o.dot(FaceCentroid(p, edge.face1) - mid), o.dot(FaceCentroid(p, edge.face2) - mid));
  }
  for (int v = 0; v < p.num_vertices(); ++v) {
    const auto faces = p.vertex_faces(v);
    const auto edges = p.vertex_edges(v);
    const auto neighbors = p.vertex_neighbors(v);
    ASSERT_EQ(faces.size(), edges.size());
    ASSERT_EQ(faces.size(), neighbors.size());
    for (size_t k = 0; k < faces.size(); ++k) {
      // Edge k joins v and neighbour k, and separates face k from face k + 1.
      const PolytopeEdge& e = p.edge(edges[k]);
      EXPECT_EQ((std::set<int32_t>{e.tail, e.head}), (std::set<int32_t>{v, neighbors[k]}));
      EXPECT_EQ((std::set<int32_t>{e.face1, e.face2}),
                (std::set<int32_t>{faces[k], faces[(k + 1) % faces.size()]}));
      EXPECT_GE(FindDirected(p.face_vertices(faces[k]), v, neighbors[k]), 0);
    }
  }
}

TEST(PolytopeTest, CubeFromFacesHasThePapersConventions) {
  auto cube = ConvexPolytope::Create(CubeCorners(), CubeFaces());
  ASSERT_TRUE(cube.ok()) << cube.status();
  EXPECT_EQ(cube->num_vertices(), 8);
  EXPECT_EQ(cube->num_edges(), 12);
  EXPECT_EQ(cube->num_faces(), 6);
  ExpectConventions(*cube);
  // Face 0 lies at z = -1 with outward normal -z.
  EXPECT_EQ(cube->face_normal(0), Vec3(0, 0, -1));
  EXPECT_EQ(cube->face_offset_m(0), 1.0);
  EXPECT_NEAR(cube->bounding_radius_m(), std::sqrt(3.0), 1e-15);
}

TEST(PolytopeTest, OrientationOfATopEdgeMatchesTheWorkedExample) {
  // The cube's edge between the top (+z) and the front (+y) faces: O_e lies in the plane
  // perpendicular to the edge, perpendicular to the bisector (0, 1, 1): +-(0, -1, 1), and points
  // to f1's side. Worked by hand from O_e = e x (-(eta1 + eta2)).
  auto cube = ConvexPolytope::Create(CubeCorners(), CubeFaces());
  ASSERT_TRUE(cube.ok());
  for (int e = 0; e < cube->num_edges(); ++e) {
    const PolytopeEdge& edge = cube->edge(e);
    const Vec3 n1 = cube->face_normal(edge.face1), n2 = cube->face_normal(edge.face2);
    if (!((n1 == Vec3::UnitZ() && n2 == Vec3::UnitY()) ||
          (n1 == Vec3::UnitY() && n2 == Vec3::UnitZ()))) {
      continue;
    }
    // |e| = 2, |eta1 + eta2| = sqrt 2: |O_e| = 2 sqrt 2.
    const Vec3 expected = n1 == Vec3::UnitZ() ? Vec3(0, -2, 2) : Vec3(0, 2, -2);
    EXPECT_TRUE(cube->EdgeOrientation(e).isApprox(expected, 1e-15)) << cube->EdgeOrientation(e);
    return;
  }
  FAIL() << "no top-front edge";
}

TEST(PolytopeTest, TransformedMovesVerticesAndPlanesTogether) {
  auto cube = ConvexPolytope::Create(CubeCorners(), CubeFaces());
  ASSERT_TRUE(cube.ok());
  const Mat3 R = Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()).toRotationMatrix();
  const Vec3 p(0.3, -2.0, 5.0);
  const ConvexPolytope moved = cube->Transformed(R, p);
  ExpectConventions(moved);
  for (int f = 0; f < moved.num_faces(); ++f) {
    for (int32_t v : moved.face_vertices(f)) {
      EXPECT_NEAR(moved.face_normal(f).dot(moved.vertex(v)), moved.face_offset_m(f), 1e-14);
    }
  }
  EXPECT_TRUE(moved.vertex_mean_m().isApprox(p, 1e-15));
}

TEST(PolytopeTest, HullOfCubeCornersWithInteriorFaceAndEdgePointsIsTheCube) {
  Points3 points(8 + 30 + 6 + 12, 3);
  points.topRows(8) = CubeCorners();
  // Interior points (a fixed pseudo-random pattern), face centres and edge midpoints: none is a
  // corner of the hull.
  for (int i = 0; i < 30; ++i) {
    points.row(8 + i) << std::sin(1.7 * i) * 0.9, std::cos(2.3 * i) * 0.9,
        std::sin(0.9 * i + 1) * 0.9;
  }
  for (int k = 0; k < 3; ++k) {
    points.row(38 + 2 * k) = Vec3::Unit(k).transpose();
    points.row(39 + 2 * k) = -Vec3::Unit(k).transpose();
  }
  int row = 44;
  for (int axis = 0; axis < 3; ++axis) {
    for (double a : {-1.0, 1.0}) {
      for (double b : {-1.0, 1.0}) {
        Vec3 x = Vec3::Zero();
        x[(axis + 1) % 3] = a;
        x[(axis + 2) % 3] = b;
        points.row(row++) = x.transpose();
      }
    }
  }
  auto hull = ConvexHull(points);
  ASSERT_TRUE(hull.ok()) << hull.status();
  EXPECT_EQ(hull->num_vertices(), 8);
  EXPECT_EQ(hull->num_edges(), 12);
  ASSERT_EQ(hull->num_faces(), 6);
  ExpectConventions(*hull);
  std::set<std::vector<double>> normals;
  for (int f = 0; f < 6; ++f) {
    EXPECT_EQ(hull->face_vertices(f).size(), 4u);  // coplanar triangles merged into squares
    EXPECT_NEAR(hull->face_offset_m(f), 1.0, 1e-15);
    const Vec3 n = hull->face_normal(f);
    normals.insert({std::round(n.x()), std::round(n.y()), std::round(n.z())});
    EXPECT_NEAR(n.cwiseAbs().maxCoeff(), 1.0, 1e-15);
  }
  EXPECT_EQ(normals.size(), 6u);
  for (int v = 0; v < 8; ++v) EXPECT_EQ(hull->vertex(v).cwiseAbs(), Vec3::Ones());
}

TEST(PolytopeTest, HullOfAClosedNonConvexMeshIsItsHull) {
  // A torus's hull: every vertex on the outer rim equator band, none from the hole.
  auto torus = MakeTorus(1.0, 0.25, 24, 8);
  ASSERT_TRUE(torus.ok()) << torus.status();
  auto hull = ConvexHullOfMesh(*torus);
  ASSERT_TRUE(hull.ok()) << hull.status();
  ExpectConventions(*hull);
  for (int v = 0; v < hull->num_vertices(); ++v) {
    const Vec3 x = hull->vertex(v);
    EXPECT_GT(std::hypot(x.x(), x.y()), 1.0 - 1e-12);  // outside the tube's centre circle
  }
}

struct PlatonicCase {
  RegularPolyhedron kind;
  int vertices, edges, faces, face_size;
  double edge_over_radius;  // a / R, closed form
};

class PlatonicTest : public ::testing::TestWithParam<PlatonicCase> {};

TEST_P(PlatonicTest, CountsAndEdgeLengthsMatchClosedForms) {
  const PlatonicCase c = GetParam();
  const double radius = 0.7;
  auto p = MakeRegularPolyhedron(c.kind, radius);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->num_vertices(), c.vertices);
  EXPECT_EQ(p->num_edges(), c.edges);
  EXPECT_EQ(p->num_faces(), c.faces);
  ExpectConventions(*p);
  for (int f = 0; f < p->num_faces(); ++f) EXPECT_EQ(p->face_vertices(f).size(), c.face_size);
  for (int e = 0; e < p->num_edges(); ++e) {
    EXPECT_NEAR(p->EdgeVector(e).norm(), c.edge_over_radius * radius, 1e-14);
  }
  for (int v = 0; v < p->num_vertices(); ++v) EXPECT_NEAR(p->vertex(v).norm(), radius, 1e-14);
}

INSTANTIATE_TEST_SUITE_P(
    Platonic, PlatonicTest,
    ::testing::Values(PlatonicCase{RegularPolyhedron::kTetrahedron, 4, 6, 4, 3,
                                   std::sqrt(8.0 / 3.0)},
                      PlatonicCase{RegularPolyhedron::kCube, 8, 12, 6, 4, 2.0 / std::sqrt(3.0)},
                      PlatonicCase{RegularPolyhedron::kOctahedron, 6, 12, 8, 3, std::sqrt(2.0)},
                      PlatonicCase{RegularPolyhedron::kIcosahedron, 12, 30, 20, 3,
                                   2.0 / std::sqrt(1.0 + kPhi * kPhi)},
                      PlatonicCase{RegularPolyhedron::kDodecahedron, 20, 30, 12, 5,
                                   2.0 / (kPhi * std::sqrt(3.0))}));

TEST(PolytopeTest, PrismOverAHeptagon) {
  auto prism = MakePrismPolytope(7, 0.5, 0.2);
  ASSERT_TRUE(prism.ok()) << prism.status();
  EXPECT_EQ(prism->num_vertices(), 14);
  EXPECT_EQ(prism->num_edges(), 21);
  EXPECT_EQ(prism->num_faces(), 9);
  ExpectConventions(*prism);
}

TEST(PolytopeTest, HullRefusesDegenerateInput) {
  const auto message = [](const Points3& points) {
    return std::string(ConvexHull(points).status().message());
  };
  EXPECT_THAT(message(CubeCorners().topRows(3)), HasSubstr("points: 3 given"));
  Points3 nan_points = CubeCorners();
  nan_points(5, 2) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(message(nan_points), HasSubstr("points[5]: coordinate z is nan"));
  Points3 flat(6, 3);
  flat << 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0.5, 0.2, 0, 0.3, 0.9, 0;
  // Tilted so that no coordinate is exactly constant.
  flat = flat * Eigen::AngleAxisd(0.4, Vec3(1, 1, 0).normalized()).toRotationMatrix().transpose();
  EXPECT_THAT(message(flat), HasSubstr("lie in one plane"));
  Points3 line(5, 3);
  for (int i = 0; i < 5; ++i) line.row(i) = (i * Vec3(1, 2, 3)).transpose();
  EXPECT_THAT(message(line), HasSubstr("lie on one line"));
  EXPECT_THAT(message(Points3::Ones(5, 3)), HasSubstr("coincide"));
  EXPECT_EQ(ConvexHull(flat).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(PolytopeTest, CreateRefusesBadTopologyAndNamesTheElement) {
  const auto message = [](Points3 x, std::vector<std::vector<int32_t>> faces) {
    return std::string(ConvexPolytope::Create(std::move(x), std::move(faces)).status().message());
  };
  auto faces = CubeFaces();
  // Open: the top face removed.
  auto open = faces;
  open.erase(open.begin() + 1);
  EXPECT_THAT(message(CubeCorners(), open), HasSubstr("(the surface is not closed)"));
  // One face flipped.
  auto flipped = faces;
  std::reverse(flipped[3].begin(), flipped[3].end());
  EXPECT_THAT(message(CubeCorners(), flipped), HasSubstr("(inconsistent orientation)"));
  // All faces flipped: closed and consistent, but inside out.
  auto inside_out = faces;
  for (auto& loop : inside_out) std::reverse(loop.begin(), loop.end());
  EXPECT_THAT(message(CubeCorners(), inside_out), HasSubstr("in front of the face plane"));
  // Index out of range, repeated index.
  auto bad_index = faces;
  bad_index[2][1] = 8;
  EXPECT_THAT(message(CubeCorners(), bad_index), HasSubstr("faces[2]: index 8 out of range"));
  auto repeated = faces;
  repeated[4][2] = 0;
  EXPECT_THAT(message(CubeCorners(), repeated), HasSubstr("faces[4]: vertex 0 appears twice"));
  // A non-planar face: one corner lifted off the top face.
  Points3 warped = CubeCorners();
  warped(7, 2) = 1.1;
  EXPECT_THAT(message(warped, faces), HasSubstr("off the face plane"));
  // The top face split into two coplanar triangles.
  auto split = faces;
  split[1] = {4, 5, 7};
  split.push_back({4, 7, 6});
  EXPECT_THAT(message(CubeCorners(), split), HasSubstr("are coplanar; merge them"));
  // A dent: the top centre pushed in makes a non-convex pyramid roof.
  Points3 dented(9, 3);
  dented.topRows(8) = CubeCorners();
  dented.row(8) << 0, 0, 0.5;
  auto roof = faces;
  roof.erase(roof.begin() + 1);
  for (auto tri : std::vector<std::vector<int32_t>>{{4, 5, 8}, {5, 7, 8}, {7, 6, 8}, {6, 4, 8}}) {
    roof.push_back(tri);
  }
  EXPECT_THAT(message(dented, roof), HasSubstr("in front of the face plane (not convex"));
  // Unused vertex, NaN.
  Points3 extra(9, 3);
  extra.topRows(8) = CubeCorners();
  extra.row(8) << 5, 5, 5;
  EXPECT_THAT(message(extra, faces), HasSubstr("vertices[8]: on no face"));
  Points3 nan_corner = CubeCorners();
  nan_corner(2, 1) = std::numeric_limits<double>::infinity();
  EXPECT_THAT(message(nan_corner, faces), HasSubstr("vertices[2]: coordinate y is inf"));
  PolytopeOptions small_limit;
  small_limit.max_vertices = 7;
  EXPECT_THAT(ConvexPolytope::Create(CubeCorners(), faces, small_limit).status().message(),
              HasSubstr("vertices: 8 exceed the limit of 7 for a polytope"));
}

TEST(PolytopeTest, PrimitivesRefuseBadParameters) {
  EXPECT_THAT(MakeBoxPolytope(Vec3(1, 0, 1)).status().message(), HasSubstr("half_extents_m[1]"));
  EXPECT_THAT(MakePrismPolytope(2, 1, 1).status().message(), HasSubstr("sides"));
  EXPECT_THAT(MakePrismPolytope(5, 1, -1).status().message(), HasSubstr("height_m"));
  EXPECT_THAT(MakeRegularPolyhedron(RegularPolyhedron::kCube, std::nan("")).status().message(),
              HasSubstr("circumradius_m"));
}

}  // namespace
}  // namespace contactsim::core
