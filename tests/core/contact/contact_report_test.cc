// Tests of the per-body totals of a contact report (core/contact/contact_report.h) against hand
// computation.
#include "core/contact/contact_report.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <array>
#include <vector>

namespace contactsim::core {
namespace {

// Body 1 (origin (0, 0, 1)) rests on body 2 (origin (0, 0, 0)) and touches the ground plane.
//   record 0: 1 on 2 at (1, 0, 0.5): J = J_n + J_f = (0, 0, 2) + (0.5, 0, 0) = (0.5, 0, 2)
//   record 1: 1 on the ground at (0, 1, 0): J = (0, 0, 3), no friction
//   record 2: 2 on 1 (EE) at (0, 0, 0.5): J = (0, -1, 0)
// Body 1: J = (0.5, 0, 2) + (0, 0, 3) - (0, -1, 0) = (0.5, 1, 5)
//   H = (1, 0, -0.5) x (0.5, 0, 2) + (0, 1, -1) x (0, 0, 3) + (0, 0, -0.5) x (0, 1, 0)
//     = (0, -2.25, 0) + (3, 0, 0) + (0.5, 0, 0) = (3.5, -2.25, 0)
// Body 2: J = -(0.5, 0, 2) + (0, -1, 0) = (-0.5, -1, -2)
//   H = (1, 0, 0.5) x (-0.5, 0, -2) + (0, 0, 0.5) x (0, -1, 0) = (0, 1.75, 0) + (0.5, 0, 0)
//     = (0.5, 1.75, 0)
std::vector<ContactRecord> Records() {
  std::vector<ContactRecord> records(3);
  records[0] = {.body_a = 1,
                .body_b = 2,
                .kind = ContactFeatureKind::kVertexFace,
                .feature_a = 7,
                .feature_b = 3,
                .p_WC = Vec3(1, 0, 0.5),
                .normal_W = Vec3::UnitZ(),
                .depth_m = 1e-3,
                .normal_impulse_n_s = Vec3(0, 0, 2),
                .friction_impulse_n_s = Vec3(0.5, 0, 0),
                .friction_mode = FrictionMode::kStick};
  records[1] = {.body_a = 1,
                .body_b = kStaticEnvironmentBodyId,
                .kind = ContactFeatureKind::kVertexPlane,
                .feature_a = 2,
                .p_WC = Vec3(0, 1, 0),
                .normal_W = Vec3::UnitZ(),
                .normal_impulse_n_s = Vec3(0, 0, 3)};
  records[2] = {.body_a = 2,
                .body_b = 1,
                .kind = ContactFeatureKind::kEdgeEdge,
                .p_WC = Vec3(0, 0, 0.5),
                .normal_W = Vec3(0, -1, 0),
                .normal_impulse_n_s = Vec3(0, -1, 0),
                .friction_mode = FrictionMode::kSlip};
  return records;
}

// Spin friction (rigid_lcp's torsional friction) is a pure couple: A receives the angular impulse
// whatever the lever arm, B the opposite, and neither a linear impulse.
TEST(ContactReportTest, TorsionalImpulseIsACouple) {
  const std::array<BodyOrigin, 2> origins = {{{1, Vec3(0, 0, 1)}, {2, Vec3(3, 0, 0)}}};
  const std::vector<ContactRecord> records = {{.body_a = 1,
                                               .body_b = 2,
                                               .p_WC = Vec3(1, 2, 0.5),
                                               .normal_W = Vec3::UnitZ(),
                                               .torsional_impulse_n_m_s = Vec3(0, 0, 0.25)}};
  const absl::StatusOr<std::vector<BodyContactTotals>> totals =
      AccumulateBodyTotals(records, origins);
  ASSERT_TRUE(totals.ok()) << totals.status();
  EXPECT_EQ((*totals)[0].impulse_n_s, Vec3::Zero());
  EXPECT_EQ((*totals)[0].angular_impulse_n_m_s, Vec3(0, 0, 0.25));
  EXPECT_EQ((*totals)[1].impulse_n_s, Vec3::Zero());
  EXPECT_EQ((*totals)[1].angular_impulse_n_m_s, Vec3(0, 0, -0.25));
}

TEST(ContactReportTest, TotalsMatchHandComputation) {
  const std::array<BodyOrigin, 3> origins = {
      {{1, Vec3(0, 0, 1)}, {2, Vec3::Zero()}, {5, Vec3(9, 9, 9)}}};
  const std::vector<ContactRecord> records = Records();
  const absl::StatusOr<std::vector<BodyContactTotals>> totals =
      AccumulateBodyTotals(records, origins);
  ASSERT_TRUE(totals.ok()) << totals.status();
  ASSERT_EQ(totals->size(), 3u);
  // Sums and cross products of small binary fractions: exact in double.
  EXPECT_EQ((*totals)[0].body_id, 1);
  EXPECT_EQ((*totals)[0].impulse_n_s, Vec3(0.5, 1, 5));
  EXPECT_EQ((*totals)[0].angular_impulse_n_m_s, Vec3(3.5, -2.25, 0));
  EXPECT_EQ((*totals)[0].contact_count, 3);
  EXPECT_EQ((*totals)[1].body_id, 2);
  EXPECT_EQ((*totals)[1].impulse_n_s, Vec3(-0.5, -1, -2));
  EXPECT_EQ((*totals)[1].angular_impulse_n_m_s, Vec3(0.5, 1.75, 0));
  EXPECT_EQ((*totals)[1].contact_count, 2);
  // A body without contacts gets zeros.
  EXPECT_EQ((*totals)[2].body_id, 5);
  EXPECT_EQ((*totals)[2].impulse_n_s, Vec3::Zero());
  EXPECT_EQ((*totals)[2].contact_count, 0);

  // Only the ground is outside the system: the bodies' impulses sum to the ground's (0, 0, 3),
  // and their angular impulses about the world origin to (0, 1, 0) x (0, 0, 3) = (3, 0, 0).
  Vec3 impulse = Vec3::Zero();
  Vec3 angular_about_world = Vec3::Zero();
  for (int i = 0; i < 2; ++i) {
    impulse += (*totals)[i].impulse_n_s;
    // H about the world origin = H about p_WBo + p_WBo x J.
    angular_about_world +=
        (*totals)[i].angular_impulse_n_m_s + origins[i].p_WBo.cross((*totals)[i].impulse_n_s);
  }
  EXPECT_EQ(impulse, Vec3(0, 0, 3));
  EXPECT_EQ(angular_about_world, Vec3(3, 0, 0));
}

TEST(ContactReportTest, Errors) {
  const std::vector<ContactRecord> records = Records();
  const std::array<BodyOrigin, 1> missing = {{{1, Vec3::Zero()}}};
  EXPECT_EQ(AccumulateBodyTotals(records, missing).status().code(), absl::StatusCode::kNotFound);
  const std::array<BodyOrigin, 2> repeated = {{{1, Vec3::Zero()}, {1, Vec3::Zero()}}};
  EXPECT_EQ(AccumulateBodyTotals({}, repeated).status().code(), absl::StatusCode::kInvalidArgument);
  const std::array<BodyOrigin, 1> negative = {{{-3, Vec3::Zero()}}};
  EXPECT_EQ(AccumulateBodyTotals({}, negative).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace contactsim::core
