// Analytic cases for VertexFaceCcd. The triangle is mostly the unit right triangle in z = 0,
// a = (0,0,0), b = (1,0,0), c = (0,1,0), and the vertex moves along straight lines whose contact
// times are known in closed form. Each case runs as the full query and as the root finder alone
// (without the separating-axis filter), so the root finder's own exclusion is exercised too.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/collision/ccd/ccd_penetration.h"
#include "core/collision/ccd/inclusion_root_finder.h"
#include "core/collision/ccd/vertex_face.h"
#include "scenes/testbeds/ccd_reference.h"

namespace contactsim::core {
namespace {

using testing::MakeTrajectory;

const Vec3 kA(0.0, 0.0, 0.0);
const Vec3 kB(1.0, 0.0, 0.0);
const Vec3 kC(0.0, 1.0, 0.0);

// Vertex from p0 to p1 against the static unit triangle.
PairTrajectory VertexMoving(const Vec3& p0, const Vec3& p1) {
  return MakeTrajectory({p0, kA, kB, kC}, {p1, kA, kB, kC});
}

// Parameter: true runs the full query (filter, then root finder); false the root finder alone,
// so that its own exclusion is exercised.
class VertexFaceCcdTest : public ::testing::TestWithParam<bool> {
 protected:
  // The query under test. None of these small analytic cases may need the iteration cap.
  CcdResult Vf(const PairTrajectory& trajectory, const CcdOptions& options) const {
    const CcdResult result =
        GetParam() ? VertexFaceCcd(trajectory, options)
                   : internal::InclusionTimeOfImpact(internal::InclusionPairKind::kVertexFace,
                                                     trajectory, options);
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

TEST_P(VertexFaceCcdTest, FallsThroughInteriorAtKnownTimes) {
  for (double t_star : {0.0, 0.1, 0.37, 0.5, 0.999, 1.0}) {
    // z(t) = 2 (t_star - t): crosses z = 0 at t_star with speed 2.
    const PairTrajectory trajectory =
        VertexMoving(Vec3(0.2, 0.3, 2.0 * t_star), Vec3(0.2, 0.3, 2.0 * (t_star - 1.0)));
    const CcdOptions options = Options();
    const CcdResult result = Vf(trajectory, options);
    ASSERT_TRUE(result.collides) << "t* = " << t_star;
    EXPECT_EQ(result.status, CcdStatus::kOk);
    EXPECT_LE(result.toi, t_star);
    EXPECT_GE(result.toi, t_star - Slack(options, 2.0));
    // Weights locate the point (0.2, 0.3) = 0.5 a + 0.2 b + 0.3 c to within the box size.
    EXPECT_NEAR(result.weights[0], 0.5, 1e-5);
    EXPECT_NEAR(result.weights[1], 0.2, 1e-5);
    EXPECT_NEAR(result.weights[2], 0.3, 1e-5);
  }
}

TEST_P(VertexFaceCcdTest, MovingTriangleHitsStaticVertex) {
  // Triangle rises from z = -1 to z = 3 (speed 4); the vertex sits at z = 1: contact t = 0.5.
  const Vec3 up(0.0, 0.0, 4.0);
  const Vec3 down(0.0, 0.0, -1.0);
  const PairTrajectory trajectory =
      MakeTrajectory({Vec3(0.25, 0.25, 1.0), kA + down, kB + down, kC + down},
                     {Vec3(0.25, 0.25, 1.0), kA + down + up, kB + down + up, kC + down + up});
  const CcdOptions options = Options();
  const CcdResult result = Vf(trajectory, options);
  ASSERT_TRUE(result.collides);
  EXPECT_LE(result.toi, 0.5);
  EXPECT_GE(result.toi, 0.5 - Slack(options, 4.0));
}

TEST_P(VertexFaceCcdTest, PassesBesideTheTriangle) {
  // Beyond the hypotenuse x + y = 1: the closest approach is sqrt(2) (1.5 - 1) / 2 ~ 0.35.
  EXPECT_FALSE(Vf(VertexMoving(Vec3(0.75, 0.75, 1.0), Vec3(0.75, 0.75, -1.0)), Options()).collides);
  // Beyond edge ab (y < 0) and beyond vertex a.
  EXPECT_FALSE(Vf(VertexMoving(Vec3(0.5, -0.1, 1.0), Vec3(0.5, -0.1, -1.0)), Options()).collides);
  EXPECT_FALSE(Vf(VertexMoving(Vec3(-0.1, -0.1, 1.0), Vec3(-0.1, -0.1, -1.0)), Options()).collides);
  // Stops short of the plane.
  EXPECT_FALSE(Vf(VertexMoving(Vec3(0.2, 0.2, 1.0), Vec3(0.2, 0.2, 0.01)), Options()).collides);
}

TEST_P(VertexFaceCcdTest, TouchingAtTheStartOfTheStep) {
  // On the face at t = 0, moving away.
  const CcdResult face = Vf(VertexMoving(Vec3(0.2, 0.2, 0.0), Vec3(0.2, 0.2, 1.0)), Options());
  ASSERT_TRUE(face.collides);
  EXPECT_EQ(face.toi, 0.0);
  // Exactly on vertex b and on the midpoint of edge bc at t = 0.
  EXPECT_TRUE(Vf(VertexMoving(kB, Vec3(2.0, 0.0, 1.0)), Options()).collides);
  const CcdResult edge = Vf(VertexMoving(Vec3(0.5, 0.5, 0.0), Vec3(1.0, 1.0, 1.0)), Options());
  ASSERT_TRUE(edge.collides);
  EXPECT_EQ(edge.toi, 0.0);
}

TEST_P(VertexFaceCcdTest, TouchingAtTheEndOfTheStep) {
  const CcdOptions options = Options();
  for (const Vec3& end : {Vec3(0.2, 0.2, 0.0), kA, kC, Vec3(0.5, 0.5, 0.0), Vec3(0.0, 0.5, 0.0)}) {
    const CcdResult result = Vf(VertexMoving(end + Vec3(0.0, 0.0, 1.0), end), options);
    ASSERT_TRUE(result.collides) << end.transpose();
    EXPECT_LE(result.toi, 1.0);
    EXPECT_GE(result.toi, 1.0 - Slack(options, 1.0));
  }
}

TEST_P(VertexFaceCcdTest, CoplanarMotionIntoTheTriangle) {
  // In the plane z = 0 from x = -1 to x = 1 at y = 0.25: enters across edge ca (x = 0) at t = 0.5.
  const CcdOptions options = Options();
  const CcdResult result = Vf(VertexMoving(Vec3(-1.0, 0.25, 0.0), Vec3(1.0, 0.25, 0.0)), options);
  ASSERT_TRUE(result.collides);
  EXPECT_LE(result.toi, 0.5);
  EXPECT_GE(result.toi, 0.5 - Slack(options, 2.0));
  // The same motion at y = 2 stays 1 m from the triangle (closest point c).
  EXPECT_FALSE(Vf(VertexMoving(Vec3(-1.0, 2.0, 0.0), Vec3(1.0, 2.0, 0.0)), options).collides);
}

TEST_P(VertexFaceCcdTest, DegenerateTriangles) {
  const CcdOptions options = Options();
  // Collinear vertices along the x axis: the "triangle" is the segment [0, 2] x {0} x {0}.
  const Vec3 a(0.0, 0.0, 0.0), b(1.0, 0.0, 0.0), c(2.0, 0.0, 0.0);
  const PairTrajectory through =
      MakeTrajectory({Vec3(1.5, 0.0, 1.0), a, b, c}, {Vec3(1.5, 0.0, -1.0), a, b, c});
  const CcdResult hit = Vf(through, options);
  ASSERT_TRUE(hit.collides);
  EXPECT_LE(hit.toi, 0.5);
  EXPECT_GE(hit.toi, 0.5 - Slack(options, 2.0));
  const PairTrajectory beside =
      MakeTrajectory({Vec3(1.5, 0.5, 1.0), a, b, c}, {Vec3(1.5, 0.5, -1.0), a, b, c});
  EXPECT_FALSE(Vf(beside, options).collides);
  // All three vertices coincide: a point; the vertex passes exactly through it.
  const Vec3 q(0.3, 0.4, 0.5);
  const PairTrajectory point =
      MakeTrajectory({Vec3(0.3, 0.4, 1.5), q, q, q}, {Vec3(0.3, 0.4, -0.5), q, q, q});
  const CcdResult point_hit = Vf(point, options);
  ASSERT_TRUE(point_hit.collides);
  EXPECT_LE(point_hit.toi, 0.5);
  EXPECT_GE(point_hit.toi, 0.5 - Slack(options, 2.0));
}

TEST_P(VertexFaceCcdTest, MinSeparationHitsWhenTheGapReachesIt) {
  // z(t) = 1 - 2 t reaches d = 0.1 at t = 0.45 above the interior.
  const CcdOptions options = Options(0.1);
  const CcdResult result = Vf(VertexMoving(Vec3(0.2, 0.2, 1.0), Vec3(0.2, 0.2, -1.0)), options);
  ASSERT_TRUE(result.collides);
  EXPECT_LE(result.toi, 0.45);
  EXPECT_GE(result.toi, 0.45 - Slack(options, 2.0));
  // Stopping at z = 0.09 is within d; stopping at z = 0.2 is not (0.2 > d + sqrt(3) tol).
  EXPECT_TRUE(Vf(VertexMoving(Vec3(0.2, 0.2, 1.0), Vec3(0.2, 0.2, 0.09)), options).collides);
  EXPECT_FALSE(Vf(VertexMoving(Vec3(0.2, 0.2, 1.0), Vec3(0.2, 0.2, 0.2)), options).collides);
  // Passing 0.05 m beside edge ab (y = -0.05) is within d; 0.2 m beside is not.
  EXPECT_TRUE(Vf(VertexMoving(Vec3(0.5, -0.05, 1.0), Vec3(0.5, -0.05, -1.0)), options).collides);
  EXPECT_FALSE(Vf(VertexMoving(Vec3(0.5, -0.2, 1.0), Vec3(0.5, -0.2, -1.0)), options).collides);
}

TEST_P(VertexFaceCcdTest, MinSeparationAlongADiagonalApproach) {
  // Closing along (1, 1, 1) / sqrt(3) towards vertex a from outside the triangle's corner: the
  // distance is |p(t)| = sqrt(3) (1 - t) s0 with p0 = -(s0, s0, s0); with d = 0.1 and s0 = 0.5 it
  // reaches d at t = 1 - 0.1 / (sqrt(3) 0.5). A per-coordinate (cube) test alone would report
  // the earlier time when max |p_k| = d.
  const double s0 = 0.5;
  const CcdOptions options = Options(0.1);
  const double t_d = 1.0 - 0.1 / (std::sqrt(3.0) * s0);
  const CcdResult result = Vf(VertexMoving(Vec3(-s0, -s0, -s0), Vec3(0.0, 0.0, 0.0)), options);
  ASSERT_TRUE(result.collides);
  EXPECT_LE(result.toi, t_d);
  EXPECT_GE(result.toi, t_d - Slack(options, std::sqrt(3.0) * s0));
}

TEST_P(VertexFaceCcdTest, LargeCoordinatesFarFromTheOrigin) {
  // The unit configuration translated by 1e4 m: rounding grows to ~1e-10 m, still far below
  // every feature size here.
  const Vec3 shift(1e4, -2e4, 3e4);
  const PairTrajectory hit =
      MakeTrajectory({Vec3(0.2, 0.3, 1.0) + shift, kA + shift, kB + shift, kC + shift},
                     {Vec3(0.2, 0.3, -1.0) + shift, kA + shift, kB + shift, kC + shift});
  const CcdOptions options = Options();
  const CcdResult result = Vf(hit, options);
  ASSERT_TRUE(result.collides);
  EXPECT_LE(result.toi, 0.5);
  EXPECT_GE(result.toi, 0.5 - Slack(options, 2.0) - 1e-9);
  const PairTrajectory miss =
      MakeTrajectory({Vec3(0.8, 0.8, 1.0) + shift, kA + shift, kB + shift, kC + shift},
                     {Vec3(0.8, 0.8, -1.0) + shift, kA + shift, kB + shift, kC + shift});
  EXPECT_FALSE(Vf(miss, options).collides);
}

TEST_P(VertexFaceCcdTest, MaxIterationsIsConservative) {
  CcdOptions options = Options();
  options.max_iterations = 3;
  // The root finder itself (VertexFaceCcd would settle this pair in the d = 0 fast path).
  const CcdResult result = internal::InclusionTimeOfImpact(
      internal::InclusionPairKind::kVertexFace,
      VertexMoving(Vec3(0.2, 0.3, 1.0), Vec3(0.2, 0.3, -1.0)), options);
  ASSERT_TRUE(result.collides);
  EXPECT_EQ(result.status, CcdStatus::kMaxIterationsReached);
  EXPECT_LE(result.toi, 0.5);
  EXPECT_EQ(result.iterations, 3);
}

INSTANTIATE_TEST_SUITE_P(FilterOnAndOff, VertexFaceCcdTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "WithFilter" : "RootFinderOnly";
                         });

TEST(VertexFaceCcdInputTest, InvalidInputIsReportedAndConservative) {
  PairTrajectory trajectory = VertexMoving(Vec3(5.0, 5.0, 5.0), Vec3(6.0, 6.0, 6.0));
  trajectory.x_t1[2].y() = std::numeric_limits<double>::quiet_NaN();
  CcdResult result = VertexFaceCcd(trajectory);
  EXPECT_EQ(result.status, CcdStatus::kInvalidInput);
  EXPECT_TRUE(result.collides);
  EXPECT_EQ(result.toi, 0.0);

  trajectory.x_t1[2].y() = std::numeric_limits<double>::infinity();
  EXPECT_EQ(VertexFaceCcd(trajectory).status, CcdStatus::kInvalidInput);

  const PairTrajectory valid = VertexMoving(Vec3(5.0, 5.0, 5.0), Vec3(6.0, 6.0, 6.0));
  CcdOptions negative;
  negative.min_separation_m = -1e-3;
  EXPECT_EQ(VertexFaceCcd(valid, negative).status, CcdStatus::kInvalidInput);
  CcdOptions nan_tolerance;
  nan_tolerance.tolerance_m = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(VertexFaceCcd(valid, nan_tolerance).status, CcdStatus::kInvalidInput);
  // The valid far-away pair is simply separated.
  const CcdResult separated = VertexFaceCcd(valid);
  EXPECT_EQ(separated.status, CcdStatus::kOk);
  EXPECT_FALSE(separated.collides);
}

TEST(VertexFaceCcdInputTest, CoordinatesBeyondTheCertifiedRangeAreInvalid) {
  // Finite but beyond kMaxCcdCoordinate (1e150 m), on either end of the step, or NaN at t = 0.
  PairTrajectory trajectory = VertexMoving(Vec3(5.0, 5.0, 5.0), Vec3(6.0, 6.0, 6.0));
  trajectory.x_t0[1].z() = 1e151;
  EXPECT_EQ(VertexFaceCcd(trajectory).status, CcdStatus::kInvalidInput);
  trajectory = VertexMoving(Vec3(5.0, 5.0, 5.0), Vec3(6.0, 6.0, 6.0));
  trajectory.x_t1[3].x() = -1e200;
  EXPECT_EQ(VertexFaceCcd(trajectory).status, CcdStatus::kInvalidInput);
  trajectory = VertexMoving(Vec3(5.0, 5.0, 5.0), Vec3(6.0, 6.0, 6.0));
  trajectory.x_t0[0].x() = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(VertexFaceCcdPenetration(trajectory).ccd.status, CcdStatus::kInvalidInput);
}

}  // namespace
}  // namespace contactsim::core
