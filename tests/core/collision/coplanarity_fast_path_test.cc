// The d = 0 fast path (coplanarity_fast_path.h): certified "no collision" when the coplanarity
// cubic has no zero in the step or crosses zero only where the features are apart, a collision
// with a certified lower-bound toi at the first root clearly inside the features, and "undecided"
// (left to the root finder) otherwise.
#include "core/collision/ccd/coplanarity_fast_path.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/collision/ccd/edge_edge.h"
#include "core/collision/ccd/vertex_face.h"
#include "scenes/testbeds/ccd_reference.h"

namespace contactsim::core::internal {
namespace {

constexpr double kTolerance = 1e-6;  // [m], CcdOptions' default

using core::testing::VertexAgainstUnitTriangle;

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

TEST(CoplanarityFastPath, CrossingBesideTheTriangleIsCertifiedNoCollision) {
  // Crosses the plane at (2, 2), outside: the filter separates the features over a short window
  // around the crossing, and the cubic has no other zero.
  const PairTrajectory trajectory =
      VertexAgainstUnitTriangle(Vec3(2.0, 2.0, 1.0), Vec3(2.0, 2.0, -1.0));
  EXPECT_EQ(VertexFaceCoplanarityFastPath(trajectory, kTolerance).outcome,
            FastPathOutcome::kNoCollision);
  EXPECT_FALSE(VertexFaceCcd(trajectory).collides);
}

TEST(CoplanarityFastPath, CrossingCloseBesideTheEdgeIsNotClaimedEitherWay) {
  // Crosses the plane 1e-9 m beyond the hypotenuse x + y = 1: no contact, but too close to the
  // edge for the inside margin, so it is never a collision here, and a short window around the
  // crossing is not separated by more than the motion within it; the root finder decides.
  const double beyond = 0.5 + 1e-9 / std::sqrt(2.0);
  const PairTrajectory trajectory =
      VertexAgainstUnitTriangle(Vec3(beyond, beyond, 1.0), Vec3(beyond, beyond, -1.0));
  EXPECT_NE(VertexFaceCoplanarityFastPath(trajectory, kTolerance).outcome,
            FastPathOutcome::kCollision);
}

// Two features whose coplanarity cubic has two roots in the step: at the first the features pass
// beside each other, at the second they touch (found in the benchmark's random broad-phase pairs,
// ccd_narrow_phase_bench.cc). The fast path must report the second, with toi a lower bound on the
// reference's contact time and the features within the tolerance of each other at toi.
void ExpectContactAtSecondRoot(bool vertex_face, const PairTrajectory& trajectory) {
  const FastPathResult result = vertex_face ? VertexFaceCoplanarityFastPath(trajectory, kTolerance)
                                            : EdgeEdgeCoplanarityFastPath(trajectory, kTolerance);
  const core::testing::ReferenceResult reference =
      core::testing::DenseReference(vertex_face, trajectory, 1e-9, 4096);
  ASSERT_TRUE(reference.hit);
  ASSERT_EQ(result.outcome, FastPathOutcome::kCollision);
  EXPECT_LE(result.toi, reference.earliest_hit_t);
  // The reference's distance, computed independently, in double: add a few ulps of the ~1 m
  // coordinates to the promised tolerance.
  EXPECT_LE(core::testing::RefDistance(vertex_face, trajectory, result.toi), kTolerance + 1e-14);
}

TEST(CoplanarityFastPath, VertexPassingBesideThenIntoTheFaceCollidesAtTheSecondRoot) {
  // Cubic roots at t = 0.1703 (beside the triangle) and t = 0.7572 (inside).
  PairTrajectory trajectory;
  trajectory.x_t0 = {Vec3(0.72338954587667281, 0.39496976349550272, -0.12950997419117352),
                     Vec3(0.71687588679404468, 0.39359008390277384, -0.13416369665637529),
                     Vec3(0.70420608228802284, 0.41149273038297546, -0.14144778887636106),
                     Vec3(0.72997236467619331, 0.42790676312548048, -0.12123101507709558)};
  trajectory.x_t1 = {Vec3(0.70563480501412779, 0.4106125490195508, -0.12860871907851024),
                     Vec3(0.71008494943293166, 0.39601075712850597, -0.12821837122898991),
                     Vec3(0.69652127771135619, 0.41349107687946929, -0.1343701856467156),
                     Vec3(0.72179004979818751, 0.43046571753149782, -0.11224634253420102)};
  ExpectContactAtSecondRoot(/*vertex_face=*/true, trajectory);
}

TEST(CoplanarityFastPath, EdgesPassingBesideThenAcrossCollideAtTheSecondRoot) {
  // Cubic roots at t = 0.4141 (the lines cross outside the segments) and t = 0.8133.
  PairTrajectory trajectory;
  trajectory.x_t0 = {Vec3(-0.64362417887040357, 0.66668432909688302, -0.78444954038429204),
                     Vec3(-0.60088123980548702, 0.64238246403366694, -0.77536876318506132),
                     Vec3(-0.61051512528580631, 0.6595064916760186, -0.79164188791343715),
                     Vec3(-0.63943801497523212, 0.67064672349900445, -0.79316197420330281)};
  trajectory.x_t1 = {Vec3(-0.64686468961615606, 0.67739702511246547, -0.79759127980062283),
                     Vec3(-0.60592953610276534, 0.65078774063629607, -0.78701837467025904),
                     Vec3(-0.61440498232307994, 0.65734986166440779, -0.79464310830694307),
                     Vec3(-0.64040840927522547, 0.67124177280698327, -0.79247486688688951)};
  ExpectContactAtSecondRoot(/*vertex_face=*/false, trajectory);
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
