// Tests of the vertex-against-static-plane closed form (core/contact/penalty/static_plane.h)
// against the integral of max(delta, 0) worked out by hand.
#include "core/contact/penalty/static_plane.h"

#include <gtest/gtest.h>

#include <cmath>

namespace contactsim::core {
namespace {

constexpr PenaltyParams kParams = {.stiffness_n_per_m = 5000.0, .dt_s = 0.002};
constexpr double kKDt = 5000.0 * 0.002;  // k dt = 10 N s/m

// Ground z = 0 (n = +z, h = 0). The vertex falls from z = 0.01 to z = -0.03: delta goes from
// -0.01 to 0.03, positive after t* = 0.25, and int max(delta, 0) = 0.03 * 0.75 / 2 = 0.01125 m.
TEST(StaticPlaneTest, EnteringVertex) {
  const StaticPlaneResult r =
      CpfVertexStaticPlane(Vec3(1, 2, 0.01), Vec3(1.5, 2, -0.03), Vec3::UnitZ(), 0.0, kParams);
  ASSERT_EQ(r.status, PenaltyStatus::kOk);
  ASSERT_TRUE(r.penetrating);
  EXPECT_NEAR(r.interval.t_a, 0.25, 1e-15);
  EXPECT_EQ(r.interval.t_b, 1.0);
  EXPECT_NEAR(r.depth_t1_m, 0.03, 1e-17);
  // Rounding of a few operations on O(0.01) numbers.
  EXPECT_LT((r.impulse_n_s - Vec3(0, 0, kKDt * 0.01125)).norm(), 1e-15);
}

// Leaving: delta from 0.02 to -0.06, positive until t* = 0.25: int = 0.02 * 0.25 / 2 = 0.0025.
TEST(StaticPlaneTest, LeavingVertex) {
  const StaticPlaneResult r =
      CpfVertexStaticPlane(Vec3(0, 0, -0.02), Vec3(0, 0, 0.06), Vec3::UnitZ(), 0.0, kParams);
  ASSERT_TRUE(r.penetrating);
  EXPECT_EQ(r.interval.t_a, 0.0);
  EXPECT_NEAR(r.interval.t_b, 0.25, 1e-15);
  EXPECT_LT((r.impulse_n_s - Vec3(0, 0, kKDt * 0.0025)).norm(), 1e-15);
}

// Inside throughout: the trapezoid (0.01 + 0.03) / 2 = 0.02; outside throughout: nothing.
TEST(StaticPlaneTest, InsideAndOutsideThroughout) {
  const StaticPlaneResult inside =
      CpfVertexStaticPlane(Vec3(0, 0, -0.01), Vec3(0, 0, -0.03), Vec3::UnitZ(), 0.0, kParams);
  ASSERT_TRUE(inside.penetrating);
  EXPECT_LT((inside.impulse_n_s - Vec3(0, 0, kKDt * 0.02)).norm(), 1e-15);
  const StaticPlaneResult outside =
      CpfVertexStaticPlane(Vec3(0, 0, 0.01), Vec3(0, 0, 0.03), Vec3::UnitZ(), 0.0, kParams);
  EXPECT_FALSE(outside.penetrating);
  EXPECT_EQ(outside.impulse_n_s, Vec3::Zero());
}

// A tilted plane through (0, 0, 1) with the non-unit normal (0, 3, 4) (unit (0, 0.6, 0.8)),
// offset h = n . (0, 0, 1) = 0.8. The vertex goes from (0, 0, 1.05) (delta = -0.04) to
// (0, 0, 0.95) (delta = 0.04): t* = 0.5, int = 0.04 * 0.5 / 2 = 0.01 m.
TEST(StaticPlaneTest, TiltedPlaneWithNonUnitNormal) {
  const StaticPlaneResult r =
      CpfVertexStaticPlane(Vec3(0, 0, 1.05), Vec3(0, 0, 0.95), Vec3(0, 3, 4), 0.8, kParams);
  ASSERT_EQ(r.status, PenaltyStatus::kOk);
  EXPECT_NEAR(r.interval.t_a, 0.5, 1e-13);
  EXPECT_LT((r.normal - Vec3(0, 0.6, 0.8)).norm(), 1e-16);
  EXPECT_LT((r.impulse_n_s - kKDt * 0.01 * Vec3(0, 0.6, 0.8)).norm(), 1e-14);
}

TEST(StaticPlaneTest, RejectsZeroNormal) {
  EXPECT_EQ(CpfVertexStaticPlane(Vec3::Zero(), Vec3::Zero(), Vec3::Zero(), 0.0, kParams).status,
            PenaltyStatus::kInvalidInput);
}

// Dashpot c (contact_damping.h): the impulse gains c (delta(t_b) - delta(t_a)) n over the
// interval where delta > 0. Entering as above: delta rises from 0 at t = 0.25 to 0.03, so
// c 0.03; leaving: delta falls from 0.02 to 0 at t = 0.25, so -c 0.02 (the dashpot pulls).
TEST(StaticPlaneTest, DashpotAddsCTimesTheDepthChangeOverTheInterval) {
  PenaltyParams damped = kParams;
  damped.damping_n_s_per_m = 7.0;
  const StaticPlaneResult in =
      CpfVertexStaticPlane(Vec3(1, 2, 0.01), Vec3(1.5, 2, -0.03), Vec3::UnitZ(), 0.0, damped);
  ASSERT_EQ(in.status, PenaltyStatus::kOk);
  EXPECT_LT((in.impulse_n_s - Vec3(0, 0, kKDt * 0.01125 + 7.0 * 0.03)).norm(), 1e-15);
  const StaticPlaneResult out =
      CpfVertexStaticPlane(Vec3(0, 0, -0.02), Vec3(0, 0, 0.06), Vec3::UnitZ(), 0.0, damped);
  ASSERT_EQ(out.status, PenaltyStatus::kOk);
  EXPECT_LT((out.impulse_n_s - Vec3(0, 0, kKDt * 0.0025 - 7.0 * 0.02)).norm(), 1e-15);
  // Without the dashpot, the same bits as before it existed (the branch is not taken).
  const StaticPlaneResult plain =
      CpfVertexStaticPlane(Vec3(1, 2, 0.01), Vec3(1.5, 2, -0.03), Vec3::UnitZ(), 0.0, kParams);
  EXPECT_LT((plain.impulse_n_s - Vec3(0, 0, kKDt * 0.01125)).norm(), 1e-15);
}

}  // namespace
}  // namespace contactsim::core
