// Contact constraints between two polygons (core/collision/polytope/polygon_constraints2d.h): the
// standard model and PEG's U / I / X sets on hand-placed squares and triangles, the expected sets
// and signs worked out in the comments from the paper's Fig. 5 and the notes' §4.3.
#include "core/collision/polytope/polygon_constraints2d.h"

#include <vector>

#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

// Exactly representable coordinates and axis-aligned unit normals: 1e-12 m is rounding with a
// wide margin.
constexpr double kTol = 1e-12;

// Counter-clockwise: (-h, -h), (h, -h), (h, h), (-h, h), shifted.
Points2 Square(double half, const Vec2& centre) {
  Points2 p(4, 2);
  p << -half, -half, half, -half, half, half, -half, half;
  return p.rowwise() + centre.transpose();
}

PolygonConstraintOptions Options(double max_gap_m) {
  PolygonConstraintOptions o;
  o.max_gap_m = max_gap_m;
  return o;
}

std::vector<PolygonConstraint> Make(PolygonContactModel model, const Points2& a, const Points2& b,
                                    const PolygonConstraintOptions& options,
                                    PolygonConstraintStats* stats = nullptr) {
  std::vector<PolygonConstraint> out;
  MakePolygonConstraints(model, a, b, {}, options, &out, stats);
  return out;
}

// The paper's Fig. 5: A's corner v = A's vertex 0 sits d out along the bisector of B's corner
// w = B's vertex 2 = (0.5, 0.5). B's edge 1 (right, eta = +x) runs into w, edge 2 (top, eta = +y)
// out of it; A's edge 3 (left, eta = -x) runs into v, edge 0 (bottom, eta = -y) out of it.
//   c1 = (v, B edge 1): n = (-1, 0), psi = d      c2 = (v, B edge 2): n = (0, -1), psi = d
//   c3 = (w, A edge 3): n = (+1, 0), psi = d      c4 = (w, A edge 0): n = (0, +1), psi = d
// all with APPL 0 (applicable at eps_theta = -0.2).
class CornerOnCornerTest : public ::testing::Test {
 protected:
  static constexpr double kD = 0.002;
  const Points2 b_ = Square(0.5, {0, 0});
  const Points2 a_ = Square(0.5, {1 + kD, 1 + kD});
};

TEST_F(CornerOnCornerTest, StandardModelMakesFourUnilateralConstraints) {
  PolygonConstraintStats stats;
  const auto cs = Make(PolygonContactModel::kStandard, a_, b_, Options(0.004), &stats);
  ASSERT_EQ(cs.size(), 4u);
  for (const PolygonConstraint& c : cs) {
    EXPECT_EQ(c.rule, PolygonConstraintRule::kUnilateral);
    EXPECT_TRUE(c.secondaries.empty());
    EXPECT_NEAR(c.primary.gap_m, kD, kTol);
  }
  EXPECT_EQ(stats.unilateral, 4);
  EXPECT_EQ(stats.feasible_candidates, 4);
}

TEST_F(CornerOnCornerTest, PegMakesTwoIntercontactAndTwoCrossContactConstraints) {
  PolygonConstraintStats stats;
  const auto cs = Make(PolygonContactModel::kPeg, a_, b_, Options(0.004), &stats);
  ASSERT_EQ(cs.size(), 4u);
  EXPECT_EQ(stats.unilateral, 0);
  EXPECT_EQ(stats.intercontact, 2);
  EXPECT_EQ(stats.cross_contact, 2);
  EXPECT_EQ(stats.vertex_vertex, 1);  // seen from v and from w, made once
  // I(c1, c2): both applicable, gaps equal and positive: the first (c1) stays primary.
  const PolygonConstraint& i12 = cs[0];
  EXPECT_EQ(i12.rule, PolygonConstraintRule::kIntercontact);
  EXPECT_EQ(i12.primary.body1, 0);
  EXPECT_EQ(i12.primary.vertex1, 0);
  EXPECT_EQ(i12.primary.edge2, 1);
  ASSERT_EQ(i12.secondaries.size(), 1u);
  EXPECT_EQ(i12.secondaries[0].edge2, 2);
  EXPECT_TRUE(i12.secondaries[0].normal_W.isApprox(Vec2(0, -1), kTol));
  // I(c3, c4): w's contacts, body1 = B.
  const PolygonConstraint& i34 = cs[1];
  EXPECT_EQ(i34.primary.body1, 1);
  EXPECT_EQ(i34.primary.vertex1, 2);
  EXPECT_EQ(i34.primary.edge2, 3);
  EXPECT_TRUE(i34.primary.normal_W.isApprox(Vec2(1, 0), kTol));
  EXPECT_EQ(i34.secondaries[0].edge2, 0);
  // X(c1, c4) as I: primary c1 (A -> B); c4 flipped into A's order: its point moves from w to
  // w + d (0, 1), on A's bottom edge, its normal turns to (0, -1) (from A into B), gap kept.
  const PolygonConstraint& x14 = cs[2];
  EXPECT_EQ(x14.rule, PolygonConstraintRule::kCrossContact);
  EXPECT_EQ(x14.primary.body1, 0);
  EXPECT_EQ(x14.primary.edge2, 1);
  ASSERT_EQ(x14.secondaries.size(), 1u);
  const PolygonContact& s4 = x14.secondaries[0];
  EXPECT_EQ(s4.body1, 0);
  EXPECT_TRUE(s4.point1_W.isApprox(Vec2(0.5, 0.5 + kD), kTol));
  EXPECT_TRUE(s4.normal_W.isApprox(Vec2(0, -1), kTol));
  EXPECT_NEAR(s4.gap_m, kD, kTol);
  // X(c2, c3): c3 flipped: point w + d (1, 0) on A's left edge, normal (-1, 0).
  const PolygonContact& s3 = cs[3].secondaries[0];
  EXPECT_EQ(cs[3].primary.edge2, 2);
  EXPECT_EQ(s3.body1, 0);
  EXPECT_TRUE(s3.point1_W.isApprox(Vec2(0.5 + kD, 0.5), kTol));
  EXPECT_TRUE(s3.normal_W.isApprox(Vec2(-1, 0), kTol));
}

TEST_F(CornerOnCornerTest, SwappedArgumentsGiveTheSameSetFromTheOtherSide) {
  const auto cs = Make(PolygonContactModel::kPeg, b_, a_, Options(0.004));
  ASSERT_EQ(cs.size(), 4u);
  for (const PolygonConstraint& c : cs) {
    ASSERT_EQ(c.secondaries.size(), 1u);
    EXPECT_EQ(c.secondaries[0].body1, c.primary.body1);
  }
}

TEST(PolygonConstraints2dTest, DeepPrimaryIsSwappedForTheShallowContact) {
  // A's corner v = w + (-3 mm, +0.5 mm): 3 mm left of B's right edge line (psi_1 = -3 mm, below
  // -1 mm) and 0.5 mm above its top edge (psi_2 = +0.5 mm), both applicable (APPL 0): the
  // heuristic makes c2 (the top edge) the primary.
  const Points2 b = Square(0.5, {0, 0});
  const Points2 a = Square(0.5, {1 - 0.003, 1 + 0.0005});
  const auto cs = Make(PolygonContactModel::kPeg, a, b, Options(0.004));
  ASSERT_FALSE(cs.empty());
  const PolygonConstraint& i12 = cs[0];
  EXPECT_EQ(i12.rule, PolygonConstraintRule::kIntercontact);
  EXPECT_EQ(i12.primary.edge2, 2);  // top
  EXPECT_NEAR(i12.primary.gap_m, 0.0005, kTol);
  EXPECT_NEAR(i12.secondaries[0].gap_m, -0.003, kTol);
}

TEST(PolygonConstraints2dTest, VertexOnAnEdgeIsOneUnilateralConstraintInBothModels) {
  // A triangle's tip 0.5 mm above the middle of B's top edge: the only candidate within 4 mm.
  Points2 tri(3, 2);
  tri << 0, 0.5005, 0.1, 0.7, -0.1, 0.7;
  const Points2 b = Square(0.5, {0, 0});
  for (PolygonContactModel model : {PolygonContactModel::kStandard, PolygonContactModel::kPeg}) {
    const auto cs = Make(model, tri, b, Options(0.004));
    ASSERT_EQ(cs.size(), 1u);
    EXPECT_EQ(cs[0].rule, PolygonConstraintRule::kUnilateral);
    EXPECT_TRUE(cs[0].secondaries.empty());
    EXPECT_EQ(cs[0].primary.edge2, 2);
    EXPECT_NEAR(cs[0].primary.gap_m, 0.0005, kTol);
    EXPECT_TRUE(cs[0].primary.normal_W.isApprox(Vec2(0, -1), kTol));
  }
}

TEST(PolygonConstraints2dTest, InapplicableContactOfACornerBecomesTheSecondary) {
  // A triangle whose tip v sits 1 mm straight above B's corner w = (0.5, 0.5), its sides going
  // up-left: against B's top edge (eta = +y) APPL = min(0.6, 0.8) > 0, against B's right edge
  // (eta = +x) APPL = min(-0.8, -0.6) < -0.2. So I(c1, c2) has the top edge (c2) as primary and
  // the right edge (c1) as secondary; the standard model with the applicability test keeps c2
  // alone among v's contacts, without it both.
  Points2 tri(3, 2);
  const Vec2 v(0.5, 0.501);
  tri.row(0) = v.transpose();
  tri.row(1) = (v + Vec2(-0.06, 0.08)).transpose();  // direction (-0.6, 0.8)
  tri.row(2) = (v + Vec2(-0.08, 0.06)).transpose();  // direction (-0.8, 0.6)
  ASSERT_GT(SignedArea(tri), 0.0);
  const Points2 b = Square(0.5, {0, 0});
  const auto cs = Make(PolygonContactModel::kPeg, tri, b, Options(0.004));
  bool found = false;
  for (const PolygonConstraint& c : cs) {
    if (c.rule != PolygonConstraintRule::kIntercontact || c.primary.body1 != 0) continue;
    found = true;
    EXPECT_EQ(c.primary.edge2, 2);
    EXPECT_GT(c.primary.applicability, 0.0);
    ASSERT_EQ(c.secondaries.size(), 1u);
    EXPECT_EQ(c.secondaries[0].edge2, 1);
    EXPECT_LT(c.secondaries[0].applicability, -0.2);
  }
  EXPECT_TRUE(found);
  PolygonConstraintOptions applicable_only = Options(0.004);
  applicable_only.standard_requires_applicability = true;
  for (const PolygonConstraint& c : Make(PolygonContactModel::kStandard, tri, b, applicable_only)) {
    if (c.primary.body1 == 0) {
      EXPECT_EQ(c.primary.edge2, 2);
    }
  }
  int v_contacts = 0;
  for (const PolygonConstraint& c : Make(PolygonContactModel::kStandard, tri, b, Options(0.004))) {
    v_contacts += c.primary.body1 == 0 ? 1 : 0;
  }
  EXPECT_EQ(v_contacts, 2);
}

TEST(PolygonConstraints2dTest, PredictedConfigurationMakesAFarVertexFeasible) {
  // The tip is 5 mm above the edge now (beyond max_gap 2 mm) and 0.5 mm at the predicted
  // configuration: feasible, with the current gap.
  Points2 tri(3, 2);
  tri << 0, 0.505, 0.1, 0.7, -0.1, 0.7;
  Points2 predicted = tri;
  predicted.col(1).array() -= 0.0045;
  const Points2 b = Square(0.5, {0, 0});
  std::vector<PolygonConstraint> out;
  MakePolygonConstraints(PolygonContactModel::kPeg, tri, b, {}, Options(0.002), &out);
  EXPECT_TRUE(out.empty());
  const PolygonPrediction at_end[] = {{&predicted, &b}};
  MakePolygonConstraints(PolygonContactModel::kPeg, tri, b, at_end, Options(0.002), &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].primary.gap_m, 0.005, kTol);
}

}  // namespace
}  // namespace contactsim::core
