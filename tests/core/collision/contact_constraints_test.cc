// Contact constraints of the standard and PEG models
// (core/collision/polytope/contact_constraints.h) on hand-placed configurations whose constraint
// sets are worked out in the comments: the paper's standard-model traps (Figs. 2–3,
// scenes/rigid_lcp/trap_scenes.h), vertex–vertex, edge–edge, a box on a face and on a plane;
// flipped secondaries; determinism; no NaN where edges are parallel.
//
// A trap is shown without dynamics: for a translation D of body A the plane and line gaps are
// exactly linear, psi' = psi + n . (D2 - D1) (n from body1 into body2, D_i the displacement of
// body_i), so a constraint set can be evaluated at a pose the bodies could reach in one step. The
// standard model forbids poses at which the bodies provably do not overlap (IntersectionVolume,
// independent code); PEG allows them, and still forbids overlapping ones.
#include "core/collision/polytope/contact_constraints.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "core/collision/polytope/posed_polytope.h"
#include "core/geometry/polytope_intersection.h"
#include "core/geometry/polytope_primitives.h"
#include "gtest/gtest.h"
#include "scenes/rigid_lcp/trap_scenes.h"

namespace contactsim::core {
namespace {

using Rule = ContactConstraintRule;
using scenes::TrapScene;

constexpr double kPi = std::numbers::pi;
// Positions are sums of a few exactly representable numbers and rotations by 45 degrees: 1e-12 m
// is rounding with a wide margin, far below every distance the tests tell apart (mm).
constexpr double kTol = 1e-12;

Mat3 Rotation(double angle, const Vec3& axis) {
  return Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
}

ConvexPolytope Box(const Vec3& half) {
  auto box = MakeBoxPolytope(half);
  EXPECT_TRUE(box.ok()) << box.status();
  return *box;
}

void ExpectWellFormed(const PotentialContact& c) {
  EXPECT_TRUE(c.normal_W.allFinite() && c.point1_W.allFinite());
  EXPECT_TRUE(std::isfinite(c.gap_m) && std::isfinite(c.distance_m) &&
              std::isfinite(c.applicability));
  EXPECT_NEAR(c.normal_W.norm(), 1.0, kTol);
}

std::vector<ContactConstraintGeometry> Make(PolytopeContactModel model, const PosedPolytope& a,
                                            const PosedPolytope& b,
                                            const ContactConstraintOptions& options = {},
                                            ContactConstraintStats* stats = nullptr) {
  std::vector<ContactConstraintGeometry> out;
  MakeContactConstraints(model, a, b, options, &out, stats);
  for (const ContactConstraintGeometry& g : out) {
    ExpectWellFormed(g.primary);
    EXPECT_EQ(g.secondaries.size(), g.secondary_flipped.size());
    for (const PotentialContact& s : g.secondaries) {
      ExpectWellFormed(s);
      EXPECT_EQ(s.body1, g.primary.body1);  // the primary's body order (notes §4.2)
    }
  }
  return out;
}

// The gap of c after body A (index 0) translates by d_a and B stays.
double GapAfter(const PotentialContact& c, const Vec3& d_a) {
  const Vec3 d1 = c.body1 == 0 ? d_a : Vec3::Zero();
  const Vec3 d2 = c.body1 == 0 ? Vec3::Zero() : d_a;
  return c.gap_m + c.normal_W.dot(d2 - d1);
}

// max over the constraint's contacts of GapAfter: the constraint admits the translation iff >= 0.
double ConstraintGapAfter(const ContactConstraintGeometry& g, const Vec3& d_a) {
  double gap = GapAfter(g.primary, d_a);
  for (const PotentialContact& s : g.secondaries) gap = std::max(gap, GapAfter(s, d_a));
  return gap;
}

bool AllAdmit(const std::vector<ContactConstraintGeometry>& constraints, const Vec3& d_a) {
  return std::all_of(constraints.begin(), constraints.end(),
                     [&](const auto& g) { return ConstraintGapAfter(g, d_a) >= -kTol; });
}

// Does the constraint name vertex v of body `body` in a vertex–face contact?
bool NamesVertex(const PotentialContact& c, bool flipped, int body, int v) {
  return c.kind == PotentialContactKind::kVertexFace && (flipped ? 1 - c.body1 : c.body1) == body &&
         c.feature1 == v;
}

int CountRule(const std::vector<ContactConstraintGeometry>& constraints, Rule rule) {
  return static_cast<int>(std::count_if(constraints.begin(), constraints.end(),
                                        [&](const auto& g) { return g.rule == rule; }));
}

struct PosedScene {
  explicit PosedScene(const TrapScene& scene)
      : dynamic(scene.bodies[1].shape, scene.bodies[1].R_WB, scene.bodies[1].p_WB),
        fixed(scene.bodies[0].shape, scene.bodies[0].R_WB, scene.bodies[0].p_WB) {}
  PosedPolytope dynamic;  // queried as A
  PosedPolytope fixed;    // B
};

// Exact overlap of the scene's bodies after the dynamic one translates by d.
double OverlapAfter(const TrapScene& scene, const Vec3& d) {
  const auto& a = scene.bodies[1];
  const auto& b = scene.bodies[0];
  return IntersectionVolume(a.shape.Transformed(a.R_WB, a.p_WB + d),
                            b.shape.Transformed(b.R_WB, b.p_WB));
}

TEST(ContactConstraintsTest, VertexEnteringACornerTrapsTheStandardModelOnly) {
  // Paper Fig. 2 in 3D (trap_scenes.h): the octahedron's vertex v is 2 mm out along both normals
  // of the cube's +x top edge, on the bisector. Its candidates against the top (+z) and side (+x)
  // faces both have APPL 0 and gap 2 mm. Standard: a U on each, together they keep v in the
  // quadrant x >= 0.5, z >= 0.5 (+ their gaps). PEG: one vertex–edge I over the two faces of the
  // edge, i.e. max(psi_top, psi_side) >= 0.
  const double d = 0.002;
  const TrapScene scene = scenes::VertexEnteringCornerScene(d);
  ASSERT_EQ(scene.trapped_vertices.size(), 1u);
  ASSERT_GE(scene.edge, 0);
  const int v = scene.trapped_vertices[0];
  const PosedScene posed(scene);

  const auto standard = Make(PolytopeContactModel::kStandard, posed.dynamic, posed.fixed);
  std::vector<Vec3> normals;
  for (const auto& g : standard) {
    EXPECT_TRUE(g.unilateral());
    EXPECT_EQ(g.rule, Rule::kStandardUnilateral);
    if (NamesVertex(g.primary, false, 0, v)) {
      EXPECT_NEAR(g.primary.gap_m, d, kTol);
      normals.push_back(g.primary.normal_W);
    }
  }
  ASSERT_EQ(normals.size(), 2u);
  EXPECT_TRUE((normals[0] + normals[1]).isApprox(Vec3(-1, 0, -1), kTol));

  ContactConstraintStats stats;
  const auto peg = Make(PolytopeContactModel::kPeg, posed.dynamic, posed.fixed, {}, &stats);
  int vertex_edge = 0;
  for (const auto& g : peg) {
    if (g.rule == Rule::kVertexEdgeIntercontact) {
      ++vertex_edge;
      ASSERT_EQ(g.secondaries.size(), 1u);
      EXPECT_TRUE(NamesVertex(g.primary, false, 0, v));
      EXPECT_TRUE(NamesVertex(g.secondaries[0], g.secondary_flipped[0], 0, v));
      const PolytopeEdge& edge = scene.bodies[0].shape.edge(scene.edge);
      EXPECT_EQ(g.primary.feature2 + g.secondaries[0].feature2, edge.face1 + edge.face2);
      EXPECT_NE(g.primary.feature2, g.secondaries[0].feature2);
      EXPECT_TRUE((g.primary.normal_W + g.secondaries[0].normal_W).isApprox(Vec3(-1, 0, -1), kTol));
    }
    // No U keeps v on a face's plane.
    if (g.unilateral()) {
      EXPECT_FALSE(NamesVertex(g.primary, false, 0, v));
    }
  }
  EXPECT_EQ(vertex_edge, 1);
  EXPECT_EQ(stats.count(Rule::kVertexEdgeIntercontact), 1);
  EXPECT_EQ(stats.intercontact() + stats.unilateral(), static_cast<int>(peg.size()));

  // Falling 3 d straight down, v passes beside the side face: the bodies do not overlap, the
  // standard model forbids it, PEG admits it.
  const Vec3 fall(0, 0, -3 * d);
  EXPECT_EQ(OverlapAfter(scene, fall), 0.0);
  EXPECT_FALSE(AllAdmit(standard, fall));
  EXPECT_TRUE(AllAdmit(peg, fall));
  // Moving into the corner along the bisector by 2 d overlaps (v ends d inside both faces' planes,
  // i.e. inside the cube); PEG forbids it.
  const Vec3 into(-2 * d, 0, -2 * d);
  EXPECT_GT(OverlapAfter(scene, into), 0.0);
  EXPECT_FALSE(AllAdmit(peg, into));
}

TEST(ContactConstraintsTest, BoxOffAnEdgeFallsWithPegOnly) {
  // The body sliding over an edge (trap_scenes.h): the box is 1 mm past the table's edge, its two
  // trailing bottom vertices on the table's plane. Each such vertex v has, against the table,
  //   top face (+z): psi 0, APPL 0 (v's edges run +x, +-y, +z);
  //   side face (+x): psi 1 mm, APPL 0;
  // and v's edges against the table's edge e (along y): the bottom edge along +x (normal -z,
  // psi 0) and the vertical edge (normal -x, psi 1 mm), both APPL 0; the edge along y is parallel
  // to e (no candidate). Standard: these 4 per vertex, 8 U. PEG: per vertex one vertex–edge I
  // (primary the larger gap, the side face) and the two pairings of eq 36: the +x edge leaves v
  // towards the side face's side of e (O_e . x > 0) and pairs with the side contact, the +z edge
  // pairs with the top contact; both faces are feasible, so the vertex–face contact is the
  // primary. 6 I, no U.
  const TrapScene scene = scenes::BoxOffAnEdgeScene(0.001);
  ASSERT_EQ(scene.trapped_vertices.size(), 2u);
  const PosedScene posed(scene);
  ContactConstraintStats standard_stats, peg_stats;
  const auto standard =
      Make(PolytopeContactModel::kStandard, posed.dynamic, posed.fixed, {}, &standard_stats);
  const auto peg = Make(PolytopeContactModel::kPeg, posed.dynamic, posed.fixed, {}, &peg_stats);
  EXPECT_EQ(standard.size(), 8u);
  EXPECT_EQ(standard_stats.unilateral(), 8);
  EXPECT_EQ(peg.size(), 6u);
  EXPECT_EQ(peg_stats.unilateral(), 0);
  EXPECT_EQ(peg_stats.count(Rule::kVertexEdgeIntercontact), 2);
  EXPECT_EQ(peg_stats.count(Rule::kVertexEdgePairing), 4);
  const ConvexPolytope& box = scene.bodies[1].shape;
  for (const auto& g : peg) {
    ASSERT_EQ(g.secondaries.size(), 1u);
    EXPECT_EQ(g.primary.body1, 0);
    if (g.rule == Rule::kVertexEdgeIntercontact) {
      EXPECT_TRUE(g.primary.normal_W.isApprox(-Vec3::UnitX(), kTol));  // the side face
      EXPECT_NEAR(g.primary.gap_m, 0.001, kTol);
      EXPECT_TRUE(g.secondaries[0].normal_W.isApprox(-Vec3::UnitZ(), kTol));
      EXPECT_NEAR(g.secondaries[0].gap_m, 0.0, kTol);
      continue;
    }
    // Pairing: primary = the vertex–face contact, secondary = the edge–edge contact.
    ASSERT_EQ(g.primary.kind, PotentialContactKind::kVertexFace);
    const PotentialContact& ee = g.secondaries[0];
    ASSERT_EQ(ee.kind, PotentialContactKind::kEdgeEdge);
    const Vec3 edge = box.EdgeVector(ee.feature1).cwiseAbs();
    if (edge.isApprox(Vec3(0.1, 0, 0), kTol)) {
      EXPECT_TRUE(g.primary.normal_W.isApprox(-Vec3::UnitX(), kTol));
      EXPECT_TRUE(ee.normal_W.isApprox(-Vec3::UnitZ(), kTol));
      EXPECT_NEAR(ee.gap_m, 0.0, kTol);
    } else {
      ASSERT_TRUE(edge.isApprox(Vec3(0, 0, 0.1), kTol)) << edge.transpose();
      EXPECT_TRUE(g.primary.normal_W.isApprox(-Vec3::UnitZ(), kTol));
      EXPECT_TRUE(ee.normal_W.isApprox(-Vec3::UnitX(), kTol));
      EXPECT_NEAR(ee.gap_m, 0.001, kTol);
    }
  }
  // Nothing holds the box: falling 5 mm it overlaps nothing; the standard model's U on the
  // table's plane forbids that, PEG admits it. Pushed back onto the table's top (x by -6 mm) and
  // down 1 mm it would overlap; PEG forbids it.
  const Vec3 fall(0, 0, -0.005);
  EXPECT_EQ(OverlapAfter(scene, fall), 0.0);
  EXPECT_FALSE(AllAdmit(standard, fall));
  EXPECT_TRUE(AllAdmit(peg, fall));
  const Vec3 back_down(-0.006, 0, -0.001);
  EXPECT_GT(OverlapAfter(scene, back_down), 0.0);
  EXPECT_FALSE(AllAdmit(peg, back_down));
}

TEST(ContactConstraintsTest, VertexRestingInsideAnEdgeIsHeldAlongTheTopFaceNormal) {
  // The same box 1 mm back on the table (overhang -1 mm): its trailing vertices rest on the top
  // face (psi 0) 1 mm inside the edge, psi -1 mm to the side face, whose candidate is feasible
  // (inside the face's prism, within delta = 2.5 mm) and applicable (APPL 0). The standard model
  // enforces psi_side >= 0 too: a push of 1 mm along +x in one step (it "jumps"). PEG's
  // vertex–edge I takes the larger gap, the top face, as the primary: the impulse is vertical. The
  // authors' rule (kAuthorsCode) takes the side face, as psi_side > -5 mm: a horizontal impulse
  // on a supported vertex.
  const TrapScene scene = scenes::BoxOffAnEdgeScene(-0.001);
  ASSERT_EQ(scene.trapped_vertices.size(), 2u);
  const PosedScene posed(scene);
  const auto standard = Make(PolytopeContactModel::kStandard, posed.dynamic, posed.fixed);
  EXPECT_TRUE(std::any_of(standard.begin(), standard.end(), [](const auto& g) {
    return g.primary.normal_W.isApprox(-Vec3::UnitX(), kTol) && g.primary.gap_m < -0.0009;
  }));
  for (PegPrimaryRule rule : {PegPrimaryRule::kLargestGap, PegPrimaryRule::kAuthorsCode}) {
    ContactConstraintOptions options;
    options.primary_rule = rule;
    const auto peg = Make(PolytopeContactModel::kPeg, posed.dynamic, posed.fixed, options);
    ASSERT_EQ(CountRule(peg, Rule::kVertexEdgeIntercontact), 2);
    for (const auto& g : peg) {
      if (g.rule != Rule::kVertexEdgeIntercontact) continue;
      const Vec3 expected = rule == PegPrimaryRule::kLargestGap ? -Vec3::UnitZ() : -Vec3::UnitX();
      EXPECT_TRUE(g.primary.normal_W.isApprox(expected, kTol)) << g.primary.normal_W.transpose();
    }
    // Resting where it is is admitted (no constraint asks for a push).
    EXPECT_TRUE(AllAdmit(peg, Vec3::Zero()));
  }
  EXPECT_FALSE(AllAdmit(standard, Vec3::Zero()));
}

TEST(ContactConstraintsTest, CornerOnCornerGivesOneIntercontactPerSide) {
  // Two unit cubes standing on corners, body diagonals vertical: B's top vertex w, A's bottom
  // vertex v 1 mm above it. Each face at w has its outward normal 1/sqrt 3 up and v's edges leave
  // v 1/sqrt 3 up, both with horizontal parts of length sqrt(2/3), so for any relative yaw
  // APPL(v, f) = 1/3 + 2/3 cos(angle) >= 1/3 - 2/3 = -1/3 >= -0.4: all three faces at w are
  // potentials of v, symmetrically the three at v for w, and each is feasible (psi = g/sqrt 3 > 0;
  // v is nearest to w, at distance g). PEG (eq 38's I-constraints): one I per side, 1 primary + 2
  // secondaries; the 9 edge pairs at the corners are vertex–vertex, not edge–edge: nothing else.
  const double g = 0.001;
  const ConvexPolytope cube = Box(Vec3(0.5, 0.5, 0.5));
  const Mat3 R_a(Eigen::Quaterniond::FromTwoVectors(Vec3(1, 1, 1), -Vec3::UnitZ()));
  const Mat3 R_b(Eigen::Quaterniond::FromTwoVectors(Vec3(1, 1, 1), Vec3::UnitZ()));
  const double half_diagonal = 0.5 * std::sqrt(3.0);
  const PosedPolytope b(cube, R_b, Vec3(0, 0, -half_diagonal));
  const PosedPolytope a(cube, R_a, Vec3(0, 0, g + half_diagonal));
  ContactConstraintStats stats;
  const auto peg = Make(PolytopeContactModel::kPeg, a, b, {}, &stats);
  ASSERT_EQ(peg.size(), 2u);
  for (const auto& c : peg) {
    EXPECT_EQ(c.rule, Rule::kVertexVertexIntercontact);
    EXPECT_EQ(c.secondaries.size(), 2u);
    EXPECT_NEAR(c.primary.gap_m, g / std::sqrt(3.0), 1e-12);
    // The primary's vertex is the one at the corner (z = g for A's, 0 for B's).
    const PosedPolytope& vertex_body = c.primary.body1 == 0 ? a : b;
    EXPECT_NEAR(vertex_body.vertex(c.primary.feature1).z(), c.primary.body1 == 0 ? g : 0.0, 1e-12);
  }
  EXPECT_NE(peg[0].primary.body1, peg[1].primary.body1);
  EXPECT_EQ(stats.unilateral(), 0);
  // The standard model makes a U of each applicable candidate.
  const auto standard = Make(PolytopeContactModel::kStandard, a, b);
  EXPECT_GE(standard.size(), 2u);
  for (const auto& c : standard) EXPECT_TRUE(c.unilateral());
}

TEST(ContactConstraintsTest, CrossedRidgesGiveOneEdgeEdgeUnilateral) {
  // Two bars turned 45 degrees, ridges crossing at right angles 3 mm apart far from their ends
  // (polytope_contacts_test.cc): one edge–edge candidate (APPL 1/sqrt 2), no vertex near: PEG's
  // deferred edge–edge U, the standard model's U, the same contact.
  const double g = 0.003;
  const double drop = 0.1 * std::sqrt(2.0);
  const ConvexPolytope bar_x = Box(Vec3(1.0, 0.1, 0.1));
  const ConvexPolytope bar_y = Box(Vec3(0.1, 1.0, 0.1));
  const PosedPolytope a(bar_x, Rotation(kPi / 4, Vec3::UnitX()), Vec3(0, 0, g + drop));
  const PosedPolytope b(bar_y, Rotation(kPi / 4, Vec3::UnitY()), Vec3(0, 0, -drop));
  const auto peg = Make(PolytopeContactModel::kPeg, a, b);
  const auto standard = Make(PolytopeContactModel::kStandard, a, b);
  ASSERT_EQ(peg.size(), 1u);
  ASSERT_EQ(standard.size(), 1u);
  EXPECT_EQ(peg[0].rule, Rule::kEdgeEdgeUnilateral);
  EXPECT_EQ(peg[0].primary.kind, PotentialContactKind::kEdgeEdge);
  EXPECT_NEAR(peg[0].primary.gap_m, g, kTol);
  EXPECT_TRUE(peg[0].primary.normal_W.isApprox(-Vec3::UnitZ(), kTol));
  EXPECT_EQ(standard[0].primary.feature1, peg[0].primary.feature1);
  EXPECT_EQ(standard[0].primary.feature2, peg[0].primary.feature2);
}

TEST(ContactConstraintsTest, BoxFlatOnALargeFaceGivesFourUnilaterals) {
  // A 0.2 m cube resting in the middle of a unit cube's top face: its 4 bottom corners against
  // the top face (psi 0, APPL 0, 0.4 m from any edge of B: vertex–face configurations), nothing
  // else within reach. PEG: the 4 lone-vertex U, normals -z; the same 4 as the standard model.
  const ConvexPolytope small = Box(Vec3(0.1, 0.1, 0.1));
  const ConvexPolytope large = Box(Vec3(0.5, 0.5, 0.5));
  const PosedPolytope a(small, Mat3::Identity(), Vec3(0, 0, 0.6));
  const PosedPolytope b(large, Mat3::Identity(), Vec3::Zero());
  ContactConstraintStats stats;
  const auto peg = Make(PolytopeContactModel::kPeg, a, b, {}, &stats);
  const auto standard = Make(PolytopeContactModel::kStandard, a, b);
  ASSERT_EQ(peg.size(), 4u);
  ASSERT_EQ(standard.size(), 4u);
  EXPECT_EQ(stats.count(Rule::kLoneVertexUnilateral), 4);
  for (size_t i = 0; i < peg.size(); ++i) {
    EXPECT_TRUE(peg[i].unilateral());
    EXPECT_EQ(peg[i].primary.body1, 0);
    EXPECT_NEAR(peg[i].primary.gap_m, 0.0, kTol);
    EXPECT_TRUE(peg[i].primary.normal_W.isApprox(-Vec3::UnitZ(), kTol));
    EXPECT_NEAR(a.vertex(peg[i].primary.feature1).z(), 0.5, kTol);
    EXPECT_EQ(peg[i].primary.feature1, standard[i].primary.feature1);
  }
}

TEST(ContactConstraintsTest, BoxOnAPlaneGivesOneUnilateralPerTouchingCorner) {
  // A unit cube on z = 0: flat, its 4 bottom corners (psi 0, normal -z); on an edge (turned 45
  // degrees about y), the 2 corners of that edge. Both models: the plane has no corner to trap.
  const ConvexPolytope cube = Box(Vec3(0.5, 0.5, 0.5));
  const PosedPolytope flat(cube, Mat3::Identity(), Vec3(0, 0, 0.5));
  const PosedPolytope on_edge(cube, Rotation(kPi / 4, Vec3::UnitY()),
                              Vec3(0, 0, 0.5 * std::sqrt(2.0)));
  for (const auto& [body, expected] : {std::pair(&flat, 4), std::pair(&on_edge, 2)}) {
    std::vector<ContactConstraintGeometry> out;
    ContactConstraintStats stats;
    MakePlaneContactConstraints(*body, Vec3::UnitZ(), 0.0, {}, &out, &stats);
    ASSERT_EQ(static_cast<int>(out.size()), expected);
    EXPECT_EQ(stats.count(Rule::kPlaneUnilateral), expected);
    for (const auto& g : out) {
      EXPECT_TRUE(g.unilateral());
      EXPECT_NEAR(g.primary.gap_m, 0.0, kTol);
      EXPECT_TRUE(g.primary.normal_W.isApprox(-Vec3::UnitZ(), kTol));
    }
  }
}

TEST(ContactConstraintsTest, FlipMovesThePointToTheOtherBodyAndKeepsTheGap) {
  PotentialContact c;
  c.body1 = 1;
  c.point1_W = Vec3(1, 2, 3);
  c.normal_W = Vec3(0, 0, 1);
  c.gap_m = 0.25;
  const PotentialContact f = FlipContact(c);
  EXPECT_EQ(f.body1, 0);
  EXPECT_EQ(f.point1_W, Vec3(1, 2, 3.25));
  EXPECT_EQ(f.normal_W, Vec3(0, 0, -1));
  EXPECT_EQ(f.gap_m, 0.25);
  const PotentialContact back = FlipContact(f);
  EXPECT_EQ(back.body1, 1);
  EXPECT_EQ(back.point1_W, c.point1_W);
  EXPECT_EQ(back.normal_W, c.normal_W);
}

// Two constraint sets of the same pair asked in the two orders: the same rules and contacts
// (normal, gap, vertex–face points) with body indices swapped.
void ExpectSameUpToOrder(const std::vector<ContactConstraintGeometry>& ab,
                         const std::vector<ContactConstraintGeometry>& ba) {
  ASSERT_EQ(ab.size(), ba.size());
  // Edge–edge points agree along the normal only (see the flipped-secondary test): compared
  // for vertex–face contacts, whose point is the vertex in both orders.
  const auto same = [](const PotentialContact& x, const PotentialContact& y) {
    return x.body1 == 1 - y.body1 && (x.normal_W - y.normal_W).norm() < kTol &&
           std::abs(x.gap_m - y.gap_m) < kTol &&
           (x.kind == PotentialContactKind::kEdgeEdge || (x.point1_W - y.point1_W).norm() < kTol);
  };
  for (const auto& g : ab) {
    const bool found = std::any_of(ba.begin(), ba.end(), [&](const auto& h) {
      if (g.rule != h.rule || !same(g.primary, h.primary) ||
          g.secondaries.size() != h.secondaries.size()) {
        return false;
      }
      for (size_t k = 0; k < g.secondaries.size(); ++k) {
        if (!same(g.secondaries[k], h.secondaries[k])) return false;
      }
      return true;
    });
    EXPECT_TRUE(found) << ContactConstraintRuleName(g.rule) << " primary at "
                       << g.primary.point1_W.transpose();
  }
}

TEST(ContactConstraintsTest, SecondariesAreFlippedIntoThePrimarysBodyOrder) {
  // The box off the table's edge asked with the table first: the box's vertices are now body 1,
  // while every edge–edge candidate has body1 = 0 (the table), so each pairing's edge–edge
  // secondary is flipped. After the flip it must be the contact of the box-first query: normal
  // from the box into the table (-z for the bottom edge, -x for the vertical one), the same gap,
  // the point on the box's edge line.
  const TrapScene scene = scenes::BoxOffAnEdgeScene(0.001);
  const PosedScene posed(scene);
  ContactConstraintStats stats;
  const auto table_first = Make(PolytopeContactModel::kPeg, posed.fixed, posed.dynamic, {}, &stats);
  const auto box_first = Make(PolytopeContactModel::kPeg, posed.dynamic, posed.fixed);
  EXPECT_EQ(stats.secondaries_flipped, 4);
  int flipped = 0;
  for (const auto& g : table_first) {
    EXPECT_EQ(g.primary.body1, 1);
    for (size_t k = 0; k < g.secondaries.size(); ++k) {
      if (!g.secondary_flipped[k]) continue;
      ++flipped;
      const PotentialContact& s = g.secondaries[k];
      EXPECT_EQ(s.kind, PotentialContactKind::kEdgeEdge);
      EXPECT_TRUE(s.normal_W.isApprox(-Vec3::UnitZ(), kTol) ||
                  s.normal_W.isApprox(-Vec3::UnitX(), kTol))
          << s.normal_W.transpose();
      // On the line of the box's edge (feature1 after the flip belongs to body 1 - body1 = 0,
      // the table; feature2 is the box's edge). The flipped point is the table's closest point
      // moved by psi n, which is on that line but, where the closest point of the box's segment
      // is its end, not at that end: the paper's p_b = p_a + psi n, exact along n only.
      const Vec3 tail = posed.dynamic.vertex(scene.bodies[1].shape.edge(s.feature2).tail);
      const Vec3 along = posed.dynamic.edge_vector(s.feature2).normalized();
      EXPECT_LT((s.point1_W - tail).cross(along).norm(), kTol);
    }
  }
  EXPECT_EQ(flipped, 4);
  ExpectSameUpToOrder(box_first, table_first);
  // And the traps' sets are the same in both orders.
  const TrapScene corner = scenes::VertexEnteringCornerScene();
  const PosedScene posed_corner(corner);
  ExpectSameUpToOrder(Make(PolytopeContactModel::kPeg, posed_corner.dynamic, posed_corner.fixed),
                      Make(PolytopeContactModel::kPeg, posed_corner.fixed, posed_corner.dynamic));
}

TEST(ContactConstraintsTest, ParallelAndCoincidentFeaturesGiveNoNaN) {
  // Parallel ridges 3 mm apart (no edge–edge candidate, polytope_contacts_test.cc), cubes face to
  // face corners on corners (8 parallel edge pairs, gaps 0), a ridge lying exactly on a parallel
  // edge, and a cube coinciding with another: every contact finite (checked in Make) and every
  // constraint's gap defined.
  const double drop = 0.1 * std::sqrt(2.0);
  const ConvexPolytope bar_x = Box(Vec3(1.0, 0.1, 0.1));
  const ConvexPolytope cube = Box(Vec3(0.5, 0.5, 0.5));
  const Mat3 ridge_down = Rotation(kPi / 4, Vec3::UnitX());
  const std::vector<std::pair<PosedPolytope, PosedPolytope>> pairs = {
      {PosedPolytope(bar_x, ridge_down, Vec3(0, 0, 0.003 + drop)),
       PosedPolytope(bar_x, ridge_down * Rotation(kPi, Vec3::UnitX()), Vec3(0, 0, -drop))},
      {PosedPolytope(cube, Mat3::Identity(), Vec3(0, 0, 1)),
       PosedPolytope(cube, Mat3::Identity(), Vec3::Zero())},
      {PosedPolytope(bar_x, ridge_down, Vec3(0, 0.5, 0.5 + drop)),
       PosedPolytope(cube, Mat3::Identity(), Vec3::Zero())},
      {PosedPolytope(cube, Mat3::Identity(), Vec3::Zero()),
       PosedPolytope(cube, Mat3::Identity(), Vec3::Zero())},
  };
  for (const auto& [a, b] : pairs) {
    for (auto model : {PolytopeContactModel::kStandard, PolytopeContactModel::kPeg}) {
      for (const auto& g : Make(model, a, b)) EXPECT_TRUE(std::isfinite(ConstraintGap(g)));
    }
  }
}

TEST(ContactConstraintsTest, CubesFaceToFaceCornersOnCornersGiveOneConstraintPerCorner) {
  // Two unit cubes face to face, corners on corners (polytope_contacts_test.cc): 8 vertex–face
  // and 8 edge–edge candidates, all vertex–vertex configurations at the 4 corners. Per corner pair
  // (v of A, w of B), v's potentials among the 3 faces at w: only B's top face (the side faces
  // have APPL -1 < -0.4), and w's only A's bottom face. PEG: per side one constraint with that face
  // as the primary (gap 0, normal -z for A's corners, +z for B's) and the two side faces at the
  // corner as secondaries (gap 0): max(psi_top, psi_side1, psi_side2) >= 0. With
  // vertex_vertex_all_corner_faces off (the authors' code): the 8 U alone. The standard model: all
  // 16 candidates.
  const ConvexPolytope cube = Box(Vec3(0.5, 0.5, 0.5));
  const PosedPolytope a(cube, Mat3::Identity(), Vec3(0, 0, 1));
  const PosedPolytope b(cube, Mat3::Identity(), Vec3::Zero());
  ContactConstraintStats stats;
  const auto peg = Make(PolytopeContactModel::kPeg, a, b, {}, &stats);
  EXPECT_EQ(peg.size(), 8u);
  EXPECT_EQ(stats.count(Rule::kVertexVertexIntercontact), 8);
  for (const auto& g : peg) {
    EXPECT_NEAR(g.primary.gap_m, 0.0, kTol);
    EXPECT_TRUE(g.primary.normal_W.isApprox(Vec3(0, 0, g.primary.body1 == 0 ? -1 : 1), kTol));
    ASSERT_EQ(g.secondaries.size(), 2u);
    for (const PotentialContact& s : g.secondaries) {
      EXPECT_NEAR(s.gap_m, 0.0, kTol);
      EXPECT_NEAR(s.normal_W.z(), 0.0, kTol);
    }
  }
  EXPECT_EQ(Make(PolytopeContactModel::kStandard, a, b).size(), 16u);
  ContactConstraintOptions authors;
  authors.vertex_vertex_all_corner_faces = false;
  ContactConstraintStats authors_stats;
  EXPECT_EQ(Make(PolytopeContactModel::kPeg, a, b, authors, &authors_stats).size(), 8u);
  EXPECT_EQ(authors_stats.count(Rule::kVertexVertexUnilateral), 8);
}

TEST(ContactConstraintsTest, DeterministicAndAppending) {
  // The same query twice gives the same constraints bit for bit, appended after what *out held.
  const TrapScene scene = scenes::BoxOffAnEdgeScene(0.001);
  const PosedScene posed(scene);
  std::vector<ContactConstraintGeometry> first, second;
  MakeContactConstraints(PolytopeContactModel::kPeg, posed.dynamic, posed.fixed, {}, &first);
  second.push_back(first.front());
  MakeContactConstraints(PolytopeContactModel::kPeg, posed.dynamic, posed.fixed, {}, &second);
  ASSERT_EQ(second.size(), first.size() + 1);
  for (size_t i = 0; i < first.size(); ++i) {
    const auto& x = first[i];
    const auto& y = second[i + 1];
    EXPECT_EQ(x.rule, y.rule);
    EXPECT_EQ(x.primary.point1_W, y.primary.point1_W);
    EXPECT_EQ(x.primary.normal_W, y.primary.normal_W);
    EXPECT_EQ(x.primary.gap_m, y.primary.gap_m);
    ASSERT_EQ(x.secondaries.size(), y.secondaries.size());
    for (size_t k = 0; k < x.secondaries.size(); ++k) {
      EXPECT_EQ(x.secondaries[k].point1_W, y.secondaries[k].point1_W);
      EXPECT_EQ(x.secondaries[k].gap_m, y.secondaries[k].gap_m);
    }
  }
}

}  // namespace
}  // namespace contactsim::core
