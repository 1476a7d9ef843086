// StepRequest.reply_parts: a reply carries the parts asked and nothing else, and each part it
// carries equals the full reply's (twin sessions stepped alike); unset means every part.
#include <string>

#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

using ::google::protobuf::util::MessageDifferencer;

class StepReplyPartsTest : public ServiceTest {
 protected:
  // The box scene with the tilted box landing and a 3 x 3 cloth falling beside it.
  SessionHandle Scene() {
    const SessionHandle session = CreateSession(BoxSceneRequest());
    AddBody(session, BoxBody());
    v1::BodySpec cloth;
    cloth.set_kind(v1::BODY_KIND_CLOTH);
    auto grid = core::MakeClothGrid(0.2, 0.2, 2, 2);
    EXPECT_TRUE(grid.ok());
    *cloth.mutable_triangle_mesh() = ToProto(*grid);
    cloth.mutable_pose()->mutable_position_m()->set_x(1.0);
    cloth.mutable_pose()->mutable_position_m()->set_z(2.0);
    cloth.mutable_cloth()->set_area_density_kg_per_m2(2.0);
    cloth.mutable_cloth()->set_stretch_stiffness_n_per_m(1.0);
    AddBody(session, cloth);
    return session;
  }

  v1::StepResponse StepWith(const SessionHandle& session, const v1::StepReplyParts* parts) {
    v1::StepRequest request;
    request.set_session_id(session.id);
    request.set_n_steps(20);  // the box lands within them: contacts in the reply
    if (parts != nullptr) *request.mutable_reply_parts() = *parts;
    v1::StepResponse response;
    grpc::Status status = stub_->Step(Context(session.controller).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }
};

TEST_F(StepReplyPartsTest, EveryPartAskedIsTheDefault) {
  v1::StepReplyParts all;
  all.set_body_poses(true);
  all.set_body_velocities(true);
  all.set_vertex_positions(true);
  all.set_contact_pairs(true);
  all.set_contact_totals(true);
  all.set_diagnostics(true);
  all.set_constraint_reactions(true);
  const v1::StepResponse by_default = StepWith(Scene(), nullptr);
  const v1::StepResponse asked = StepWith(Scene(), &all);
  ASSERT_GT(by_default.contacts().contacts_size(), 0);
  EXPECT_TRUE(MessageDifferencer::Equals(by_default, asked));
}

TEST_F(StepReplyPartsTest, PosesOnly) {
  v1::StepReplyParts poses;
  poses.set_body_poses(true);
  const v1::StepResponse full = StepWith(Scene(), nullptr);
  const v1::StepResponse masked = StepWith(Scene(), &poses);
  EXPECT_EQ(masked.step_count(), full.step_count());
  EXPECT_EQ(masked.time_s(), full.time_s());
  ASSERT_EQ(masked.bodies_size(), 2);
  const v1::BodyState& box = masked.bodies(0);
  EXPECT_EQ(box.kind(), v1::BODY_KIND_RIGID);
  EXPECT_TRUE(MessageDifferencer::Equals(box.p_wb_m(), full.bodies(0).p_wb_m()));
  EXPECT_TRUE(MessageDifferencer::Equals(box.q_wb(), full.bodies(0).q_wb()));
  EXPECT_FALSE(box.has_v_wb_m_per_s());
  EXPECT_FALSE(box.has_w_wb_rad_per_s());
  EXPECT_EQ(masked.bodies(1).body_id(), full.bodies(1).body_id());
  // The cloth's pose part: its centre of mass and bounds.
  EXPECT_TRUE(MessageDifferencer::Equals(masked.bodies(1).centre_of_mass_m(),
                                         full.bodies(1).centre_of_mass_m()));
  EXPECT_TRUE(
      MessageDifferencer::Equals(masked.bodies(1).bounds_max_m(), full.bodies(1).bounds_max_m()));
  EXPECT_TRUE(masked.bodies(1).has_bounds_min_m());
  EXPECT_EQ(masked.bodies(1).positions_m_size(), 0);
  EXPECT_EQ(masked.bodies(1).velocities_m_per_s_size(), 0);
  EXPECT_EQ(masked.contacts().contacts_size(), 0);
  EXPECT_EQ(masked.contacts().body_totals_size(), 0);
  EXPECT_EQ(masked.diagnostics_size(), 0);
}

TEST_F(StepReplyPartsTest, VerticesAndTotalsOnly) {
  v1::StepReplyParts parts;
  parts.set_vertex_positions(true);
  parts.set_contact_totals(true);
  const v1::StepResponse full = StepWith(Scene(), nullptr);
  const v1::StepResponse masked = StepWith(Scene(), &parts);
  ASSERT_EQ(masked.bodies_size(), 2);
  EXPECT_FALSE(masked.bodies(0).has_p_wb_m());
  EXPECT_EQ(masked.bodies(1).positions_m_size(), 27);
  EXPECT_TRUE(MessageDifferencer::Equals(masked.bodies(1), [&] {
    v1::BodyState positions_only = full.bodies(1);
    positions_only.clear_velocities_m_per_s();
    positions_only.clear_centre_of_mass_m();  // with the poses
    positions_only.clear_bounds_min_m();
    positions_only.clear_bounds_max_m();
    return positions_only;
  }()));
  EXPECT_EQ(masked.contacts().contacts_size(), 0);
  ASSERT_EQ(masked.contacts().body_totals_size(), full.contacts().body_totals_size());
  for (int i = 0; i < full.contacts().body_totals_size(); ++i) {
    EXPECT_TRUE(MessageDifferencer::Equals(masked.contacts().body_totals(i),
                                           full.contacts().body_totals(i)));
  }
  EXPECT_EQ(masked.diagnostics_size(), 0);
}

TEST_F(StepReplyPartsTest, NothingAskedLeavesTheCountsOnly) {
  const v1::StepReplyParts none;
  const v1::StepResponse masked = StepWith(Scene(), &none);
  EXPECT_EQ(masked.step_count(), 20);
  EXPECT_EQ(masked.bodies_size(), 0);
  EXPECT_EQ(masked.contacts().contacts_size(), 0);
  EXPECT_EQ(masked.contacts().body_totals_size(), 0);
  EXPECT_EQ(masked.diagnostics_size(), 0);
  EXPECT_LT(masked.ByteSizeLong(), 32u);
}

}  // namespace
}  // namespace contactsim::server::servertest
