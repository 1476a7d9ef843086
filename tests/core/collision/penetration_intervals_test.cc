// Penetration depth and penetration time intervals (core/collision/ccd/penetration_intervals.h).
#include "core/collision/ccd/penetration_intervals.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/collision/ccd/vertex_face.h"
#include "scenes/testbeds/ccd_random_generators.h"
#include "scenes/testbeds/ccd_reference.h"

namespace contactsim::core {
namespace {

using testing::MakeTrajectory;
using testing::ReferencePosition;

// Interval ends are simple cubic roots, found to ~1e-15; 1e-12 is generous.
constexpr double kTimeAccuracy = 1e-12;

const Vec3 kA(0.0, 0.0, 0.0), kB(1.0, 0.0, 0.0), kC(0.0, 1.0, 0.0);

// As in contact_times_test.cc: a static vertex (0.3, 0.1, z_p) and a sliding, tilting triangle
// whose plane is z = k (1 - 2t)(x - s(t)); the vertex is on it when
// 1.4 t^2 - 0.5 t + (z_p / k - 0.1) = 0, always inside the triangle.
PairTrajectory TiltingTriangle(double z_p, double k) {
  const Vec3 p(0.3, 0.1, z_p);
  return MakeTrajectory({p, Vec3(0.2, 0.0, 0.0), Vec3(1.2, 0.0, k), Vec3(0.2, 1.0, 0.0)},
                        {p, Vec3(-0.5, 0.0, 0.0), Vec3(0.5, 0.0, -k), Vec3(-0.5, 1.0, 0.0)});
}

TEST(PenetrationDepthTest, DoesNotDependOnTheCollisionPointWeights) {
  // delta(t) = n(t) . (p(t) - q(t)) for any fixed weights equals the cubic (the in-plane part
  // drops out). Unit-scale inputs: agreement to 1e-12 leaves room for rounding.
  testing::TrajectoryGenerator generator(3);
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 2000; ++trial) {
    const PairTrajectory x = generator.Generic();
    const CubicPolynomial vf = VertexFacePenetrationDepth(x);
    const CubicPolynomial ee = EdgeEdgePenetrationDepth(x);
    double wb = unit(rng), wc = unit(rng);
    if (wb + wc > 1.0) {
      wb = 1.0 - wb;
      wc = 1.0 - wc;
    }
    const double s = unit(rng), u = unit(rng);
    for (double t : {0.0, 0.37, 1.0}) {
      const Vec3 p = ReferencePosition(x, 0, t), a = ReferencePosition(x, 1, t);
      const Vec3 b = ReferencePosition(x, 2, t), c = ReferencePosition(x, 3, t);
      const Vec3 q = (1.0 - wb - wc) * a + wb * b + wc * c;
      EXPECT_NEAR(vf.Evaluate(t), (b - a).cross(c - a).dot(p - q), 1e-12);
      // EE {a, b, c, d} = points 0..3: p on (a, b), q on (c, d), n = (b - a) x (d - c).
      const Vec3 on_ab = (1.0 - s) * p + s * a;
      const Vec3 on_cd = (1.0 - u) * b + u * c;
      EXPECT_NEAR(ee.Evaluate(t), (a - p).cross(c - b).dot(on_ab - on_cd), 1e-12);
    }
  }
}

TEST(PenetrationIntervalsTest, VertexFallingThroughTheFace) {
  // From above (delta > 0 before the contact at t = 0.4): penetrating means delta < 0.
  const PairTrajectory x =
      MakeTrajectory({Vec3(0.2, 0.3, 0.4), kA, kB, kC}, {Vec3(0.2, 0.3, -0.6), kA, kB, kC});
  const CcdResult ccd = VertexFaceCcd(x);
  ASSERT_TRUE(ccd.collides);
  const double sign = VertexFacePenetratingSign(x, ccd.toi);
  EXPECT_EQ(sign, -1.0);
  const PenetrationIntervals intervals = VertexFacePenetrationIntervals(x, sign, ccd.toi);
  ASSERT_EQ(intervals.count, 1);
  EXPECT_NEAR(intervals.intervals[0].t_a, 0.4, kTimeAccuracy);
  EXPECT_EQ(intervals.intervals[0].t_b, 1.0);
  // The same pair tracked into the step from below it: penetrating over [0, 0.4].
  const PenetrationIntervals tracked = VertexFacePenetrationIntervals(x, +1.0);
  ASSERT_EQ(tracked.count, 1);
  EXPECT_EQ(tracked.intervals[0].t_a, 0.0);
  EXPECT_NEAR(tracked.intervals[0].t_b, 0.4, kTimeAccuracy);
}

TEST(PenetrationIntervalsTest, InAndOutAgain) {
  // z_p = 0.12, k = 1: the plane rises through the vertex at t' and falls back at t''
  // (Fig. 3a with one interval): penetrating over [t', t''].
  const double root = std::sqrt(0.25 - 4.0 * 1.4 * 0.02);
  const double t1 = (0.5 - root) / 2.8, t2 = (0.5 + root) / 2.8;
  const PairTrajectory x = TiltingTriangle(0.12, 1.0);
  const CcdResult ccd = VertexFaceCcd(x);
  ASSERT_TRUE(ccd.collides);
  EXPECT_LE(ccd.toi, t1);
  const double sign = VertexFacePenetratingSign(x, ccd.toi);
  const PenetrationIntervals intervals = VertexFacePenetrationIntervals(x, sign, ccd.toi);
  ASSERT_EQ(intervals.count, 1);
  EXPECT_NEAR(intervals.intervals[0].t_a, t1, kTimeAccuracy);
  EXPECT_NEAR(intervals.intervals[0].t_b, t2, kTimeAccuracy);
}

TEST(PenetrationIntervalsTest, PenetratingAtTheStartOfTheStep) {
  // k = -1, z_p = -0.12: delta < 0 on [0, t') and (t'', 1] (Fig. 3b). A pair tracked from the
  // previous step with the penetrating side delta < 0 gets two intervals.
  const double root = std::sqrt(0.25 - 4.0 * 1.4 * 0.02);
  const double t1 = (0.5 - root) / 2.8, t2 = (0.5 + root) / 2.8;
  const PairTrajectory x = TiltingTriangle(-0.12, -1.0);
  const CubicPolynomial depth = VertexFacePenetrationDepth(x);
  ASSERT_LT(depth.Evaluate(0.0), 0.0);
  const PenetrationIntervals intervals = VertexFacePenetrationIntervals(x, -1.0);
  ASSERT_EQ(intervals.count, 2);
  EXPECT_EQ(intervals.intervals[0].t_a, 0.0);
  EXPECT_NEAR(intervals.intervals[0].t_b, t1, kTimeAccuracy);
  EXPECT_NEAR(intervals.intervals[1].t_a, t2, kTimeAccuracy);
  EXPECT_EQ(intervals.intervals[1].t_b, 1.0);
  // Starting the intervals later clips them.
  const PenetrationIntervals clipped = VertexFacePenetrationIntervals(x, -1.0, 0.5 * (t1 + t2));
  ASSERT_EQ(clipped.count, 1);
  EXPECT_NEAR(clipped.intervals[0].t_a, t2, kTimeAccuracy);
}

TEST(PenetrationIntervalsTest, ThreeRootsGiveTwoIntervals) {
  // delta = (t - 0.2)(t - 0.5)(t - 0.8).
  CubicPolynomial depth;
  depth.c = {-0.08, 0.66, -1.5, 1.0};
  const PenetrationIntervals positive = PenetrationIntervalsOf(depth, +1.0);
  ASSERT_EQ(positive.count, 2);
  EXPECT_NEAR(positive.intervals[0].t_a, 0.2, kTimeAccuracy);
  EXPECT_NEAR(positive.intervals[0].t_b, 0.5, kTimeAccuracy);
  EXPECT_NEAR(positive.intervals[1].t_a, 0.8, kTimeAccuracy);
  EXPECT_EQ(positive.intervals[1].t_b, 1.0);
  const PenetrationIntervals negative = PenetrationIntervalsOf(depth, -1.0);
  ASSERT_EQ(negative.count, 2);
  EXPECT_EQ(negative.intervals[0].t_a, 0.0);
  EXPECT_NEAR(negative.intervals[0].t_b, 0.2, kTimeAccuracy);
  EXPECT_NEAR(negative.intervals[1].t_a, 0.5, kTimeAccuracy);
  EXPECT_NEAR(negative.intervals[1].t_b, 0.8, kTimeAccuracy);
  // The side chosen at a contact at 0.5 (delta goes from + to -) penetrates where delta < 0.
  EXPECT_EQ(PenetratingSign(depth, 0.5), -1.0);
}

TEST(PenetrationIntervalsTest, GrazingAndCoplanarPairsDoNotPenetrate) {
  // delta = (t - 0.5)^2: touches at 0.5 and leaves; the side it came from is delta > 0.
  CubicPolynomial grazing;
  grazing.c = {0.25, -1.0, 1.0, 0.0};
  const double sign = PenetratingSign(grazing, 0.5);
  EXPECT_EQ(sign, -1.0);
  EXPECT_EQ(PenetrationIntervalsOf(grazing, sign).count, 0);
  // Coplanar motion: delta = 0 for all t.
  const PairTrajectory coplanar =
      MakeTrajectory({Vec3(-1.0, 0.25, 0.0), kA, kB, kC}, {Vec3(1.0, 0.25, 0.0), kA, kB, kC});
  EXPECT_EQ(VertexFacePenetratingSign(coplanar, 0.5), 0.0);
  EXPECT_EQ(VertexFacePenetrationIntervals(coplanar, 1.0).count, 0);
}

TEST(PenetrationIntervalsTest, EdgesCrossing) {
  // Edge 1 descends through edge 0 at t = 0.7: delta = n . (p - q) with n = (b - a) x (d - c).
  const Vec3 a(-1.0, 0.0, 0.0), b(1.0, 0.0, 0.0);
  const PairTrajectory x = MakeTrajectory({a, b, Vec3(0.3, -1.0, 0.7), Vec3(0.3, 1.0, 0.7)},
                                          {a, b, Vec3(0.3, -1.0, -0.3), Vec3(0.3, 1.0, -0.3)});
  const double sign = EdgeEdgePenetratingSign(x, 0.7);
  // n = (2, 0, 0) x (0, 2, 0) = (0, 0, 4); before the contact p - q points down (-z): delta < 0,
  // so penetrating is delta > 0.
  EXPECT_EQ(sign, 1.0);
  const PenetrationIntervals intervals = EdgeEdgePenetrationIntervals(x, sign, 0.7);
  ASSERT_EQ(intervals.count, 1);
  EXPECT_NEAR(intervals.intervals[0].t_a, 0.7, kTimeAccuracy);
  EXPECT_EQ(intervals.intervals[0].t_b, 1.0);
}

}  // namespace
}  // namespace contactsim::core
