// The joint rows of the spatial LCP (spatial_contact_lcp.h, SpatialLcpJointRows) on one free
// body, solved by hand: a row G^T nu+ + b along x, with nu+ = nu~ + M^-1 G u, m = 2 kg.
#include <gtest/gtest.h>

#include <limits>
#include <string>
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

// Each malformed row is refused with its own name (the names are built only for an error): the
// joints' bilateral, bounded (indexed within the bounded rows) and unilateral rows, a torsion
// patch's spin row and constraints, and a contact constraint's secondaries and cone edges.
TEST(SpatialJointRowsTest, ErrorsNameTheMalformedRow) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto message = [](const std::vector<SpatialLcpConstraint>& constraints,
                    const SpatialLcpJointRows& rows,
                    const std::vector<SpatialLcpTorsionPatch>& torsion) {
    return std::string(
        SolveSpatialContactLcp(Body(1.0), constraints, rows, torsion, DefaultOptions())
            .status()
            .message());
  };
  SpatialLcpJointRows rows;
  rows.bilateral = {{AlongX(0.0), 0.0, 0.0}, {AlongX(0.0), 0.0, 0.0}};
  rows.bilateral[1].row.body_b = 3;
  EXPECT_EQ(message({}, rows, {}), "joints.bilateral[1]: body 3 out of range");
  rows.bilateral[1].row.body_b = 0;
  rows.bilateral[0].row.body_a = 0;
  EXPECT_EQ(message({}, rows, {}), "joints.bilateral[0]: both sides are body 0");
  rows.bilateral[0].row.body_a = -1;
  rows.bounded = {{AlongX(0.0), 0.0, 1.0}, {AlongX(0.0), 0.0, 1.0}};
  rows.bounded[1].row.body_b = -2;
  EXPECT_EQ(message({}, rows, {}), "joints.bounded[1]: body -2 out of range");
  rows.bounded[1].row.body_b = 0;
  rows.bounded[0].compliance = -1.0;
  EXPECT_EQ(message({}, rows, {}),
            "joints.bounded[0]: compliance and bound must be finite and >= 0");
  rows.bounded[0].compliance = 0.0;
  rows.unilateral = {AlongX(0.0), AlongX(0.0), AlongX(nan)};
  EXPECT_EQ(message({}, rows, {}), "joints.unilateral[2]: non-finite jacobian or bias");
  rows.unilateral.pop_back();
  ASSERT_TRUE(SolveSpatialContactLcp(Body(1.0), {}, rows, DefaultOptions()).ok());

  std::vector<SpatialLcpTorsionPatch> torsion(2);
  torsion[0].spin = AlongX(0.0);
  torsion[1].spin = AlongX(0.0);
  torsion[1].spin.body_b = 5;
  EXPECT_EQ(message({}, rows, torsion), "torsion[1].spin: body 5 out of range");
  torsion[1].spin.body_b = 0;
  torsion[1].constraints = {3};
  EXPECT_EQ(message({}, rows, torsion), "torsion[1].constraints: 3 is not a constraint");

  SpatialLcpConstraint contact;
  contact.primary = AlongX(0.0);
  contact.secondaries = {AlongX(0.0), AlongX(0.0)};
  contact.secondaries[1].body_a = 0;
  contact.secondaries[1].body_b = -1;
  EXPECT_EQ(message({contact, contact}, {}, {}),
            "constraints[0].secondaries[1]: not in the primary's body order");
  contact.secondaries.pop_back();
  SpatialLcpConstraint rough = contact;
  rough.friction_coefficient = 0.5;
  rough.friction = {AlongX(0.0), AlongX(0.0), AlongX(0.0)};
  rough.friction[2].jacobian_b(1) = nan;
  EXPECT_EQ(message({contact, rough}, {}, {}),
            "constraints[1].friction[2]: non-finite jacobian or bias");
}

}  // namespace
}  // namespace contactsim::core
