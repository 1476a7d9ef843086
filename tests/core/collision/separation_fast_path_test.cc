// The d > 0 fast path (separation_fast_path.h): certified "no collision" when the features stay
// farther than d from each other's plane or line, a collision with a certified lower-bound toi
// when they first come within d through the face interior (VF) or between the segments' interiors
// (EE), and "undecided" (left to the separating axes and the root finder) otherwise.
#include "core/collision/ccd/separation_fast_path.h"

#include <gtest/gtest.h>

#include "core/collision/ccd/edge_edge.h"
#include "core/collision/ccd/vertex_face.h"
#include "scenes/testbeds/ccd_reference.h"

namespace contactsim::core::internal {
namespace {

constexpr double kTolerance = 1e-6;  // [m], CcdOptions' default
constexpr double kSeparation = 0.1;  // d [m]

using core::testing::VertexAgainstUnitTriangle;

CcdOptions WithSeparation(double d) {
  CcdOptions options;
  options.min_separation_m = d;
  return options;
}

TEST(SeparationFastPath, VertexComingWithinDOfTheInteriorIsACollision) {
  // z = 1 - 2t reaches d = 0.1 at t = 0.45, above barycentrics (0.5, 0.2, 0.3). The vertex moves
  // 2 m, so toi may precede 0.45 by at most tolerance / (2 * 2 m) = 2.5e-7 (MaxRootGap).
  const FastPathResult result = VertexFaceSeparationFastPath(
      VertexAgainstUnitTriangle(Vec3(0.2, 0.3, 1.0), Vec3(0.2, 0.3, -1.0)), kSeparation,
      kTolerance);
  ASSERT_EQ(result.outcome, FastPathOutcome::kCollision);
  EXPECT_LE(result.toi, 0.45);
  EXPECT_GE(result.toi, 0.45 - 2.5e-7);
  // The projection's weights at the root, computed in double from unit-size data.
  EXPECT_NEAR(result.weights.x(), 0.5, 1e-12);
  EXPECT_NEAR(result.weights.y(), 0.2, 1e-12);
  EXPECT_NEAR(result.weights.z(), 0.3, 1e-12);
}

TEST(SeparationFastPath, VertexStayingFartherThanDIsCertifiedNoCollision) {
  // z goes 1 -> 0.15 > d over the interior.
  const FastPathResult result = VertexFaceSeparationFastPath(
      VertexAgainstUnitTriangle(Vec3(0.2, 0.3, 1.0), Vec3(0.2, 0.3, 0.15)), kSeparation,
      kTolerance);
  EXPECT_EQ(result.outcome, FastPathOutcome::kNoCollision);
}

TEST(SeparationFastPath, VertexEnteringTheSlabBesideTheTriangleIsNotAFastCollision) {
  // Comes within d of the plane at (2, 2), far outside: the closest point there is not in the
  // face, so the fast path cannot claim a contact; the whole query finds none.
  const PairTrajectory trajectory =
      VertexAgainstUnitTriangle(Vec3(2.0, 2.0, 1.0), Vec3(2.0, 2.0, -1.0));
  EXPECT_NE(VertexFaceSeparationFastPath(trajectory, kSeparation, kTolerance).outcome,
            FastPathOutcome::kCollision);
  EXPECT_FALSE(VertexFaceCcd(trajectory, WithSeparation(kSeparation)).collides);
}

TEST(SeparationFastPath, VertexSlidingInWithinTheSlabIsLeftToTheRootFinder) {
  // Starts 0.05 m above the plane beside the triangle and slides over it: the first contact is
  // with the edge x = 0 at distance d, not through the face, so the fast path leaves it; the
  // whole query reports it no later than the reference.
  const PairTrajectory trajectory =
      VertexAgainstUnitTriangle(Vec3(-1.0, 0.3, 0.05), Vec3(0.3, 0.3, 0.05));
  EXPECT_EQ(VertexFaceSeparationFastPath(trajectory, kSeparation, kTolerance).outcome,
            FastPathOutcome::kUndecided);
  const CcdResult result = VertexFaceCcd(trajectory, WithSeparation(kSeparation));
  const core::testing::ReferenceResult reference =
      core::testing::DenseReference(/*vertex_face=*/true, trajectory, kSeparation, 4096);
  ASSERT_TRUE(reference.hit);
  ASSERT_TRUE(result.collides);
  EXPECT_LE(result.toi, reference.earliest_hit_t);
}

TEST(SeparationFastPath, EdgesComingWithinDAreACollision) {
  // Edge (0,0,z)-(1,0,z) falls from z = 1 to z = -3 over the static edge (0.5,-1,0)-(0.5,1,0):
  // within d = 0.1 when z = 0.1, at t = 0.225, at s = 0.5, u = 0.5. Points move up to 4 m, so toi
  // may precede 0.225 by at most tolerance / 8 m = 1.25e-7.
  PairTrajectory trajectory;
  trajectory.x_t0 = {Vec3(0, 0, 1), Vec3(1, 0, 1), Vec3(0.5, -1, 0), Vec3(0.5, 1, 0)};
  trajectory.x_t1 = {Vec3(0, 0, -3), Vec3(1, 0, -3), Vec3(0.5, -1, 0), Vec3(0.5, 1, 0)};
  const FastPathResult result = EdgeEdgeSeparationFastPath(trajectory, kSeparation, kTolerance);
  ASSERT_EQ(result.outcome, FastPathOutcome::kCollision);
  EXPECT_LE(result.toi, 0.225);
  EXPECT_GE(result.toi, 0.225 - 1.25e-7);
  EXPECT_NEAR(result.weights.x(), 0.5, 1e-12);
  EXPECT_NEAR(result.weights.y(), 0.5, 1e-12);
}

TEST(SeparationFastPath, ParallelEdgesAreLeftToTheRootFinder) {
  // m = 0 for all t, so g = f^2 - d^2 |m|^2 vanishes identically: nothing can be certified.
  PairTrajectory trajectory;
  trajectory.x_t0 = {Vec3(0, 0, 1), Vec3(1, 0, 1), Vec3(0, 0, 0), Vec3(1, 0, 0)};
  trajectory.x_t1 = {Vec3(0, 0, -1), Vec3(1, 0, -1), Vec3(0, 0, 0), Vec3(1, 0, 0)};
  EXPECT_EQ(EdgeEdgeSeparationFastPath(trajectory, kSeparation, kTolerance).outcome,
            FastPathOutcome::kUndecided);
  EXPECT_TRUE(EdgeEdgeCcd(trajectory, WithSeparation(kSeparation)).collides);
}

TEST(SeparationFastPath, CoordinatesBeyondTheRangeAreLeftToTheRootFinder) {
  // Degree-6 values of 1e40 m coordinates would overflow: undecided, never a wrong answer.
  const PairTrajectory trajectory =
      VertexAgainstUnitTriangle(Vec3(0.2, 0.3, 1e40), Vec3(0.2, 0.3, -1e40));
  EXPECT_EQ(VertexFaceSeparationFastPath(trajectory, kSeparation, kTolerance).outcome,
            FastPathOutcome::kUndecided);
}

}  // namespace
}  // namespace contactsim::core::internal
