// 2D vertex–edge potential contacts (core/collision/polytope/polygon_contacts2d.h) on hand-placed
// squares and a triangle, the candidate sets worked out in the comments.
#include "core/collision/polytope/polygon_contacts2d.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

// Exactly representable coordinates and unit normals: 1e-12 m is rounding with a wide margin.
constexpr double kTol = 1e-12;

// Counter-clockwise: (-h, -h), (h, -h), (h, h), (-h, h), shifted.
Points2 Square(double half, const Vec2& centre) {
  Points2 p(4, 2);
  p << -half, -half, half, -half, half, half, -half, half;
  return p.rowwise() + centre.transpose();
}

std::vector<PolygonContact> Find(const Points2& a, const Points2& b,
                                 const PolygonContactOptions& options = {}) {
  std::vector<PolygonContact> out;
  FindPolygonContacts(a, b, options, &out);
  return out;
}

TEST(PolygonContacts2dTest, SquareOnSquareCornersOnCorners) {
  // A's two bottom corners lie on B's top edge at its ends (gap 0, APPL 0: one neighbour runs
  // along the edge, one away), and B's two top corners on A's bottom edge: 2 + 2, all
  // vertex–vertex. Against the side edges the corners have APPL -1 (a neighbour runs straight
  // into the body): not applicable.
  const auto contacts = Find(Square(0.5, {0, 1}), Square(0.5, {0, 0}));
  ASSERT_EQ(contacts.size(), 4u);
  for (const PolygonContact& c : contacts) {
    EXPECT_NEAR(c.gap_m, 0.0, kTol);
    EXPECT_NEAR(c.applicability, 0.0, kTol);
    EXPECT_EQ(c.configuration, PolygonConfiguration::kVertexVertex);
    EXPECT_TRUE(c.normal_W.isApprox(Vec2(0, c.body1 == 0 ? -1 : 1), kTol));
  }
  PolygonContactOptions all;
  all.include_inapplicable = true;
  EXPECT_EQ(Find(Square(0.5, {0, 1}), Square(0.5, {0, 0}), all).size(), 8u);
}

TEST(PolygonContacts2dTest, VertexEnteringACornerGivesThePapersFourContacts) {
  // The paper's Fig. 5: A's corner v 2 mm out along the bisector of B's corner w = (0.5, 0.5).
  // C1, C2 = v against B's top and right edges; C3, C4 = w against A's bottom and left edges.
  // All four have gap d and APPL 0 (applicable): the set the standard model over-constrains.
  const double d = 0.002;
  const Points2 b = Square(0.5, {0, 0});
  const Points2 a = Square(0.5, {1 + d, 1 + d});  // bottom-left corner (vertex 0) at w + (d, d)
  const auto contacts = Find(a, b);
  ASSERT_EQ(contacts.size(), 4u);
  int a_first = 0;
  for (const PolygonContact& c : contacts) {
    EXPECT_NEAR(c.gap_m, d, kTol);
    EXPECT_NEAR(c.distance_m, d * std::sqrt(2.0), kTol);
    EXPECT_NEAR(c.applicability, 0.0, kTol);
    EXPECT_TRUE(c.applicable);
    EXPECT_EQ(c.configuration, PolygonConfiguration::kVertexVertex);
    if (c.body1 == 0) {
      ++a_first;
      EXPECT_EQ(c.vertex1, 0);
      EXPECT_EQ(c.near_vertex2, 2);
      // B's edge 1 is the right edge (eta = +x), edge 2 the top edge (eta = +y).
      EXPECT_TRUE(c.normal_W.isApprox(c.edge2 == 1 ? Vec2(-1, 0) : Vec2(0, -1), kTol));
    } else {
      EXPECT_EQ(c.vertex1, 2);
      EXPECT_EQ(c.near_vertex2, 0);
    }
  }
  EXPECT_EQ(a_first, 2);
}

TEST(PolygonContacts2dTest, TipOverAnEdgeIsVertexEdge) {
  // A triangle's downward tip 3 mm above the middle of B's top edge: one vertex–edge candidate;
  // with max_gap_m 2 mm, none.
  Points2 tri(3, 2);
  tri << 0, 0.503, 0.1, 0.7, -0.1, 0.7;
  const Points2 b = Square(0.5, {0, 0});
  const auto contacts = Find(tri, b);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_EQ(contacts[0].configuration, PolygonConfiguration::kVertexEdge);
  EXPECT_EQ(contacts[0].edge2, 2);
  EXPECT_NEAR(contacts[0].gap_m, 0.003, kTol);
  PolygonContactOptions tight;
  tight.max_gap_m = 0.002;
  EXPECT_TRUE(Find(tri, b, tight).empty());
}

}  // namespace
}  // namespace contactsim::core
