// Unit tests of the Step and frame conversions (server/convert/step_convert.h, frame_convert.h)
// and of the body-kind rule shared by BodyFromProto and uploaded meshes (body_convert.h): proto
// in, core values out with errors naming the field; core copies in, proto out field by field.
#include "server/convert/step_convert.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/sim/world_state.h"
#include "server/convert/body_convert.h"
#include "server/convert/frame_convert.h"

namespace contactsim::server {
namespace {

using ::testing::StartsWith;

v1::StepControls ForceOn(int32_t body_id, double fz) {
  v1::StepControls message;
  v1::BodyControl* control = message.add_bodies();
  control->set_body_id(body_id);
  control->mutable_force_n()->set_z(fz);
  return message;
}

TEST(StepControlsFromProtoTest, ConvertsEveryKindOfControlWithItsIndex) {
  v1::StepControls message = ForceOn(4, -9.81);
  v1::BodyControl* kinematic = message.add_bodies();
  kinematic->set_body_id(7);
  kinematic->mutable_kinematic_target()->mutable_position_m()->set_x(0.5);
  // A quarter turn about z, (w, x, y, z) on the wire.
  kinematic->mutable_kinematic_target()->mutable_orientation()->set_w(std::sqrt(0.5));
  kinematic->mutable_kinematic_target()->mutable_orientation()->set_z(std::sqrt(0.5));
  v1::VertexForces* forces = message.add_vertex_forces();
  forces->set_body_id(2);
  forces->add_vertices(0);
  forces->add_vertices(3);
  for (double f : {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}) forces->add_forces_n(f);

  absl::StatusOr<core::StepControls> controls = StepControlsFromProto(message);
  ASSERT_TRUE(controls.ok()) << controls.status();
  ASSERT_EQ(controls->bodies.size(), 2u);
  EXPECT_EQ(controls->bodies[0].index, 0);
  EXPECT_EQ(controls->bodies[0].body_id, 4);
  ASSERT_TRUE(controls->bodies[0].force_n.has_value());
  EXPECT_EQ(*controls->bodies[0].force_n, core::Vec3(0.0, 0.0, -9.81));
  EXPECT_FALSE(controls->bodies[0].torque_n_m.has_value());
  EXPECT_EQ(controls->bodies[1].index, 1);
  ASSERT_TRUE(controls->bodies[1].kinematic_target.has_value());
  EXPECT_EQ(controls->bodies[1].kinematic_target->p_WB_m, core::Vec3(0.5, 0.0, 0.0));
  EXPECT_DOUBLE_EQ(controls->bodies[1].kinematic_target->q_WB.w(), std::sqrt(0.5));
  EXPECT_DOUBLE_EQ(controls->bodies[1].kinematic_target->q_WB.z(), std::sqrt(0.5));
  ASSERT_EQ(controls->vertex_forces.size(), 1u);
  EXPECT_EQ(controls->vertex_forces[0].vertices, (std::vector<int32_t>{0, 3}));
  // Packed x0 y0 z0 x1 y1 z1 -> one row per vertex.
  EXPECT_EQ(controls->vertex_forces[0].forces_n.row(1), Eigen::RowVector3d(4.0, 5.0, 6.0));
}

TEST(StepControlsFromProtoTest, RefusalsNameTheField) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(std::string(StepControlsFromProto(ForceOn(1, nan)).status().message()),
              StartsWith("controls.bodies[0].force_n"));

  v1::StepControls not_unit;
  v1::BodyControl* control = not_unit.add_bodies();
  control->mutable_kinematic_target()->mutable_orientation()->set_w(2.0);
  EXPECT_THAT(std::string(StepControlsFromProto(not_unit).status().message()),
              StartsWith("controls.bodies[0].kinematic_target.orientation"));

  v1::StepControls short_forces;
  v1::VertexForces* forces = short_forces.add_vertex_forces();
  forces->add_vertices(0);
  forces->add_forces_n(1.0);
  const absl::Status status = StepControlsFromProto(short_forces).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              StartsWith("controls.vertex_forces[0].forces_n: length 1"));
}

core::WorldState TwoBodyState() {
  core::WorldState state;
  state.time_s = 0.25;
  state.step_count = 25;
  core::BodyStateCopy& rigid = state.bodies.emplace_back();
  rigid.body_id = 0;
  rigid.type = core::BodyType::kRigid;
  rigid.rigid_kind = core::RigidBodyKind::kKinematic;
  rigid.rigid = core::RigidBodyState{};
  rigid.rigid->p_WB_m = core::Vec3(1.0, 2.0, 3.0);
  rigid.rigid->q_WB = Eigen::Quaterniond(0.0, 1.0, 0.0, 0.0);  // (w, x, y, z): half turn about x
  rigid.positions_m = core::Points3::Zero(4, 3);
  rigid.velocities_m_per_s = core::Points3::Zero(4, 3);
  core::BodyStateCopy& cloth = state.bodies.emplace_back();
  cloth.body_id = 3;
  cloth.type = core::BodyType::kMassSpringCloth;
  cloth.positions_m.resize(2, 3);
  cloth.positions_m << 0.0, 0.1, 0.2, 1.0, 1.1, 1.2;
  cloth.velocities_m_per_s.resize(2, 3);
  cloth.velocities_m_per_s << -1.0, -2.0, -3.0, 4.0, 5.0, 6.0;
  return state;
}

TEST(FillStepResponseTest, RigidBodiesAsPosesDeformablesAsPackedVertices) {
  const core::WorldState state = TwoBodyState();
  core::ContactReport contacts;
  core::ContactRecord& record = contacts.contacts.emplace_back();
  record.body_a = 3;
  record.body_b = 0;
  record.kind = core::ContactFeatureKind::kVertexFace;
  record.normal_impulse_n_s = core::Vec3(0.0, 0.0, 0.5);
  core::StepOutcome outcome;
  outcome.diagnostics.resize(2);
  outcome.diagnostics[1].step = 25;
  core::BodyContactTotals& totals = outcome.summed_totals.emplace_back();
  totals.body_id = 3;
  totals.impulse_n_s = core::Vec3(0.0, 0.0, 1.5);

  v1::StepResponse response;
  FillStepResponse(state, contacts, outcome, &response);
  EXPECT_EQ(response.step_count(), 25);
  EXPECT_DOUBLE_EQ(response.time_s(), 0.25);
  ASSERT_EQ(response.bodies_size(), 2);
  const v1::BodyState& rigid = response.bodies(0);
  EXPECT_EQ(rigid.kind(), v1::BODY_KIND_KINEMATIC);
  EXPECT_EQ(rigid.p_wb_m().z(), 3.0);
  EXPECT_EQ(rigid.q_wb().w(), 0.0);  // scalar first on the wire
  EXPECT_EQ(rigid.q_wb().x(), 1.0);
  EXPECT_EQ(rigid.positions_m_size(), 0);  // a rigid body is its pose, not its vertices
  const v1::BodyState& cloth = response.bodies(1);
  EXPECT_EQ(cloth.body_id(), 3);
  EXPECT_EQ(cloth.kind(), v1::BODY_KIND_CLOTH);
  EXPECT_THAT(cloth.positions_m(), ::testing::ElementsAre(0.0, 0.1, 0.2, 1.0, 1.1, 1.2));
  EXPECT_THAT(cloth.velocities_m_per_s(), ::testing::ElementsAre(-1, -2, -3, 4, 5, 6));
  ASSERT_EQ(response.contacts().contacts_size(), 1);
  EXPECT_EQ(response.contacts().contacts(0).kind(), v1::CONTACT_FEATURE_VERTEX_FACE);
  EXPECT_EQ(response.contacts().contacts(0).normal_impulse_ns().z(), 0.5);
  ASSERT_EQ(response.contacts().body_totals_size(), 1);
  EXPECT_EQ(response.contacts().body_totals(0).impulse_ns().z(), 1.5);
  ASSERT_EQ(response.diagnostics_size(), 2);
  EXPECT_EQ(response.diagnostics(1).step(), 25);
}

TEST(FrameToProtoTest, TopologyOnlyWhenGivenAndPrecisionAsAsked) {
  const core::WorldState state = TwoBodyState();
  core::WorldTopology topology;
  core::BodyTopology& body = topology.bodies.emplace_back();
  body.body_id = 3;
  body.type = core::BodyType::kMassSpringCloth;
  body.name = "sheet";
  body.faces.resize(1, 3);
  body.faces << 0, 1, 0;
  const core::StepDiagnostics diagnostics;
  FrameContent content;
  content.state = &state;
  content.diagnostics = &diagnostics;

  v1::StateFrame message;
  FrameToProto(content, FrameDelivery{7, 2, 0}, StreamOptions{}, &message);
  EXPECT_EQ(message.seq(), 7);
  EXPECT_EQ(message.coalesced(), 2);
  EXPECT_EQ(message.step_count(), 25);
  EXPECT_EQ(message.topology_size(), 0);
  ASSERT_EQ(message.bodies_size(), 2);
  // float32 by default, velocities and contacts only when asked.
  EXPECT_EQ(message.bodies(1).positions_m_f32_size(), 6);
  EXPECT_FLOAT_EQ(message.bodies(1).positions_m_f32(4), 1.1f);
  EXPECT_EQ(message.bodies(1).positions_m_f64_size(), 0);
  EXPECT_EQ(message.bodies(1).velocities_m_per_s_f32_size(), 0);
  EXPECT_EQ(message.contacts().contacts_size(), 0);
  EXPECT_TRUE(message.has_diagnostics());

  content.topology = &topology;
  StreamOptions options;
  options.float64 = true;
  options.include_velocities = true;
  FrameToProto(content, FrameDelivery{8, 0, 0}, options, &message);
  ASSERT_EQ(message.topology_size(), 1);
  EXPECT_EQ(message.topology(0).name(), "sheet");
  EXPECT_EQ(message.topology(0).kind(), v1::BODY_KIND_CLOTH);
  EXPECT_EQ(message.bodies(1).positions_m_f64(4), 1.1);
  EXPECT_EQ(message.bodies(1).velocities_m_per_s_f64(5), 6.0);
}

TEST(BodyKindTest, TetrahedralKindsAreFemAndHyperelastic) {
  EXPECT_TRUE(BodyKindTakesTets(v1::BODY_KIND_FEM));
  EXPECT_TRUE(BodyKindTakesTets(v1::BODY_KIND_HYPERELASTIC));
  EXPECT_FALSE(BodyKindTakesTets(v1::BODY_KIND_RIGID));
  EXPECT_FALSE(BodyKindTakesTets(v1::BODY_KIND_STATIC));
  EXPECT_FALSE(BodyKindTakesTets(v1::BODY_KIND_KINEMATIC));
  EXPECT_FALSE(BodyKindTakesTets(v1::BODY_KIND_CLOTH));
}

// A reply over the message limit loses contact records, last first, and says how many; bodies,
// totals and diagnostics are kept whole.
TEST(FitStepResponseTest, LeavesOutContactRecordsUntilTheReplyFits) {
  v1::StepResponse response;
  response.set_step_count(7);
  response.add_bodies()->set_body_id(1);
  response.add_diagnostics()->set_step(7);
  response.mutable_contacts()->add_body_totals()->set_body_id(1);
  for (int i = 0; i < 100; ++i) {
    v1::ContactRecord* record = response.mutable_contacts()->add_contacts();
    record->set_body_a(1);
    record->set_feature_a(i);
    record->set_depth_m(1e-3 * (i + 1));
  }
  const int64_t whole = static_cast<int64_t>(response.ByteSizeLong());

  v1::StepResponse fits = response;
  FitStepResponse(whole, &fits);
  EXPECT_EQ(fits.contacts_omitted(), 0);
  EXPECT_EQ(fits.contacts().contacts_size(), 100);

  const int64_t limit = whole / 2;
  FitStepResponse(limit, &response);
  EXPECT_LE(static_cast<int64_t>(response.ByteSizeLong()), limit);
  EXPECT_GT(response.contacts_omitted(), 0);
  EXPECT_EQ(response.contacts().contacts_size() + response.contacts_omitted(), 100);
  // The first records are the ones kept.
  EXPECT_EQ(response.contacts().contacts(0).feature_a(), 0);
  EXPECT_EQ(response.bodies_size(), 1);
  EXPECT_EQ(response.diagnostics_size(), 1);
  EXPECT_EQ(response.contacts().body_totals_size(), 1);
}

}  // namespace
}  // namespace contactsim::server
