// The d = 0 fast path (coplanarity_fast_path.h): certified "no collision" when the coplanarity
// cubic has no zero in the step, a collision with a certified lower-bound toi when the first root
// is clearly inside the features, and "undecided" (left to the root finder) otherwise.
#include "core/collision/ccd/coplanarity_fast_path.h"

#include <gtest/gtest.h>

#include "core/collision/ccd/edge_edge.h"
#include "core/collision/ccd/vertex_face.h"

namespace contactsim::core::internal {
namespace {

constexpr double kTolerance = 1e-6;  // [m], CcdOptions' default

// Vertex p moving from p0 to p1 against the static triangle (0,0,0), (1,0,0), (0,1,0).
PairTrajectory VertexAgainstUnitTriangle(const Vec3& p0, const Vec3& p1) {
  PairTrajectory trajectory;
  trajectory.x_t0 = {p0, Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};
  trajectory.x_t1 = {p1, Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};
  return trajectory;
}

TEST(CoplanarityFastPath, VertexThroughTheInteriorIsACollisionWithALowerBoundToi) {
  // z goes 1 -> -1: contact at t = 0.5 at barycentrics (0.5, 0.2, 0.3).
  const FastPathResult result = VertexFaceCoplanarityFastPath(
      VertexAgainstUnitTriangle(Vec3(0.2, 0.3, 1.0), Vec3(0.2, 0.3, -1.0)), kTolerance);
  ASSERT_EQ(result.outcome, FastPathOutcome::kCollision);
  EXPECT_LE(result.toi, 0.5);         // a lower bound ...
  EXPECT_GE(result.toi, 0.5 - 1e-7);  // ... left by at most the largest root gap, 1e-7
  EXPECT_NEAR(result.weights.x(), 0.5, 1e-12);
  EXPECT_NEAR(result.weights.y(), 0.2, 1e-12);
  EXPECT_NEAR(result.weights.z(), 0.3, 1e-12);
}

TEST(CoplanarityFastPath, NoCoplanarityInTheStepIsCertifiedNoCollision) {
  // z goes 1 -> 0.5: the plane is never reached.
  const FastPathResult result = VertexFaceCoplanarityFastPath(
      VertexAgainstUnitTriangle(Vec3(0.2, 0.3, 1.0), Vec3(0.2, 0.3, 0.5)), kTolerance);
  EXPECT_EQ(result.outcome, FastPathOutcome::kNoCollision);
}

TEST(CoplanarityFastPath, RootOutsideTheTriangleIsLeftToTheRootFinder) {
  // Crosses the plane at (2, 2): outside, so the fast path must not decide either way.
  const PairTrajectory trajectory =
      VertexAgainstUnitTriangle(Vec3(2.0, 2.0, 1.0), Vec3(2.0, 2.0, -1.0));
  EXPECT_EQ(VertexFaceCoplanarityFastPath(trajectory, kTolerance).outcome,
            FastPathOutcome::kUndecided);
  EXPECT_FALSE(VertexFaceCcd(trajectory).collides);
}

TEST(CoplanarityFastPath, CoplanarMotionIsLeftToTheRootFinder) {
  // The vertex slides in the triangle's plane into it: the cubic vanishes for all t.
  const PairTrajectory trajectory =
      VertexAgainstUnitTriangle(Vec3(-1.0, 0.25, 0.0), Vec3(0.25, 0.25, 0.0));
  EXPECT_EQ(VertexFaceCoplanarityFastPath(trajectory, kTolerance).outcome,
            FastPathOutcome::kUndecided);
  EXPECT_TRUE(VertexFaceCcd(trajectory).collides);
}

TEST(CoplanarityFastPath, EdgesCrossingAtAKnownTimeAreACollision) {
  // Edge (0,0,z)-(1,0,z) falls from z = 1 to z = -3 through the static edge (0.5,-1,0)-(0.5,1,0):
  // contact at t = 0.25 at s = 0.5, u = 0.5.
  PairTrajectory trajectory;
  trajectory.x_t0 = {Vec3(0, 0, 1), Vec3(1, 0, 1), Vec3(0.5, -1, 0), Vec3(0.5, 1, 0)};
  trajectory.x_t1 = {Vec3(0, 0, -3), Vec3(1, 0, -3), Vec3(0.5, -1, 0), Vec3(0.5, 1, 0)};
  const FastPathResult result = EdgeEdgeCoplanarityFastPath(trajectory, kTolerance);
  ASSERT_EQ(result.outcome, FastPathOutcome::kCollision);
  EXPECT_LE(result.toi, 0.25);
  EXPECT_GE(result.toi, 0.25 - 1e-7);
  EXPECT_NEAR(result.weights.x(), 0.5, 1e-12);
  EXPECT_NEAR(result.weights.y(), 0.5, 1e-12);
}

TEST(CoplanarityFastPath, ParallelEdgesAreLeftToTheRootFinder) {
  PairTrajectory trajectory;
  trajectory.x_t0 = {Vec3(0, 0, 1), Vec3(1, 0, 1), Vec3(0, 0, 0), Vec3(1, 0, 0)};
  trajectory.x_t1 = {Vec3(0, 0, -1), Vec3(1, 0, -1), Vec3(0, 0, 0), Vec3(1, 0, 0)};
  EXPECT_EQ(EdgeEdgeCoplanarityFastPath(trajectory, kTolerance).outcome,
            FastPathOutcome::kUndecided);
  EXPECT_TRUE(EdgeEdgeCcd(trajectory).collides);
}

}  // namespace
}  // namespace contactsim::core::internal
