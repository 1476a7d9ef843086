// Analytic cases for EdgeEdgeCcd: crossing, parallel, collinear, coplanar and zero-length edges
// with contact times known in closed form. Each case runs as the full query and as the root finder
// alone (without the separating-axis filter), so the root finder's own exclusion is exercised too.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/collision/ccd/edge_edge.h"
#include "core/collision/ccd/inclusion_root_finder.h"
#include "scenes/testbeds/ccd_reference.h"

namespace contactsim::core {
namespace {

using testing::MakeTrajectory;

// Parameter: true runs the full query (filter, then root finder); false the root finder alone,
// so that its own exclusion is exercised.
class EdgeEdgeCcdTest : public ::testing::TestWithParam<bool> {
 protected:
  // The query under test. None of these small analytic cases may need the iteration cap.
  CcdResult Ee(const PairTrajectory& trajectory, const CcdOptions& options) const {
    const CcdResult result = GetParam()
                                 ? EdgeEdgeCcd(trajectory, options)
                                 : internal::InclusionTimeOfImpact(
                                       internal::InclusionPairKind::kEdgeEdge, trajectory, options);
    EXPECT_NE(result.status, CcdStatus::kMaxIterationsReached) << "boxes " << result.iterations;
    return result;
  }

  CcdOptions Options(double d = 0.0) const {
    CcdOptions options;
    options.min_separation_m = d;
    return options;
  }
};

// A reported toi may precede the analytic one by the time the gap needs to close
// 2 (tolerance + 2 eps) at the closing speed (inclusion_root_finder.h); eps ~ 1e-14 here.
double Slack(const CcdOptions& options, double closing_speed_m) {
  return 2.0 * (options.tolerance_m + 1e-13) / closing_speed_m;
}

// Edge 0 static from (-1, 0, 0) to (1, 0, 0); edge 1 parallel to y through (x1, ., z), with
// z(t) = 2 (t_star - t): the edges cross at t_star when |x1| <= 1.
PairTrajectory CrossingAt(double x1, double t_star) {
  const Vec3 a(-1.0, 0.0, 0.0), b(1.0, 0.0, 0.0);
  return MakeTrajectory(
      {a, b, Vec3(x1, -1.0, 2.0 * t_star), Vec3(x1, 1.0, 2.0 * t_star)},
      {a, b, Vec3(x1, -1.0, 2.0 * (t_star - 1.0)), Vec3(x1, 1.0, 2.0 * (t_star - 1.0))});
}

TEST_P(EdgeEdgeCcdTest, CrossingEdgesAtKnownTimes) {
  for (double t_star : {0.0, 0.2, 0.5, 0.73, 1.0}) {
    for (double x1 : {-0.6, 0.0, 0.3}) {
      const CcdOptions options = Options();
      const CcdResult result = Ee(CrossingAt(x1, t_star), options);
      ASSERT_TRUE(result.collides) << "t* = " << t_star << " x1 = " << x1;
      EXPECT_EQ(result.status, CcdStatus::kOk);
      EXPECT_LE(result.toi, t_star);
      EXPECT_GE(result.toi, t_star - Slack(options, 2.0));
      // Contact at (x1, 0, 0): s = (x1 + 1) / 2 on edge 0, u = 1/2 on edge 1.
      EXPECT_NEAR(result.weights[0], 0.5 * (x1 + 1.0), 1e-5);
      EXPECT_NEAR(result.weights[1], 0.5, 1e-5);
    }
  }
}

TEST_P(EdgeEdgeCcdTest, MissesBeyondTheEndOfAnEdge) {
  // Closest approach 0.5 m (edge 1 at x = 1.5 passes beyond b = (1, 0, 0)).
  EXPECT_FALSE(Ee(CrossingAt(1.5, 0.5), Options()).collides);
  // Skew edges that cross in projection but stay 0.5 m apart in z.
  const Vec3 a(-1.0, 0.0, 0.0), b(1.0, 0.0, 0.0);
  const PairTrajectory skew = MakeTrajectory({a, b, Vec3(-2.0, -1.0, 0.5), Vec3(-2.0, 1.0, 0.5)},
                                             {a, b, Vec3(2.0, -1.0, 0.5), Vec3(2.0, 1.0, 0.5)});
  EXPECT_FALSE(Ee(skew, Options()).collides);
}

TEST_P(EdgeEdgeCcdTest, ParallelEdgesSlidingPast) {
  // Edge 0 from (0,0,0) to (1,0,0); edge 1 parallel at y = 0.1 from x in [2, 3] to x in [-3, -2]
  // (speed 5): always 0.1 m apart where they overlap in x.
  const Vec3 a(0.0, 0.0, 0.0), b(1.0, 0.0, 0.0);
  const PairTrajectory trajectory =
      MakeTrajectory({a, b, Vec3(2.0, 0.1, 0.0), Vec3(3.0, 0.1, 0.0)},
                     {a, b, Vec3(-3.0, 0.1, 0.0), Vec3(-2.0, 0.1, 0.0)});
  EXPECT_FALSE(Ee(trajectory, Options()).collides);
  EXPECT_FALSE(Ee(trajectory, Options(0.05)).collides);
  // With d = 0.2 the gap between c and b, g(t) = sqrt((2 - 5t - 1)^2 + 0.1^2), reaches d at
  // t_d = (1 - sqrt(0.03)) / 5. The gap (dx, 0.1, 0) is not along a test direction of the
  // polytope (inclusion_root_finder.h), so toi may be as early as the time g = 1.24 d.
  const CcdOptions options = Options(0.2);
  const double t_d = (1.0 - std::sqrt(0.03)) / 5.0;
  const double reach = 1.2395 * 0.2;
  const double t_reach = (1.0 - std::sqrt(reach * reach - 0.01)) / 5.0;
  const CcdResult result = Ee(trajectory, options);
  ASSERT_TRUE(result.collides);
  EXPECT_LE(result.toi, t_d);
  // The gap closes at no more than 5 m per unit t.
  EXPECT_GE(result.toi, t_reach - Slack(options, 5.0));
}

TEST_P(EdgeEdgeCcdTest, CollinearEdges) {
  // Same line: edge 1 from x in [2, 3] to x in [-3, -2] touches b = (1, 0, 0) at t = 0.2.
  const Vec3 a(0.0, 0.0, 0.0), b(1.0, 0.0, 0.0);
  const CcdOptions options = Options();
  const CcdResult sliding = Ee(MakeTrajectory({a, b, Vec3(2.0, 0.0, 0.0), Vec3(3.0, 0.0, 0.0)},
                                              {a, b, Vec3(-3.0, 0.0, 0.0), Vec3(-2.0, 0.0, 0.0)}),
                               options);
  ASSERT_TRUE(sliding.collides);
  EXPECT_LE(sliding.toi, 0.2);
  EXPECT_GE(sliding.toi, 0.2 - Slack(options, 5.0));
  // Already overlapping at t = 0.
  const CcdResult overlapping = Ee(MakeTrajectory({a, b, Vec3(0.5, 0.0, 0.0), Vec3(1.5, 0.0, 0.0)},
                                                  {a, b, Vec3(0.5, 0.0, 1.0), Vec3(1.5, 0.0, 1.0)}),
                                   options);
  ASSERT_TRUE(overlapping.collides);
  EXPECT_EQ(overlapping.toi, 0.0);
  // Collinear but never overlapping: edge 1 moves from [2, 3] to [1.5, 2.5].
  EXPECT_FALSE(Ee(MakeTrajectory({a, b, Vec3(2.0, 0.0, 0.0), Vec3(3.0, 0.0, 0.0)},
                                 {a, b, Vec3(1.5, 0.0, 0.0), Vec3(2.5, 0.0, 0.0)}),
                  options)
                   .collides);
}

TEST_P(EdgeEdgeCcdTest, CoplanarMotion) {
  // Everything in z = 0: edge 1 is vertical at x = 0.5, y in [1 - 4t, 2 - 4t]; it reaches edge 0
  // (y = 0) at t = 0.25.
  const Vec3 a(-1.0, 0.0, 0.0), b(1.0, 0.0, 0.0);
  const CcdOptions options = Options();
  const CcdResult result = Ee(MakeTrajectory({a, b, Vec3(0.5, 1.0, 0.0), Vec3(0.5, 2.0, 0.0)},
                                             {a, b, Vec3(0.5, -3.0, 0.0), Vec3(0.5, -2.0, 0.0)}),
                              options);
  ASSERT_TRUE(result.collides);
  EXPECT_LE(result.toi, 0.25);
  EXPECT_GE(result.toi, 0.25 - Slack(options, 4.0));
  // The same motion at x = 1.5, beyond b: 0.5 m away at closest.
  EXPECT_FALSE(Ee(MakeTrajectory({a, b, Vec3(1.5, 1.0, 0.0), Vec3(1.5, 2.0, 0.0)},
                                 {a, b, Vec3(1.5, -3.0, 0.0), Vec3(1.5, -2.0, 0.0)}),
                  options)
                   .collides);
}

TEST_P(EdgeEdgeCcdTest, TouchingAtTheEndsOfTheStep) {
  const CcdOptions options = Options();
  // Crossing exactly at t = 0 and at t = 1 (CrossingAt covers t* = 0 and 1 through the middle
  // of the edges); here endpoint-to-endpoint: c = b at t = 0, then c = b at t = 1.
  const Vec3 a(0.0, 0.0, 0.0), b(1.0, 0.0, 0.0);
  const CcdResult start = Ee(MakeTrajectory({a, b, b, Vec3(1.0, 1.0, 0.0)},
                                            {a, b, Vec3(1.0, 0.0, 1.0), Vec3(1.0, 1.0, 1.0)}),
                             options);
  ASSERT_TRUE(start.collides);
  EXPECT_EQ(start.toi, 0.0);
  const CcdResult end = Ee(MakeTrajectory({a, b, Vec3(1.0, 0.0, 1.0), Vec3(1.0, 1.0, 1.0)},
                                          {a, b, b, Vec3(1.0, 1.0, 0.0)}),
                           options);
  ASSERT_TRUE(end.collides);
  EXPECT_GE(end.toi, 1.0 - Slack(options, 1.0));
}

TEST_P(EdgeEdgeCcdTest, ZeroLengthEdges) {
  const CcdOptions options = Options();
  // Edge 0 is the point (0.3, 0, 0); edge 1 sweeps through it at t = 0.5.
  const Vec3 point(0.3, 0.0, 0.0);
  const PairTrajectory through =
      MakeTrajectory({point, point, Vec3(0.0, 0.0, 1.0), Vec3(1.0, 0.0, 1.0)},
                     {point, point, Vec3(0.0, 0.0, -1.0), Vec3(1.0, 0.0, -1.0)});
  const CcdResult hit = Ee(through, options);
  ASSERT_TRUE(hit.collides);
  EXPECT_LE(hit.toi, 0.5);
  EXPECT_GE(hit.toi, 0.5 - Slack(options, 2.0));
  const Vec3 beside(1.3, 0.0, 0.0);
  EXPECT_FALSE(Ee(MakeTrajectory({beside, beside, Vec3(0.0, 0.0, 1.0), Vec3(1.0, 0.0, 1.0)},
                                 {beside, beside, Vec3(0.0, 0.0, -1.0), Vec3(1.0, 0.0, -1.0)}),
                  options)
                   .collides);
  // Two points passing exactly through each other at t = 0.25.
  const PairTrajectory points = MakeTrajectory(
      {Vec3(0.0, 0.0, 0.0), Vec3(0.0, 0.0, 0.0), Vec3(1.0, 1.0, 1.0), Vec3(1.0, 1.0, 1.0)},
      {Vec3(0.0, 0.0, 0.0), Vec3(0.0, 0.0, 0.0), Vec3(-3.0, -3.0, -3.0), Vec3(-3.0, -3.0, -3.0)});
  const CcdResult point_hit = Ee(points, options);
  ASSERT_TRUE(point_hit.collides);
  EXPECT_LE(point_hit.toi, 0.25);
  EXPECT_GE(point_hit.toi, 0.25 - Slack(options, 4.0 * std::sqrt(3.0)));
}

TEST_P(EdgeEdgeCcdTest, MinSeparationHitsWhenTheGapReachesIt) {
  // Edge 1 descends with z(t) = 1 - 2t over edge 0: the gap z reaches d = 0.05 at t = 0.475.
  const CcdOptions options = Options(0.05);
  const CcdResult result = Ee(CrossingAt(0.2, 0.5), options);
  ASSERT_TRUE(result.collides);
  EXPECT_LE(result.toi, 0.475);
  EXPECT_GE(result.toi, 0.475 - Slack(options, 2.0));
  // Passing beyond b at lateral distance 0.04 collides, at 0.2 does not.
  EXPECT_TRUE(Ee(CrossingAt(1.04, 0.5), options).collides);
  EXPECT_FALSE(Ee(CrossingAt(1.2, 0.5), options).collides);
}

INSTANTIATE_TEST_SUITE_P(FilterOnAndOff, EdgeEdgeCcdTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "WithFilter" : "RootFinderOnly";
                         });

TEST(EdgeEdgeCcdInputTest, InvalidInputIsReportedAndConservative) {
  PairTrajectory trajectory = CrossingAt(5.0, 0.5);
  trajectory.x_t0[3].x() = std::numeric_limits<double>::quiet_NaN();
  const CcdResult result = EdgeEdgeCcd(trajectory);
  EXPECT_EQ(result.status, CcdStatus::kInvalidInput);
  EXPECT_TRUE(result.collides);
  EXPECT_EQ(result.toi, 0.0);
  trajectory.x_t0[3].x() = 1e200;
  EXPECT_EQ(EdgeEdgeCcd(trajectory).status, CcdStatus::kInvalidInput);
}

}  // namespace
}  // namespace contactsim::core
