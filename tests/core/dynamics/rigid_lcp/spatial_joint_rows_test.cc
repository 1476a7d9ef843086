// The joint rows of the spatial LCP (spatial_contact_lcp.h, SpatialLcpJointRows) on one free
// body, solved by hand: a row G^T nu+ + b along x, with nu+ = nu~ + M^-1 G u, m = 2 kg.
#include <gtest/gtest.h>

#include <vector>

#include "core/dynamics/rigid_lcp/spatial_contact_lcp.h"

namespace contactsim::core {
namespace {

// One default options object (a temporary's Eigen member makes GCC 12 warn at every call).
const LcpSolverChainOptions& DefaultOptions() {
  static const LcpSolverChainOptions options;
  return options;
}

constexpr double kMass = 2.0;

std::vector<SpatialLcpBody> Body(double vx) {
  SpatialLcpBody b;
  b.inverse_mass = Mat6::Identity() / kMass;
  b.free_velocity = Vec6::Zero();
  b.free_velocity(0) = vx;
  return {b};
}

SpatialLcpRow AlongX(double bias) {
  SpatialLcpRow r;
  r.body_b = 0;
  r.jacobian_b(0) = 1.0;
  r.bias = bias;
  return r;
}

TEST(SpatialJointRowsTest, BilateralRowMeetsItsTargetAndComplianceSoftensIt) {
  SpatialLcpJointRows rows;
  rows.bilateral.push_back({AlongX(-0.5), 0.0, 0.0});  // v+ = 0.5
  auto s = SolveSpatialContactLcp(Body(2.0), {}, rows, DefaultOptions());
  ASSERT_TRUE(s.ok() && s->solver.solved);
  EXPECT_NEAR(s->velocity[0](0), 0.5, 1e-12);
  EXPECT_NEAR(s->bilateral_impulse[0], kMass * (0.5 - 2.0), 1e-12);
  // Compliance gamma: v+ - 0.5 + gamma u = 0 with v+ = 2 + u / m: u = -1.5 / (1 / m + gamma).
  rows.bilateral[0].compliance = 0.5;
  s = SolveSpatialContactLcp(Body(2.0), {}, rows, DefaultOptions());
  ASSERT_TRUE(s.ok() && s->solver.solved);
  EXPECT_NEAR(s->bilateral_impulse[0], -1.5 / (1.0 / kMass + 0.5), 1e-12);
}

TEST(SpatialJointRowsTest, BoundedRowStopsTheBodyOrSaturatesAtItsBound) {
  SpatialLcpJointRows rows;
  rows.bounded.push_back({AlongX(0.0), 0.0, 3.0});  // |u| <= 3 N s, target v+ = 0
  // Stopping 2 kg at 1 m/s needs 2 N s < 3: stopped.
  auto s = SolveSpatialContactLcp(Body(1.0), {}, rows, DefaultOptions());
  ASSERT_TRUE(s.ok() && s->solver.solved);
  EXPECT_NEAR(s->velocity[0](0), 0.0, 1e-12);
  EXPECT_NEAR(s->bounded_impulse[0], -2.0, 1e-12);
  // At -4 m/s it needs 8 N s: the bound, opposing the motion, leaves -4 + 3 / 2 = -2.5 m/s.
  s = SolveSpatialContactLcp(Body(-4.0), {}, rows, DefaultOptions());
  ASSERT_TRUE(s.ok() && s->solver.solved);
  EXPECT_NEAR(s->bounded_impulse[0], 3.0, 1e-12);
  EXPECT_NEAR(s->velocity[0](0), -2.5, 1e-12);
}

TEST(SpatialJointRowsTest, UnilateralRowPushesOnlyOneWay) {
  SpatialLcpJointRows rows;
  rows.unilateral.push_back(AlongX(0.0));  // v+ >= 0
  auto s = SolveSpatialContactLcp(Body(-1.0), {}, rows, DefaultOptions());
  ASSERT_TRUE(s.ok() && s->solver.solved);
  EXPECT_NEAR(s->velocity[0](0), 0.0, 1e-12);
  EXPECT_NEAR(s->unilateral_impulse[0], 2.0, 1e-12);
  s = SolveSpatialContactLcp(Body(1.0), {}, rows, DefaultOptions());
  ASSERT_TRUE(s.ok() && s->solver.solved);
  EXPECT_NEAR(s->velocity[0](0), 1.0, 1e-12);
  EXPECT_EQ(s->unilateral_impulse[0], 0.0);
}

TEST(SpatialJointRowsTest, RefusesBadRows) {
  SpatialLcpJointRows rows;
  rows.bounded.push_back({AlongX(0.0), -1.0, 3.0});
  EXPECT_EQ(SolveSpatialContactLcp(Body(1.0), {}, rows, DefaultOptions()).status().code(),
            absl::StatusCode::kInvalidArgument);
  rows.bounded[0] = {AlongX(0.0), 0.0, 1.0};
  rows.bounded[0].row.body_c = 0;  // the same body twice
  EXPECT_EQ(SolveSpatialContactLcp(Body(1.0), {}, rows, DefaultOptions()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace contactsim::core
