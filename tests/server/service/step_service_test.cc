// Stepping over the service: lockstep determinism across sessions stepped in parallel, contact
// impulses that balance gravity at rest, snapshot/restore bit-identity, and the failed state of
// a diverged session.
#include <cmath>
#include <thread>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Controls that change over time: a sideways push on the box for the first 40 steps of 150.
v1::StepControls PushFor(int32_t body_id, int step) {
  v1::StepControls controls;
  if (step < 40) {
    v1::BodyControl* push = controls.add_bodies();
    push->set_body_id(body_id);
    push->mutable_force_n()->set_x(2.0 + 0.1 * step);
    push->mutable_torque_n_m()->set_z(0.05);
  }
  return controls;
}

// Two sessions with the same content and controls, stepped at the same time on two client
// threads (so on two server threads), end with bit-identical replies at every step.
TEST_F(ServiceTest, LockstepSessionsAreBitIdentical) {
  const SessionHandle a = CreateSession(BoxSceneRequest());
  const SessionHandle b = CreateSession(BoxSceneRequest());
  const int32_t box_a = AddBody(a, BoxBody());
  const int32_t box_b = AddBody(b, BoxBody());
  ASSERT_EQ(box_a, box_b);
  constexpr int kCalls = 150;
  std::vector<v1::StepResponse> replies_a(kCalls), replies_b(kCalls);
  auto run = [&](const SessionHandle& session, std::vector<v1::StepResponse>* replies) {
    for (int i = 0; i < kCalls; ++i) {
      grpc::Status status = Step(session, 1, &(*replies)[i], PushFor(box_a, i));
      ASSERT_TRUE(status.ok()) << status.error_message();
    }
  };
  std::thread thread_a(run, std::cref(a), &replies_a);
  std::thread thread_b(run, std::cref(b), &replies_b);
  thread_a.join();
  thread_b.join();
  int with_contacts = 0;
  for (int i = 0; i < kCalls; ++i) {
    ASSERT_TRUE(MessageDifferencer::Equals(replies_a[i], replies_b[i])) << "call " << i;
    if (replies_a[i].contacts().contacts_size() > 0) ++with_contacts;
  }
  // The comparison covered contact-carrying steps (the box lands within ~0.05 s = 5 steps).
  EXPECT_GT(with_contacts, kCalls / 2);
  EXPECT_EQ(replies_a.back().step_count(), kCalls);
}

// At rest on the plane, the contact impulse on the box per step balances its weight:
// J_z = m g dt (0.0981 N s for 1 kg at dt = 0.01 s).
TEST_F(ServiceTest, RestingBoxContactImpulseBalancesGravity) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  v1::AddBodyRequest add;
  add.set_session_id(session.id);
  *add.mutable_body() = BoxBody();
  v1::AddBodyResponse added;
  ASSERT_TRUE(stub_->AddBody(Context(session.controller).get(), add, &added).ok());
  const double mass_kg = added.mass_kg();
  EXPECT_NEAR(mass_kg, 1.0, 1e-9);  // 125 kg/m^3 x (0.2 m)^3
  const double dt_s = 0.01;
  const double g = 9.81;

  // 3 s: tests/physics/box_rest_jitter_test.cc finds this box (CPF, k 2500 N/m, dt 0.01 s) at
  // rest (every corner slower than 1e-4 m/s) well within 3 s.
  v1::StepResponse settle;
  ASSERT_TRUE(Step(session, 300, &settle).ok());
  double previous_vz = settle.bodies(0).v_wb_m_per_s().z();
  for (int i = 0; i < 10; ++i) {
    v1::StepResponse response;
    ASSERT_TRUE(Step(session, 1, &response).ok());
    ASSERT_EQ(response.contacts().body_totals_size(), 1);
    const v1::BodyContactTotals& totals = response.contacts().body_totals(0);
    EXPECT_EQ(totals.body_id(), added.body_id());
    EXPECT_GE(totals.contact_count(), 3);  // resting on a face: its corners touch
    const double jz = totals.impulse_ns().z();
    // At rest |v| < 1e-4 m/s, so the velocity changes by at most 2e-4 m/s in a step and the
    // impulse differs from m g dt by at most m 2e-4 = 2e-4 N s (0.2 % of 0.0981 N s); 1 %
    // leaves a factor 5 for the residual rocking of a settling box.
    EXPECT_NEAR(jz, mass_kg * g * dt_s, 0.01 * mass_kg * g * dt_s) << "step " << i;
    // The reported impulse is the one that moved the body: m (v_z - v_z,prev) = J_z - m g dt,
    // to rounding (1e-12 N s, values of order 0.1 N s).
    const double vz = response.bodies(0).v_wb_m_per_s().z();
    EXPECT_NEAR(mass_kg * (vz - previous_vz), jz - mass_kg * g * dt_s, 1e-12);
    previous_vz = vz;
    // The per-pair impulses add up to the total (every pair is box vs. the ground plane).
    double pair_sum = 0.0;
    for (const v1::ContactRecord& record : response.contacts().contacts()) {
      EXPECT_EQ(record.body_a(), added.body_id());
      EXPECT_EQ(record.body_b(), -1);
      EXPECT_EQ(record.kind(), v1::CONTACT_FEATURE_VERTEX_PLANE);
      pair_sum += record.normal_impulse_ns().z() + record.friction_impulse_ns().z();
    }
    EXPECT_NEAR(pair_sum, jz, 1e-12);
    ASSERT_EQ(response.diagnostics_size(), 1);
    EXPECT_FALSE(response.diagnostics(0).diverged());
  }
}

TEST_F(ServiceTest, SnapshotRestoreReplaysBitIdentically) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  const int32_t box = AddBody(session, BoxBody());
  v1::StepResponse warmup;
  ASSERT_TRUE(Step(session, 5, &warmup).ok());  // in contact by now (tracked pairs in the state)
  v1::SnapshotRequest snapshot_request;
  snapshot_request.set_session_id(session.id);
  v1::SnapshotResponse snapshot;
  ASSERT_TRUE(stub_->Snapshot(Context(session.controller).get(), snapshot_request, &snapshot).ok());
  EXPECT_EQ(snapshot.step_count(), 5);

  auto run = [&](std::vector<v1::StepResponse>* replies) {
    for (int i = 0; i < 60; ++i) {
      replies->emplace_back();
      ASSERT_TRUE(Step(session, 1, &replies->back(), PushFor(box, i)).ok());
    }
  };
  std::vector<v1::StepResponse> original, replay;
  run(&original);
  v1::RestoreRequest restore;
  restore.set_session_id(session.id);
  restore.set_snapshot(snapshot.snapshot());
  v1::RestoreResponse restored;
  ASSERT_TRUE(stub_->Restore(Context(session.controller).get(), restore, &restored).ok());
  EXPECT_EQ(restored.step_count(), 5);
  EXPECT_EQ(GetSession(session).summary().step_count(), 5);
  run(&replay);
  ASSERT_EQ(original.size(), replay.size());
  for (size_t i = 0; i < original.size(); ++i) {
    ASSERT_TRUE(MessageDifferencer::Equals(original[i], replay[i])) << "step " << i;
  }
  EXPECT_GT(original.back().contacts().contacts_size(), 0);

  // A blob that is not ours: INVALID_ARGUMENT naming the field.
  restore.set_snapshot("garbage");
  grpc::Status status = stub_->Restore(Context(session.controller).get(), restore, &restored);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), StartsWith("snapshot:"));
  // Another session takes the blob too (a fork) and replays the same bits.
  const SessionHandle other = CreateSession(BoxSceneRequest());
  restore.set_session_id(other.id);
  restore.set_snapshot(snapshot.snapshot());
  status = stub_->Restore(Context(other.controller).get(), restore, &restored);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(restored.step_count(), 5);
  for (int i = 0; i < 60; ++i) {
    v1::StepResponse forked;
    ASSERT_TRUE(Step(other, 1, &forked, PushFor(box, i)).ok());
    ASSERT_TRUE(MessageDifferencer::Equals(original[i], forked)) << "step " << i;
  }
}

// A step that blows up (a 1e200 N push on a 1 kg box: infinite kinetic energy) fails the session:
// GetSession reports it, Step refuses, other sessions keep stepping, and Restore recovers.
TEST_F(ServiceTest, DivergedSessionIsFailedUntilRestored) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  const SessionHandle other = CreateSession(BoxSceneRequest());
  const int32_t box = AddBody(session, BoxBody());
  AddBody(other, BoxBody());
  v1::SnapshotRequest snapshot_request;
  snapshot_request.set_session_id(session.id);
  v1::SnapshotResponse snapshot;
  ASSERT_TRUE(stub_->Snapshot(Context(session.controller).get(), snapshot_request, &snapshot).ok());

  v1::StepControls blow_up;
  v1::BodyControl* push = blow_up.add_bodies();
  push->set_body_id(box);
  push->mutable_force_n()->set_x(1e200);
  v1::StepResponse response;
  grpc::Status status = Step(session, 1, &response, blow_up);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("diverged"));

  const v1::GetSessionResponse info = GetSession(session);
  EXPECT_EQ(info.summary().state(), v1::SESSION_STATE_FAILED);
  EXPECT_THAT(info.summary().failure_message(), HasSubstr("diverged"));
  status = Step(session, 1, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), StartsWith("session_id:"));

  v1::StepResponse other_response;
  EXPECT_TRUE(Step(other, 10, &other_response).ok());

  v1::RestoreRequest restore;
  restore.set_session_id(session.id);
  restore.set_snapshot(snapshot.snapshot());
  v1::RestoreResponse restored;
  ASSERT_TRUE(stub_->Restore(Context(session.controller).get(), restore, &restored).ok());
  EXPECT_EQ(GetSession(session).summary().state(), v1::SESSION_STATE_ACTIVE);
  EXPECT_TRUE(Step(session, 10, &response).ok());
}

}  // namespace
}  // namespace contactsim::server::servertest

namespace contactsim::server::servertest {
namespace {

// Static, kinematic, cloth and FEM bodies from inline meshes; a kinematic target pose is reached
// at the end of the call; deformables report every vertex.
TEST_F(ServiceTest, AddsEveryBodyKindAndDrivesKinematicBodies) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  auto box_mesh = core::MakeBox(core::Vec3(0.1, 0.1, 0.1));
  ASSERT_TRUE(box_mesh.ok());

  v1::BodySpec fixed;
  fixed.set_kind(v1::BODY_KIND_STATIC);
  *fixed.mutable_triangle_mesh() = ToProto(*box_mesh);
  fixed.mutable_pose()->mutable_position_m()->set_x(2.0);
  const int32_t fixed_id = AddBody(session, fixed);

  v1::BodySpec mover = fixed;
  mover.set_kind(v1::BODY_KIND_KINEMATIC);
  mover.mutable_pose()->mutable_position_m()->set_x(-2.0);
  mover.mutable_pose()->mutable_position_m()->set_z(1.0);
  const int32_t mover_id = AddBody(session, mover);

  v1::BodySpec cloth;
  cloth.set_kind(v1::BODY_KIND_CLOTH);
  auto grid = core::MakeClothGrid(0.4, 0.4, 4, 4);
  ASSERT_TRUE(grid.ok());
  *cloth.mutable_triangle_mesh() = ToProto(*grid);
  cloth.mutable_pose()->mutable_position_m()->set_z(2.0);
  cloth.mutable_cloth()->set_area_density_kg_per_m2(0.2);
  cloth.mutable_cloth()->set_stretch_stiffness_n_per_m(50.0);
  const int32_t cloth_id = AddBody(session, cloth);

  v1::BodySpec fem;
  fem.set_kind(v1::BODY_KIND_FEM);
  auto tets = core::MakeTetBox(core::Vec3(0.1, 0.1, 0.1), 2, 2, 2);
  ASSERT_TRUE(tets.ok());
  *fem.mutable_tet_mesh() = ToProto(*tets);
  fem.mutable_pose()->mutable_position_m()->set_y(3.0);
  fem.mutable_pose()->mutable_position_m()->set_z(1.0);
  fem.mutable_fem()->set_youngs_modulus_pa(1e4);
  fem.mutable_fem()->set_poisson_ratio(0.3);
  fem.mutable_fem()->set_density_kg_per_m3(100.0);
  const int32_t fem_id = AddBody(session, fem);

  // Target: 0.5 m along x from the start and a quarter turn about z, reached after 10 steps.
  v1::StepControls controls;
  v1::BodyControl* drive = controls.add_bodies();
  drive->set_body_id(mover_id);
  drive->mutable_kinematic_target()->mutable_position_m()->set_x(-1.5);
  drive->mutable_kinematic_target()->mutable_position_m()->set_z(1.0);
  drive->mutable_kinematic_target()->mutable_orientation()->set_w(std::sqrt(0.5));
  drive->mutable_kinematic_target()->mutable_orientation()->set_z(std::sqrt(0.5));
  v1::StepResponse response;
  grpc::Status status = Step(session, 10, &response, controls);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.bodies_size(), 4);
  for (const v1::BodyState& body : response.bodies()) {
    if (body.body_id() == fixed_id) {
      EXPECT_EQ(body.kind(), v1::BODY_KIND_STATIC);
      EXPECT_EQ(body.p_wb_m().x(), 2.0);  // never moves
    } else if (body.body_id() == mover_id) {
      EXPECT_EQ(body.kind(), v1::BODY_KIND_KINEMATIC);
      // Ten steps of p += dt v with v = (target - p) / (10 dt): rounding only (1e-12 m).
      EXPECT_NEAR(body.p_wb_m().x(), -1.5, 1e-12);
      EXPECT_NEAR(body.p_wb_m().z(), 1.0, 1e-12);
      // Ten rotations by a tenth of the angle: rounding only, 1e-12 per component.
      EXPECT_NEAR(std::abs(body.q_wb().w()), std::sqrt(0.5), 1e-12);
      EXPECT_NEAR(std::abs(body.q_wb().z()), std::sqrt(0.5), 1e-12);
    } else if (body.body_id() == cloth_id) {
      EXPECT_EQ(body.kind(), v1::BODY_KIND_CLOTH);
      EXPECT_EQ(body.positions_m_size(), 3 * 25);
      // Falling freely for 0.1 s: every vertex has moved down.
      for (int i = 0; i < 25; ++i) EXPECT_LT(body.positions_m(3 * i + 2), 2.0);
    } else {
      EXPECT_EQ(body.body_id(), fem_id);
      EXPECT_EQ(body.kind(), v1::BODY_KIND_FEM);
      EXPECT_EQ(body.positions_m_size(), 3 * tets->num_vertices());
    }
  }
}

}  // namespace
}  // namespace contactsim::server::servertest
