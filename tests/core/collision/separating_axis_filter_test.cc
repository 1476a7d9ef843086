// The separating-axis filter (core/collision/ccd/separating_axis_filter.h): it must prove
// separation for pairs that stay apart along one fixed axis, and never for pairs that come within
// the separation (checked against exact contacts in ccd_exact_families_test.cc and against the
// dense reference through VertexFaceCcd / EdgeEdgeCcd in the property test).
#include "core/collision/ccd/separating_axis_filter.h"

#include <gtest/gtest.h>

#include <limits>

#include "scenes/testbeds/ccd_reference.h"

namespace contactsim::core {
namespace {

using testing::MakeTrajectory;

const Vec3 kA(0.0, 0.0, 0.0), kB(1.0, 0.0, 0.0), kC(0.0, 1.0, 0.0);

TEST(SeparatingAxisFilterTest, VertexSlidingAboveATiltedTriangle) {
  // A triangle tilted out of every coordinate plane, the vertex sliding parallel to it at
  // height h along its normal: only the normal axis separates (h = 0.05 > d = 0.01), and not
  // once d >= h.
  const Vec3 a(0.0, 0.0, 0.0), b(1.0, 0.5, 0.2), c(0.1, 1.0, 0.6);
  const Vec3 n = (b - a).cross(c - a).normalized();
  const Vec3 along = (b - a).normalized();
  const Vec3 p0 = 0.3 * (b - a) + 0.3 * (c - a) + 0.05 * n;
  const PairTrajectory x = MakeTrajectory({p0, a, b, c}, {p0 + 0.2 * along, a, b, c});
  EXPECT_TRUE(VertexFaceSeparatedOnFixedAxis(x, 0.01));
  EXPECT_FALSE(VertexFaceSeparatedOnFixedAxis(x, 0.06));
}

TEST(SeparatingAxisFilterTest, VertexBesideAnEdgeInThePlane) {
  // Coplanar motion beside edge ab (y = -0.1): separated along the in-plane edge normal only.
  const PairTrajectory x =
      MakeTrajectory({Vec3(-0.5, -0.1, 0.0), kA, kB, kC}, {Vec3(1.5, -0.1, 0.0), kA, kB, kC});
  EXPECT_TRUE(VertexFaceSeparatedOnFixedAxis(x, 0.05));
  EXPECT_FALSE(VertexFaceSeparatedOnFixedAxis(x, 0.1));
}

TEST(SeparatingAxisFilterTest, ParallelEdges) {
  // Parallel edges 0.1 apart sliding along each other: e0 x n vanishes, the offset axis
  // e0 x ((c - a) x e0) separates them.
  const Vec3 a(0.0, 0.0, 0.0), b(1.0, 0.0, 0.0);
  const PairTrajectory x = MakeTrajectory({a, b, Vec3(2.0, 0.1, 0.0), Vec3(3.0, 0.1, 0.0)},
                                          {a, b, Vec3(-3.0, 0.1, 0.0), Vec3(-2.0, 0.1, 0.0)});
  EXPECT_TRUE(EdgeEdgeSeparatedOnFixedAxis(x, 0.0));
  EXPECT_TRUE(EdgeEdgeSeparatedOnFixedAxis(x, 0.09));
  EXPECT_FALSE(EdgeEdgeSeparatedOnFixedAxis(x, 0.11));
}

TEST(SeparatingAxisFilterTest, NothingIsProvedForCrossingsOrBadInput) {
  EXPECT_FALSE(VertexFaceSeparatedOnFixedAxis(
      MakeTrajectory({Vec3(0.2, 0.2, 1.0), kA, kB, kC}, {Vec3(0.2, 0.2, -1.0), kA, kB, kC}), 0.0));
  PairTrajectory far =
      MakeTrajectory({Vec3(5.0, 5.0, 5.0), kA, kB, kC}, {Vec3(6.0, 6.0, 6.0), kA, kB, kC});
  EXPECT_TRUE(VertexFaceSeparatedOnFixedAxis(far, 0.0));
  far.x_t1[1].x() = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(VertexFaceSeparatedOnFixedAxis(far, 0.0));
  far.x_t1[1].x() = 0.0;
  EXPECT_FALSE(VertexFaceSeparatedOnFixedAxis(far, -1.0));
}

}  // namespace
}  // namespace contactsim::core
