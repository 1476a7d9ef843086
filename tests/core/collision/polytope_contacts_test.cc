// Potential-contact identification between posed polytopes (core/collision/polytope), on
// hand-placed configurations whose candidate sets are worked out by hand in the comments.
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "core/collision/polytope/feature_tests.h"
#include "core/collision/polytope/posed_polytope.h"
#include "core/collision/polytope/potential_contacts.h"
#include "core/geometry/polytope_primitives.h"
#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

constexpr double kPi = std::numbers::pi;
// Positions here are sums of a few exactly representable numbers and rotations by 45 degrees:
// 1e-12 m is rounding with a wide margin, far below every distance the tests tell apart (mm).
constexpr double kTol = 1e-12;

Mat3 Rotation(double angle, const Vec3& axis) {
  return Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
}

ConvexPolytope Box(const Vec3& half) {
  auto box = MakeBoxPolytope(half);
  EXPECT_TRUE(box.ok()) << box.status();
  return *box;
}

std::vector<PotentialContact> Find(const PosedPolytope& a, const PosedPolytope& b,
                                   const PotentialContactOptions& options,
                                   PotentialContactStats* stats = nullptr) {
  std::vector<PotentialContact> out;
  FindPotentialContacts(a, b, options, &out, stats);
  for (const PotentialContact& c : out) {
    EXPECT_TRUE(c.normal_W.allFinite() && std::isfinite(c.gap_m) && c.point1_W.allFinite());
    EXPECT_NEAR(c.normal_W.norm(), 1.0, kTol);
  }
  return out;
}

int Count(const std::vector<PotentialContact>& contacts, PotentialContactKind kind, int body1) {
  return static_cast<int>(std::count_if(contacts.begin(), contacts.end(), [&](const auto& c) {
    return c.kind == kind && c.body1 == body1;
  }));
}

TEST(PotentialContactsTest, CubeOnCubeFaceToFace) {
  // Two unit cubes, the upper (A) resting exactly on the lower (B), corners on corners. Each
  // bottom corner of A touches B's top face (gap 0, APPL 0: its edges run up or along the face),
  // and each top corner of B touches A's bottom face: 4 vertex–face candidates each way, all at a
  // corner of the other face (vertex–vertex). Against the side faces the corners have APPL -1
  // (an edge runs straight into the side face's body), below the -0.2 threshold. The only
  // applicable edge pairs are A's bottom edges crossing B's top edges at right angles at the 4
  // corners, two per corner (APPL 0); parallel pairs (the 4 collinear bottom/top edges, the 4
  // vertical edges meeting end to end) have no common normal.
  const ConvexPolytope cube = Box(Vec3(0.5, 0.5, 0.5));
  const PosedPolytope a(cube, Mat3::Identity(), Vec3(0, 0, 1));
  const PosedPolytope b(cube, Mat3::Identity(), Vec3::Zero());
  PotentialContactStats stats;
  const auto contacts = Find(a, b, PotentialContactOptions{}, &stats);
  EXPECT_EQ(Count(contacts, PotentialContactKind::kVertexFace, 0), 4);
  EXPECT_EQ(Count(contacts, PotentialContactKind::kVertexFace, 1), 4);
  EXPECT_EQ(Count(contacts, PotentialContactKind::kEdgeEdge, 0), 8);
  EXPECT_EQ(stats.parallel_edge_pairs, 8);
  for (const PotentialContact& c : contacts) {
    EXPECT_NEAR(c.gap_m, 0.0, kTol);
    EXPECT_NEAR(c.applicability, 0.0, kTol);
    EXPECT_EQ(c.configuration, FeatureConfiguration::kVertexVertex);
    if (c.kind == PotentialContactKind::kVertexFace) {
      // From the vertex's body into the face's: down for A's corners, up for B's.
      EXPECT_TRUE(c.normal_W.isApprox(Vec3(0, 0, c.body1 == 0 ? -1.0 : 1.0), kTol));
      const PosedPolytope& face_body = c.body1 == 0 ? b : a;
      EXPECT_NEAR(std::abs(face_body.face_normal(c.feature2).z()), 1.0, kTol);
    } else {
      EXPECT_TRUE(c.normal_W.isApprox(-Vec3::UnitZ(), kTol)) << c.normal_W.transpose();
      EXPECT_GE(c.near_vertex1, 0);
      EXPECT_GE(c.near_vertex2, 0);
    }
  }
}

TEST(PotentialContactsTest, SmallCubeInsideALargeFaceGivesVertexFaceOnly) {
  // A 0.5 m cube centred on a 1 m cube's top face, 4 mm above: its four bottom corners are over
  // the face's interior, 0.25 m from every edge; no corner of B comes near A.
  const ConvexPolytope small = Box(Vec3(0.25, 0.25, 0.25));
  const ConvexPolytope large = Box(Vec3(0.5, 0.5, 0.5));
  const PosedPolytope a(small, Mat3::Identity(), Vec3(0, 0, 0.75 + 0.004));
  const PosedPolytope b(large, Mat3::Identity(), Vec3::Zero());
  const auto contacts = Find(a, b, PotentialContactOptions{});
  ASSERT_EQ(contacts.size(), 4u);
  for (const PotentialContact& c : contacts) {
    EXPECT_EQ(c.kind, PotentialContactKind::kVertexFace);
    EXPECT_EQ(c.configuration, FeatureConfiguration::kVertexFace);
    EXPECT_EQ(c.body1, 0);
    EXPECT_NEAR(c.gap_m, 0.004, kTol);
    EXPECT_NEAR(c.distance_m, 0.004, kTol);
    EXPECT_NEAR(c.point1_W.z(), 0.504, kTol);
  }
  // Beyond the feasibility distance, nothing.
  PotentialContactOptions tight;
  tight.max_gap_m = 0.003;
  EXPECT_TRUE(Find(a, b, tight).empty());
}

TEST(PotentialContactsTest, CrossedRidgesGiveOneEdgeEdgeCandidate) {
  // A: a bar along x turned 45 degrees about x, its lowest edge along x at z = g; B: a bar along
  // y turned 45 degrees about y, its top edge along y at z = 0. The edges cross above the origin:
  // one edge–edge candidate, gap g, normal -z from A into B. The ridge faces have normals
  // (0, +-1, -1)/sqrt 2 (A) and (+-1, 0, 1)/sqrt 2 (B), so with n = -z every in-face tangent term
  // is 1/sqrt 2 in magnitude: APPL_ee = 1/sqrt 2. The bars' ends are 1 m away: no vertex–face.
  const double g = 0.003;
  const double drop = 0.1 * std::sqrt(2.0);  // centre to ridge
  const ConvexPolytope bar_x = Box(Vec3(1.0, 0.1, 0.1));
  const ConvexPolytope bar_y = Box(Vec3(0.1, 1.0, 0.1));
  const PosedPolytope a(bar_x, Rotation(kPi / 4, Vec3::UnitX()), Vec3(0, 0, g + drop));
  const PosedPolytope b(bar_y, Rotation(kPi / 4, Vec3::UnitY()), Vec3(0, 0, -drop));
  const auto contacts = Find(a, b, PotentialContactOptions{});
  ASSERT_EQ(contacts.size(), 1u);
  const PotentialContact& c = contacts[0];
  EXPECT_EQ(c.kind, PotentialContactKind::kEdgeEdge);
  EXPECT_EQ(c.configuration, FeatureConfiguration::kEdgeEdge);
  EXPECT_NEAR(c.gap_m, g, kTol);
  EXPECT_NEAR(c.distance_m, g, kTol);
  EXPECT_TRUE(c.normal_W.isApprox(-Vec3::UnitZ(), kTol));
  EXPECT_TRUE(c.point1_W.isApprox(Vec3(0, 0, g), kTol));
  EXPECT_NEAR(c.applicability, 1.0 / std::sqrt(2.0), kTol);
  // Asked the other way round, the normal still goes from the first body into the second.
  const auto swapped = Find(b, a, PotentialContactOptions{});
  ASSERT_EQ(swapped.size(), 1u);
  EXPECT_TRUE(swapped[0].normal_W.isApprox(Vec3::UnitZ(), kTol));
  EXPECT_NEAR(swapped[0].gap_m, g, kTol);
  // Crossed 0.5 mm deep, the gap is -0.5 mm along the same normal.
  const PosedPolytope deep(bar_x, Rotation(kPi / 4, Vec3::UnitX()), Vec3(0, 0, -0.0005 + drop));
  const auto crossing = Find(deep, b, PotentialContactOptions{});
  ASSERT_EQ(crossing.size(), 1u);
  EXPECT_NEAR(crossing[0].gap_m, -0.0005, kTol);
  EXPECT_TRUE(crossing[0].normal_W.isApprox(-Vec3::UnitZ(), kTol));
}

TEST(PotentialContactsTest, ParallelEdgesMakeNoEdgeEdgeCandidate) {
  // The same ridges, both along x (B turned a further 180 degrees, which maps its diamond onto
  // itself): the ridge edges are parallel, 3 mm apart, and have no common normal. The contact is
  // left to the vertex–face candidates of their ends: each end of either ridge against the two
  // ridge faces of the other body, at gap g / sqrt 2 (the ridge faces lean 45 degrees), 4 each
  // way. Nothing is NaN (checked in Find).
  const double g = 0.003;
  const double drop = 0.1 * std::sqrt(2.0);
  const ConvexPolytope bar_x = Box(Vec3(1.0, 0.1, 0.1));
  const PosedPolytope a(bar_x, Rotation(kPi / 4, Vec3::UnitX()), Vec3(0, 0, g + drop));
  const PosedPolytope b(bar_x, Rotation(kPi / 4, Vec3::UnitX()) * Rotation(kPi, Vec3::UnitX()),
                        Vec3(0, 0, -drop));
  const auto ridge = [&](const PosedPolytope& body, double z) {
    for (int e = 0; e < bar_x.num_edges(); ++e) {
      if (std::abs(body.vertex(bar_x.edge(e).tail).z() - z) < kTol &&
          std::abs(body.vertex(bar_x.edge(e).head).z() - z) < kTol) {
        return e;
      }
    }
    return -1;
  };
  const int ridge_a = ridge(a, g), ridge_b = ridge(b, 0.0);
  ASSERT_GE(ridge_a, 0);
  ASSERT_GE(ridge_b, 0);
  PotentialContactStats stats;
  const auto contacts = Find(a, b, PotentialContactOptions{}, &stats);
  EXPECT_GE(stats.parallel_edge_pairs, 1);
  for (const PotentialContact& c : contacts) {
    if (c.kind == PotentialContactKind::kEdgeEdge) {
      EXPECT_FALSE(c.feature1 == ridge_a && c.feature2 == ridge_b);
      continue;
    }
    EXPECT_NEAR(c.gap_m, g / std::sqrt(2.0), kTol);
    const PolytopeEdge& own_ridge = bar_x.edge(c.body1 == 0 ? ridge_a : ridge_b);
    EXPECT_TRUE(c.feature1 == own_ridge.tail || c.feature1 == own_ridge.head);
  }
  EXPECT_EQ(Count(contacts, PotentialContactKind::kVertexFace, 0), 4);
  EXPECT_EQ(Count(contacts, PotentialContactKind::kVertexFace, 1), 4);
}

TEST(PotentialContactsTest, VertexEnteringACornerFindsBothFacesOfTheEdge) {
  // The paper's Figs. 2–3: a vertex v of A approaching B's convex corner (the edge between B's
  // top face, +z, and its side face, +x) along the bisector, 2 mm out along each normal. A is an
  // octahedron turned 45 degrees about y so that v's four edges leave it along +x, +z and
  // (0.5, +-0.707, 0.5): APPL = 0 for both the top and the side face, so both are applicable —
  // the pair the standard model enforces together (the trap). Both are vertex–edge
  // configurations naming the same edge of B, each with gap 2 mm.
  const double d = 0.002;
  const ConvexPolytope cube = Box(Vec3(0.5, 0.5, 0.5));
  auto octahedron = MakeRegularPolyhedron(RegularPolyhedron::kOctahedron, 0.1);
  ASSERT_TRUE(octahedron.ok());
  const Mat3 R = Rotation(kPi / 4, Vec3::UnitY());
  // The octahedron's -z vertex, turned, points along (-1, 0, -1)/sqrt 2.
  const Vec3 v_target(0.5 + d, 0.0, 0.5 + d);
  const Vec3 centre = v_target - R * Vec3(0, 0, -0.1);
  const PosedPolytope a(*octahedron, R, centre);
  const PosedPolytope b(cube, Mat3::Identity(), Vec3::Zero());
  int v = -1;
  for (int i = 0; i < octahedron->num_vertices(); ++i) {
    if ((a.vertex(i) - v_target).norm() < kTol) v = i;
  }
  ASSERT_GE(v, 0);
  const auto contacts = Find(a, b, PotentialContactOptions{});
  std::vector<PotentialContact> vertex_face;
  for (const PotentialContact& c : contacts) {
    if (c.kind == PotentialContactKind::kVertexFace) vertex_face.push_back(c);
  }
  ASSERT_EQ(vertex_face.size(), 2u);
  std::vector<Vec3> normals;
  for (const PotentialContact& c : vertex_face) {
    EXPECT_EQ(c.body1, 0);
    EXPECT_EQ(c.feature1, v);
    EXPECT_NEAR(c.gap_m, d, kTol);
    EXPECT_NEAR(c.distance_m, d * std::sqrt(2.0), kTol);
    EXPECT_NEAR(c.applicability, 0.0, kTol);
    EXPECT_TRUE(c.applicable);
    EXPECT_EQ(c.configuration, FeatureConfiguration::kVertexEdge);
    const PolytopeEdge& edge = cube.edge(c.near_edge2);
    EXPECT_TRUE(
        (b.face_normal(edge.face1) + b.face_normal(edge.face2)).isApprox(Vec3(1, 0, 1), kTol));
    normals.push_back(c.normal_W);
  }
  EXPECT_TRUE((normals[0] + normals[1]).isApprox(Vec3(-1, 0, -1), kTol));
  // Every edge–edge candidate is one of v's edges against that edge of B, closest at v.
  for (const PotentialContact& c : contacts) {
    if (c.kind != PotentialContactKind::kEdgeEdge) continue;
    const PolytopeEdge& edge = octahedron->edge(c.feature1);
    EXPECT_TRUE(edge.tail == v || edge.head == v);
    EXPECT_EQ(c.near_vertex1, v);
    EXPECT_EQ(c.configuration, FeatureConfiguration::kVertexEdge);
  }
}

TEST(PotentialContactsTest, FeasibilityBoundsPenetrationInsideAndBesideTheFace) {
  // A small octahedron's lowest vertex against a cube's top face (z = 0.5), with delta = 2.5 mm
  // and phi = 0.4 rad.
  const ConvexPolytope cube = Box(Vec3(0.5, 0.5, 0.5));
  auto probe = MakeRegularPolyhedron(RegularPolyhedron::kOctahedron, 0.05);
  ASSERT_TRUE(probe.ok());
  const PosedPolytope b(cube, Mat3::Identity(), Vec3::Zero());
  const auto top_face_contacts = [&](const Vec3& tip) {
    const PosedPolytope a(*probe, Mat3::Identity(), tip + Vec3(0, 0, 0.05));
    int n = 0;
    for (const PotentialContact& c : Find(a, b, PotentialContactOptions{})) {
      if (c.kind == PotentialContactKind::kVertexFace && c.body1 == 0 &&
          b.face_normal(c.feature2).isApprox(Vec3::UnitZ(), kTol)) {
        ++n;
      }
    }
    return n;
  };
  // Over the face: 2 mm below the plane is kept (gap -2 mm), 3 mm is not.
  EXPECT_EQ(top_face_contacts(Vec3(0, 0, 0.5 - 0.002)), 1);
  EXPECT_EQ(top_face_contacts(Vec3(0, 0, 0.5 - 0.003)), 0);
  // Beside the face, 4 mm out past the edge x = 0.5: kept iff psi >= -D sin(phi), D the distance
  // to the edge: 1 mm below (D = 4.12 mm, bound -1.60 mm) is kept, 2 mm below (D = 4.47 mm,
  // bound -1.74 mm) is not.
  EXPECT_EQ(top_face_contacts(Vec3(0.504, 0, 0.5 - 0.001)), 1);
  EXPECT_EQ(top_face_contacts(Vec3(0.504, 0, 0.5 - 0.002)), 0);
}

TEST(PotentialContactsTest, ApplicabilityRelaxationIsMinusSineOfTheRotationBound) {
  // The lowest corner of an axis-aligned cube against a plane tilted by alpha about x: the edge
  // along +y dips below the plane by alpha, so APPL = -sin(alpha) exactly.
  const ConvexPolytope cube = Box(Vec3(0.5, 0.5, 0.5));
  const PosedPolytope a(cube, Mat3::Identity(), Vec3::Zero());
  int corner = -1;
  for (int i = 0; i < cube.num_vertices(); ++i) {
    if (a.vertex(i).isApprox(Vec3(-0.5, -0.5, -0.5), kTol)) corner = i;
  }
  ASSERT_GE(corner, 0);
  const double alpha = 0.3;
  const Vec3 eta = Rotation(alpha, Vec3::UnitX()) * Vec3::UnitZ();
  EXPECT_NEAR(VertexFaceApplicability(a, corner, eta), -std::sin(alpha), kTol);
  EXPECT_NEAR(ApplicabilityThreshold(alpha), -std::sin(alpha), 1e-16);
  EXPECT_EQ(ApplicabilityThreshold(3.0), -1.0);
  EXPECT_EQ(ApplicabilityThreshold(-1.0), 0.0);
  // So the corner is a candidate of that plane for a rotation bound of alpha, not of alpha - 0.01.
  const auto plane_contacts = [&](double threshold) {
    PotentialContactOptions options;
    options.applicability_threshold = threshold;
    std::vector<PotentialContact> out;
    FindPlaneContacts(a, eta, eta.dot(Vec3(-0.5, -0.5, -0.5)), options, &out);
    return std::count_if(out.begin(), out.end(),
                         [&](const PotentialContact& c) { return c.feature1 == corner; });
  };
  EXPECT_EQ(plane_contacts(ApplicabilityThreshold(alpha) - 1e-12), 1);
  EXPECT_EQ(plane_contacts(ApplicabilityThreshold(alpha - 0.01)), 0);
  EXPECT_EQ(FeasibilityDistance(2.0, 0.004, 0.001), 0.008);
  EXPECT_EQ(FeasibilityDistance(0.1, 0.004, 0.001), 0.001);
}

TEST(PotentialContactsTest, BoxOnAPlane) {
  // A unit cube resting on z = 0: its 4 bottom corners (gap 0, APPL 0, normal -z), not the top.
  const ConvexPolytope cube = Box(Vec3(0.5, 0.5, 0.5));
  const PosedPolytope a(cube, Mat3::Identity(), Vec3(0, 0, 0.5));
  std::vector<PotentialContact> out;
  FindPlaneContacts(a, Vec3::UnitZ(), 0.0, PotentialContactOptions{}, &out);
  ASSERT_EQ(out.size(), 4u);
  for (const PotentialContact& c : out) {
    EXPECT_NEAR(c.gap_m, 0.0, kTol);
    EXPECT_NEAR(c.point1_W.z(), 0.0, kTol);
    EXPECT_TRUE(c.normal_W.isApprox(-Vec3::UnitZ(), kTol));
    EXPECT_EQ(c.feature2, -1);
  }
  // Standing on an edge (turned 45 degrees about x, lowest edge on the plane): 2 corners, and the
  // corners 0.707 m up are out of reach. Sunk 1 cm, they are still reported (gap -1 cm).
  const PosedPolytope tilted(cube, Rotation(kPi / 4, Vec3::UnitX()),
                             Vec3(0, 0, std::sqrt(0.5) - 0.01));
  out.clear();
  FindPlaneContacts(tilted, Vec3::UnitZ(), 0.0, PotentialContactOptions{}, &out);
  ASSERT_EQ(out.size(), 2u);
  for (const PotentialContact& c : out) EXPECT_NEAR(c.gap_m, -0.01, kTol);
}

}  // namespace
}  // namespace contactsim::core
