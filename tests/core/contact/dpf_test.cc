// Tests of the discrete penalty force (core/contact/penalty/dpf.h) against hand computation.
#include "core/contact/penalty/dpf.h"

#include <gtest/gtest.h>

#include <cmath>

namespace contactsim::core {
namespace {

constexpr PenaltyParams kParams = {.stiffness_n_per_m = 1000.0, .dt_s = 0.01};

Vec3 Sum(const VertexImpulses& impulses) {
  return impulses[0] + impulses[1] + impulses[2] + impulses[3];
}

// Triangle (0,0,0), (1,0,0), (0,1,0): counter-clockwise seen from +z, normal +z. The vertex ends
// at (0.25, 0.25, -0.01) under q = 0.5 a + 0.25 b + 0.25 c = (0.25, 0.25, 0):
//   delta = 0.01 m, F = k delta n = 10 N (+z), I_p = dt F = 0.1 N s,
//   I_a = -0.05, I_b = I_c = -0.025 N s (+z).
PairTrajectory VertexBelowTriangle(double z1) {
  PairTrajectory trajectory;
  trajectory.x_t0 = {Vec3(0.25, 0.25, 0.02), Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};
  trajectory.x_t1 = {Vec3(0.25, 0.25, z1), Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};
  return trajectory;
}

TEST(DpfTest, VertexFaceMatchesHandComputation) {
  const Vec3 weights(0.5, 0.25, 0.25);
  const DpfResult result = DpfVertexFace(VertexBelowTriangle(-0.01), weights, kParams);
  ASSERT_EQ(result.status, PenaltyStatus::kOk);
  // Every quantity is a product of a few exactly representable or 1-ulp numbers.
  EXPECT_NEAR(result.depth_m, 0.01, 1e-17);
  EXPECT_LT((result.normal - Vec3::UnitZ()).norm(), 1e-16);
  EXPECT_LT((result.force_on_p_n - Vec3(0, 0, 10)).norm(), 1e-13);
  EXPECT_LT((result.impulses_n_s[0] - Vec3(0, 0, 0.1)).norm(), 1e-15);
  EXPECT_LT((result.impulses_n_s[1] - Vec3(0, 0, -0.05)).norm(), 1e-15);
  EXPECT_LT((result.impulses_n_s[2] - Vec3(0, 0, -0.025)).norm(), 1e-15);
  EXPECT_LT((result.impulses_n_s[3] - Vec3(0, 0, -0.025)).norm(), 1e-15);
  EXPECT_LT(Sum(result.impulses_n_s).norm(), 1e-16);
}

TEST(DpfTest, SeparatedOrWrongSidePairGetsNoForce) {
  const Vec3 weights(0.5, 0.25, 0.25);
  const DpfResult above = DpfVertexFace(VertexBelowTriangle(0.01), weights, kParams);
  ASSERT_EQ(above.status, PenaltyStatus::kOk);
  EXPECT_NEAR(above.depth_m, -0.01, 1e-17);
  EXPECT_EQ(above.force_on_p_n, Vec3::Zero());
  EXPECT_EQ(Sum(above.impulses_n_s), Vec3::Zero());

  // Wound the other way (normal -z) the same end state reads as outside: DPF trusts the winding.
  PairTrajectory flipped = VertexBelowTriangle(-0.01);
  std::swap(flipped.x_t0[2], flipped.x_t0[3]);
  std::swap(flipped.x_t1[2], flipped.x_t1[3]);
  const DpfResult wrong_side = DpfVertexFace(flipped, weights, kParams);
  EXPECT_LT((wrong_side.normal + Vec3::UnitZ()).norm(), 1e-16);
  EXPECT_EQ(wrong_side.force_on_p_n, Vec3::Zero());
}

// With a supplied (CCD-tracked) normal the wound-the-other-way triangle gets the force again, and
// a tilted normal n = (0, 1, 1)/sqrt(2) measures delta = n . (0, 0, 0.01) = 0.01/sqrt(2).
TEST(DpfTest, SuppliedNormal) {
  const Vec3 weights(0.5, 0.25, 0.25);
  PairTrajectory flipped = VertexBelowTriangle(-0.01);
  std::swap(flipped.x_t1[2], flipped.x_t1[3]);
  const Vec3 flipped_weights(0.5, 0.25, 0.25);  // symmetric in b, c
  const DpfResult with_z =
      DpfVertexFaceWithNormal(flipped, flipped_weights, Vec3(0, 0, 2), kParams);
  ASSERT_EQ(with_z.status, PenaltyStatus::kOk);
  EXPECT_LT((with_z.force_on_p_n - Vec3(0, 0, 10)).norm(), 1e-13);

  const DpfResult tilted =
      DpfVertexFaceWithNormal(VertexBelowTriangle(-0.01), weights, Vec3(0, 1, 1), kParams);
  ASSERT_EQ(tilted.status, PenaltyStatus::kOk);
  EXPECT_NEAR(tilted.depth_m, 0.01 / std::sqrt(2.0), 1e-17);
  // F = k delta n = 1000 * 0.01/sqrt(2) * (0, 1, 1)/sqrt(2) = (0, 5, 5) N.
  EXPECT_LT((tilted.force_on_p_n - Vec3(0, 5, 5)).norm(), 1e-13);

  EXPECT_EQ(
      DpfVertexFaceWithNormal(VertexBelowTriangle(-0.01), weights, Vec3::Zero(), kParams).status,
      PenaltyStatus::kInvalidInput);
}

// Edge (a, b) along x at the end 0.02 m below edge (c, d) along y, crossing at s = 0.25,
// u = 0.5. It came from above, so n = +z (the cross product x x y = +z already points to where
// (a, b) came from), delta = 0.02 m, F = 20 N (+z), I = 0.2 N s shared (0.75, 0.25, -0.5, -0.5).
TEST(DpfTest, EdgeEdgeMatchesHandComputation) {
  PairTrajectory trajectory;
  trajectory.x_t0 = {Vec3(-0.5, 0, 0.05), Vec3(1.5, 0, 0.05), Vec3(0, -1, 0), Vec3(0, 1, 0)};
  trajectory.x_t1 = {Vec3(-0.5, 0, -0.02), Vec3(1.5, 0, -0.02), Vec3(0, -1, 0), Vec3(0, 1, 0)};
  const DpfResult result = DpfEdgeEdge(trajectory, 0.25, 0.5, kParams);
  ASSERT_EQ(result.status, PenaltyStatus::kOk);
  EXPECT_LT((result.normal - Vec3::UnitZ()).norm(), 1e-16);
  EXPECT_NEAR(result.depth_m, 0.02, 1e-17);
  EXPECT_LT((result.impulses_n_s[0] - Vec3(0, 0, 0.15)).norm(), 1e-15);
  EXPECT_LT((result.impulses_n_s[1] - Vec3(0, 0, 0.05)).norm(), 1e-15);
  EXPECT_LT((result.impulses_n_s[2] - Vec3(0, 0, -0.1)).norm(), 1e-15);
  EXPECT_LT((result.impulses_n_s[3] - Vec3(0, 0, -0.1)).norm(), 1e-15);

  // Swapping c and d flips the cross product to -z; the orientation rule flips it back.
  PairTrajectory swapped = trajectory;
  std::swap(swapped.x_t0[2], swapped.x_t0[3]);
  std::swap(swapped.x_t1[2], swapped.x_t1[3]);
  const DpfResult swapped_result = DpfEdgeEdge(swapped, 0.25, 0.5, kParams);
  EXPECT_LT((swapped_result.normal - Vec3::UnitZ()).norm(), 1e-16);
  EXPECT_LT((swapped_result.impulses_n_s[0] - Vec3(0, 0, 0.15)).norm(), 1e-15);

  // The same edges coming from below get the opposite normal and are separated at the end.
  PairTrajectory from_below = trajectory;
  from_below.x_t0[0].z() = -0.05;
  from_below.x_t0[1].z() = -0.05;
  const DpfResult below = DpfEdgeEdge(from_below, 0.25, 0.5, kParams);
  EXPECT_LT((below.normal + Vec3::UnitZ()).norm(), 1e-16);
  EXPECT_EQ(below.force_on_p_n, Vec3::Zero());

  const DpfResult supplied = DpfEdgeEdgeWithNormal(trajectory, 0.25, 0.5, Vec3(0, 0, 1), kParams);
  EXPECT_LT((supplied.force_on_p_n - Vec3(0, 0, 20)).norm(), 1e-13);
}

// Parallel edges: the cross product vanishes; the start-of-step separation (+z) takes over.
TEST(DpfTest, ParallelEdgesFallBackToSeparationDirection) {
  PairTrajectory trajectory;
  trajectory.x_t0 = {Vec3(0, 0, 0.05), Vec3(2, 0, 0.05), Vec3(0.5, 0, 0), Vec3(1.5, 0, 0)};
  trajectory.x_t1 = {Vec3(0, 0, -0.02), Vec3(2, 0, -0.02), Vec3(0.5, 0, 0), Vec3(1.5, 0, 0)};
  const DpfResult result = DpfEdgeEdge(trajectory, 0.5, 0.5, kParams);
  ASSERT_EQ(result.status, PenaltyStatus::kOk);
  EXPECT_TRUE(result.used_fallback_normal);
  EXPECT_LT((result.force_on_p_n - Vec3(0, 0, 20)).norm(), 1e-13);
}

// Dashpot c (dpf.h): the same falling vertex as cpf_test's dashpot case, DPF at t = 1: depth
// 0.03 along the winding normal +z, relative velocity 0.04 / dt into the face, so
// I = dt (k 0.03 + c 0.04 / dt) = dt k 0.03 + 0.04 c.
TEST(DpfDashpotTest, AddsTheDashpotAtThePredictedVelocity) {
  const PairTrajectory trajectory{
      {Vec3(0.25, 0.25, 0.01), Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)},
      {Vec3(0.25, 0.25, -0.03), Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)}};
  const PenaltyParams params{.stiffness_n_per_m = 5000.0, .dt_s = 0.002, .damping_n_s_per_m = 7.0};
  const DpfResult r = DpfVertexFace(trajectory, Vec3(0.5, 0.25, 0.25), params);
  ASSERT_EQ(r.status, PenaltyStatus::kOk);
  EXPECT_NEAR(r.depth_m, 0.03, 1e-16);
  EXPECT_LT((r.impulses_n_s[0] - Vec3(0, 0, 0.002 * 5000.0 * 0.03 + 0.04 * 7.0)).norm(), 1e-14);
}

}  // namespace
}  // namespace contactsim::core
