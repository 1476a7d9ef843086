// Scene files (scenes/*.textproto) and server-built primitive meshes: every file parses and
// loads; the penalty scenes load into exactly what scenes/penalty/penalty_scenes.cc builds
// (settings, bodies, names, vertex and triangle counts, masses, world vertex positions, and one
// step's rigid states); bad primitive parameters are refused with the field named and the
// session unchanged; parse errors carry line:column; start-up scenes (`--scene`) load through the
// same path. The test links core to build the reference scenes; the client library does not.
#include "clients/cpp/scene_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/dynamics/particle_body.h"
#include "core/dynamics/rigid_body.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scenes/loader/utf8_fields.h"
#include "scenes/penalty/penalty_scenes.h"
#include "server/service/startup_scenes.h"
#include "tests/clients/client_fixture.h"

namespace contactsim::client::clienttest {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string ScenePath(const std::string& name) {
  return std::string(CONTACTSIM_SCENES_DIR) + "/" + name + ".textproto";
}

// The first frame of a new stream: every body's topology and its f64 positions.
v1::StateFrame FirstFrame(const SessionHandle& session) {
  v1::StreamStateRequest request;
  request.set_precision(v1::PRECISION_FLOAT64);
  v1::StateFrame first;
  absl::Status status = session.StreamState(request, [&](const v1::StateFrame& frame) {
    first = frame;
    return false;
  });
  EXPECT_TRUE(status.ok()) << status;
  return first;
}

double MaxAbsDifference(const v1::Vec3& a, const core::Vec3& b) {
  return std::max({std::abs(a.x() - b.x()), std::abs(a.y() - b.y()), std::abs(a.z() - b.z())});
}

class PenaltySceneFileTest : public ClientTest,
                             public ::testing::WithParamInterface<const char*> {};

TEST_P(PenaltySceneFileTest, LoadsWhatTheCoreBuilderBuilds) {
  const std::string name = GetParam();
  absl::StatusOr<core::PenaltyScene> reference = core::MakePenaltyScene(name, {});
  ASSERT_TRUE(reference.ok()) << reference.status();
  core::World& world = reference->world;

  absl::StatusOr<v1::SceneFile> scene = ReadSceneFile(ScenePath(name));
  ASSERT_TRUE(scene.ok()) << scene.status();
  absl::StatusOr<LoadedScene> loaded = LoadScene(*connection_, *scene);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const SessionHandle session =
      connection_->Session(loaded->session.session_id, loaded->session.controller_token);

  // Settings and ground planes as applied by the server.
  absl::StatusOr<v1::GetSessionResponse> info = session.GetSession();
  ASSERT_TRUE(info.ok()) << info.status();
  const core::WorldSettings& settings = world.settings();
  EXPECT_EQ(info->settings().dt_s(), settings.dt_s);
  EXPECT_EQ(info->settings().stiffness_n_per_m(), settings.stiffness_n_per_m);
  EXPECT_EQ(MaxAbsDifference(info->settings().gravity_m_per_s2(), settings.gravity_m_per_s2), 0.0);
  EXPECT_EQ(info->settings().contact_model(), v1::CONTACT_MODEL_CPF);
  EXPECT_EQ(settings.contact_model, core::ContactModel::kCpf);
  EXPECT_EQ(info->settings().energy_growth_factor(), settings.divergence.energy_growth_factor);
  EXPECT_EQ(info->ground_planes_size(), static_cast<int>(world.ground_planes().size()));

  // Bodies: same ids, names, kinds, counts, masses and world vertex positions.
  ASSERT_EQ(static_cast<int>(loaded->bodies.size()), world.num_bodies());
  ASSERT_EQ(info->body_ids_size(), world.num_bodies());
  const v1::StateFrame frame = FirstFrame(session);
  ASSERT_EQ(frame.topology_size(), world.num_bodies());
  ASSERT_EQ(frame.bodies_size(), world.num_bodies());
  int total_triangles = 0;
  for (int i = 0; i < world.num_bodies(); ++i) {
    SCOPED_TRACE(scene->bodies(i).name());
    const int32_t id = loaded->bodies[i].body_id();
    EXPECT_EQ(id, world.body_ids()[i]);
    absl::StatusOr<int32_t> core_id = world.FindBody(scene->bodies(i).name());
    ASSERT_TRUE(core_id.ok()) << core_id.status();
    EXPECT_EQ(*core_id, id);
    const core::Body& body = *world.body(id);
    switch (scene->bodies(i).kind()) {
      case v1::BODY_KIND_CLOTH:
        EXPECT_EQ(body.type(), core::BodyType::kMassSpringCloth);
        break;
      case v1::BODY_KIND_FEM:
        EXPECT_EQ(body.type(), core::BodyType::kCorotationalFem);
        break;
      default: {
        ASSERT_EQ(body.type(), core::BodyType::kRigid);
        const auto& rigid = static_cast<const core::RigidBody&>(body);
        EXPECT_EQ(scene->bodies(i).kind() == v1::BODY_KIND_RIGID,
                  rigid.kind() == core::RigidBodyKind::kDynamic);
        if (rigid.kind() == core::RigidBodyKind::kDynamic) {
          EXPECT_NEAR(loaded->bodies[i].mass_kg(), rigid.mass_kg(), 1e-12 * rigid.mass_kg());
        }
      }
    }
    if (body.type() != core::BodyType::kRigid) {
      const auto& particles = static_cast<const core::ParticleBody&>(body);
      const double mass_kg = particles.masses().sum();
      EXPECT_NEAR(loaded->bodies[i].mass_kg(), mass_kg, 1e-12 * mass_kg);
      for (int v = 0; v < particles.num_vertices(); ++v) {
        EXPECT_EQ(particles.is_pinned(v), std::find(scene->bodies(i).pinned_vertices().begin(),
                                                    scene->bodies(i).pinned_vertices().end(),
                                                    v) != scene->bodies(i).pinned_vertices().end())
            << "vertex " << v;
      }
    }
    EXPECT_EQ(loaded->bodies[i].num_vertices(), body.num_vertices());
    const v1::BodyTopology& topology = frame.topology(i);
    ASSERT_EQ(topology.body_id(), id);
    EXPECT_EQ(topology.surface().triangles_size() / 3, body.surface().num_faces());
    total_triangles += topology.surface().triangles_size() / 3;
    const v1::BodyFrame& positions = frame.bodies(i);
    ASSERT_EQ(positions.body_id(), id);
    ASSERT_EQ(positions.positions_m_f64_size(), 3 * body.num_vertices());
    double max_error_m = 0.0;
    for (int v = 0; v < body.num_vertices(); ++v) {
      for (int c = 0; c < 3; ++c) {
        max_error_m = std::max(max_error_m, std::abs(positions.positions_m_f64(3 * v + c) -
                                                     body.positions_t0()(v, c)));
      }
    }
    EXPECT_LT(max_error_m, 1e-12);
  }
  EXPECT_EQ(total_triangles, reference->num_triangles);

  // One step from the same start gives the same rigid states (dynamic bodies: static ones are
  // placed by pose here and by transformed vertices in core, so their frames differ) and the
  // same deformable vertex positions.
  absl::StatusOr<v1::StepResponse> step = session.Step(1);
  ASSERT_TRUE(step.ok()) << step.status();
  ASSERT_TRUE(world.Step(1).ok());
  for (const v1::BodyState& state : step->bodies()) {
    if (world.body(state.body_id())->type() != core::BodyType::kRigid) continue;
    const auto& body = static_cast<const core::RigidBody&>(*world.body(state.body_id()));
    if (body.kind() != core::RigidBodyKind::kDynamic) continue;
    SCOPED_TRACE(state.body_id());
    const core::RigidBodyState& expected = body.state();
    EXPECT_LT(MaxAbsDifference(state.p_wb_m(), expected.p_WB_m), 1e-12);
    EXPECT_LT(MaxAbsDifference(state.v_wb_m_per_s(), expected.v_WB_m_per_s), 1e-12);
    EXPECT_LT(MaxAbsDifference(state.w_wb_rad_per_s(), expected.w_WB_rad_per_s), 1e-12);
    EXPECT_NEAR(state.q_wb().w(), expected.q_WB.w(), 1e-12);
    EXPECT_NEAR(state.q_wb().x(), expected.q_WB.x(), 1e-12);
    EXPECT_NEAR(state.q_wb().y(), expected.q_WB.y(), 1e-12);
    EXPECT_NEAR(state.q_wb().z(), expected.q_WB.z(), 1e-12);
  }
  const v1::StateFrame after = FirstFrame(session);
  ASSERT_EQ(after.bodies_size(), world.num_bodies());
  for (const v1::BodyFrame& positions : after.bodies()) {
    const core::Body& body = *world.body(positions.body_id());
    if (body.type() == core::BodyType::kRigid) continue;
    SCOPED_TRACE(positions.body_id());
    ASSERT_EQ(positions.positions_m_f64_size(), 3 * body.num_vertices());
    double max_error_m = 0.0;
    for (int v = 0; v < body.num_vertices(); ++v) {
      for (int c = 0; c < 3; ++c) {
        max_error_m = std::max(max_error_m, std::abs(positions.positions_m_f64(3 * v + c) -
                                                     body.positions_t0()(v, c)));
      }
    }
    EXPECT_LT(max_error_m, 1e-12);
  }
}

INSTANTIATE_TEST_SUITE_P(Scenes, PenaltySceneFileTest,
                         ::testing::Values("chain", "stick", "rings", "box", "blob", "tori_cloth",
                                           "bucket"));

TEST_F(ClientTest, EverySceneFileParsesAndLoads) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(CONTACTSIM_SCENES_DIR)) {
    if (entry.path().extension() != ".textproto") continue;
    ++files;
    SCOPED_TRACE(entry.path().string());
    absl::StatusOr<v1::SceneFile> scene = ReadSceneFile(entry.path().string());
    ASSERT_TRUE(scene.ok()) << scene.status();
    EXPECT_FALSE(scene->description().empty());
    EXPECT_GT(scene->bodies_size(), 0);
    absl::StatusOr<LoadedScene> loaded = LoadScene(*connection_, *scene);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(static_cast<int>(loaded->bodies.size()), scene->bodies_size());
  }
  // blob, box, bucket, chain, push_box, rigid_pour, rigid_pour_hulls, rings, robot_arm,
  // soft_lift, soft_rollers, stick, tori_cloth
  EXPECT_EQ(files, 13);
}

// A scene's robot: its URDF read by the loader relative to the scene file, its links after the
// bodies, its joints where joint_positions puts them and held there for 1 s by the scene's
// default motor; a missing URDF closes the half-built session naming the robot.
TEST_F(ClientTest, RobotArmSceneHoldsTheArmAtItsJointPositions) {
  absl::StatusOr<v1::SceneFile> scene = ReadSceneFile(ScenePath("robot_arm"));
  ASSERT_TRUE(scene.ok()) << scene.status();
  absl::StatusOr<LoadedScene> loaded = LoadScene(*connection_, *scene);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->robots.size(), 1u);
  const v1::RobotInfo& arm = loaded->robots[0];
  EXPECT_EQ(arm.name(), "arm");
  ASSERT_EQ(arm.links_size(), 10);
  EXPECT_EQ(arm.links(0).body_id(), 3);  // after the three cubes
  const SessionHandle session =
      connection_->Session(loaded->session.session_id, loaded->session.controller_token);
  // 1 s (1000 steps of 1 ms) with no command from a controller: the scene's motors hold.
  absl::StatusOr<v1::StepResponse> stepped = session.Step(1000);
  ASSERT_TRUE(stepped.ok()) << stepped.status();
  ASSERT_EQ(stepped->joint_states_size(), 1);
  // Each joint settles at its target less the PD's static sag, (gravity moment) / kp. The largest
  // moment is the shoulder's (joint2), at most g sum(m_i r_i) = 9.81 x 1.97 kg m = 19.3 N m with
  // every link beyond it held out horizontally (the URDF's masses and centres), so the sag is at
  // most 19.3 / 2e4 = 9.7e-4 rad at kp 2e4: bound 1e-3 rad on every joint. The PD (kd 200) has
  // settled long before 1 s (its slowest time constant, the shoulder's, ~50 ms), so the joints are
  // at rest: bound 1e-3 rad/s. Without the motors the arm folds (checked below).
  double largest_offset = 0.0;
  for (const auto& [name, q] :
       {std::pair{"joint1", 0.0}, std::pair{"joint2", 0.8}, std::pair{"joint3", 1.2},
        std::pair{"joint4", 0.0}, std::pair{"joint5", 0.9}, std::pair{"joint6", 0.0},
        std::pair{"finger_left_joint", 0.0}}) {
    int index = -1;
    for (const v1::RobotJointInfo& joint : arm.joints()) {
      if (joint.name() == name) index = joint.index();
    }
    ASSERT_GE(index, 0) << name;
    const v1::JointState& state = stepped->joint_states(0).joints(index);
    EXPECT_NEAR(state.position(), q, 1e-3) << name;
    EXPECT_NEAR(state.velocity(), 0.0, 1e-3) << name;
    largest_offset = std::max(largest_offset, std::abs(state.position() - q));
  }
  std::printf("robot_arm scene after 1 s: largest joint offset from its pose %.3g rad\n",
              largest_offset);
  // The same scene without its default motor: the shoulder leaves its pose by far more than the
  // bound, so the hold above is the motors' doing.
  v1::SceneFile limp = *scene;
  limp.mutable_robots(0)->clear_default_motor();
  absl::StatusOr<LoadedScene> limp_loaded = LoadScene(*connection_, limp, "limp");
  ASSERT_TRUE(limp_loaded.ok()) << limp_loaded.status();
  const SessionHandle limp_session =
      connection_->Session(limp_loaded->session.session_id, limp_loaded->session.controller_token);
  absl::StatusOr<v1::StepResponse> fallen = limp_session.Step(1000);
  ASSERT_TRUE(fallen.ok()) << fallen.status();
  double largest_fall = 0.0;
  for (const auto& [name, q] : {std::pair{"joint2", 0.8}, std::pair{"joint3", 1.2}}) {
    for (const v1::RobotJointInfo& joint : arm.joints()) {
      if (joint.name() == name) {
        largest_fall = std::max(
            largest_fall, std::abs(fallen->joint_states(0).joints(joint.index()).position() - q));
      }
    }
  }
  std::printf("robot_arm scene without motors after 1 s: shoulder or elbow off by %.3g rad\n",
              largest_fall);
  EXPECT_GT(largest_fall, 0.05);
  ASSERT_TRUE(limp_session.CloseSession().ok());

  // A motor per joint replaces the default for that joint: joint1 turns at 0.5 rad/s while the
  // others hold. After 0.2 s the velocity motor (effort limit 200 N m on a joint whose inertia is
  // under 1 kg m^2, so it reaches its speed within a step or two) has turned it 0.1 rad, to a
  // step's travel (5e-4 rad).
  v1::SceneFile turning = *scene;
  v1::SceneJointMotor* turn = turning.mutable_robots(0)->add_motors();
  turn->set_joint("joint1");
  turn->mutable_velocity()->set_target(0.5);
  absl::StatusOr<LoadedScene> turned = LoadScene(*connection_, turning, "turning");
  ASSERT_TRUE(turned.ok()) << turned.status();
  const SessionHandle turning_session =
      connection_->Session(turned->session.session_id, turned->session.controller_token);
  absl::StatusOr<v1::StepResponse> turned_step = turning_session.Step(200);
  ASSERT_TRUE(turned_step.ok()) << turned_step.status();
  const v1::RobotJointStates& turned_states = turned_step->joint_states(0);
  for (const v1::RobotJointInfo& joint : arm.joints()) {
    if (joint.name() == "joint1") {
      EXPECT_NEAR(turned_states.joints(joint.index()).velocity(), 0.5, 1e-3);
      EXPECT_NEAR(turned_states.joints(joint.index()).position(), 0.1, 5e-4);
    } else if (joint.name() == "joint2") {
      EXPECT_NEAR(turned_states.joints(joint.index()).position(), 0.8, 1e-3);
    }
  }
  ASSERT_TRUE(turning_session.CloseSession().ok());

  // A motor for a joint the robot does not have, or one that takes no motor (the fixed hand
  // mount): the load is refused naming the robot, the motor and the field, and the half-built
  // session is closed.
  for (const auto& [joint, message] :
       {std::pair{"elbow", "motors[1].joint: 'elbow' is not a joint of robot 'arm' (joints: "},
        std::pair{"hand_mount", "motors[1].joint: 'hand_mount' is fixed"}}) {
    v1::SceneFile bad = turning;
    v1::SceneJointMotor* motor = bad.mutable_robots(0)->add_motors();
    motor->set_joint(joint);
    motor->mutable_effort()->set_effort(1.0);
    absl::StatusOr<LoadedScene> refused = LoadScene(*connection_, bad, "bad motor");
    ASSERT_FALSE(refused.ok()) << joint;
    EXPECT_THAT(
        std::string(refused.status().message()),
        StartsWith(std::string("robots[0] (") + scene->robots(0).urdf_path() + "): " + message));
  }

  v1::SceneFile missing = *scene;
  missing.mutable_robots(0)->set_urdf_path("/nonexistent/arm.urdf");
  absl::StatusOr<LoadedScene> refused = LoadScene(*connection_, missing, "missing");
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()),
              StartsWith("robots[0] (/nonexistent/arm.urdf): "));
  absl::StatusOr<std::vector<v1::SessionSummary>> sessions = connection_->ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  EXPECT_EQ(sessions->size(), 1u);  // the first scene's; the refused one was closed
}

// The local_global scene through the service: the rollers' friction draws the soft ball through a
// gap half its diameter (the core scene's test, tests/physics/local_global_rollers_test.cc,
// checks the squeeze in detail; here the path through the API: rotating kinematic bodies as
// contact obstacles, hyperelastic bodies, the report).
TEST_F(ClientTest, SoftRollersDrawTheBallThroughTheGap) {
  absl::StatusOr<v1::SceneFile> scene = ReadSceneFile(ScenePath("soft_rollers"));
  ASSERT_TRUE(scene.ok()) << scene.status();
  absl::StatusOr<LoadedScene> loaded = LoadScene(*connection_, *scene, "rollers");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const SessionHandle session =
      connection_->Session(loaded->session.session_id, loaded->session.controller_token);
  auto mean_z = [](const v1::BodyState& body) {
    double z = 0.0;
    const int n = body.positions_m_size() / 3;
    for (int i = 0; i < n; ++i) z += body.positions_m(3 * i + 2);
    return z / n;
  };
  // 0.5 s: the ball lands on both rollers and is in the gap, in contact with both.
  absl::StatusOr<v1::StepResponse> squeezed = session.Step(50);
  ASSERT_TRUE(squeezed.ok()) << squeezed.status();
  ASSERT_EQ(squeezed->bodies(0).kind(), v1::BODY_KIND_HYPERELASTIC);
  std::set<int32_t> touched;
  for (const v1::ContactRecord& record : squeezed->contacts().contacts()) {
    touched.insert(record.body_a() == loaded->bodies[0].body_id() ? record.body_b()
                                                                  : record.body_a());
  }
  EXPECT_EQ(touched.size(), 2u);  // both rollers
  // 1.3 s in all (the core test's duration): the ball has passed the gap (its centre starts
  // 0.175 m above the rollers' axes and ends well below them) and no step diverged.
  absl::StatusOr<v1::StepResponse> passed = session.Step(80);
  ASSERT_TRUE(passed.ok()) << passed.status();
  EXPECT_LT(mean_z(passed->bodies(0)), -0.2);
  for (const v1::StepDiagnostics& d : passed->diagnostics()) EXPECT_FALSE(d.diverged());
}

// The soft-lift scene through the API: a controller drives the kinematic hand, which holds the
// upper soft cube by an attachment. Pressing the hand down 1 cm (the cubes start 3 mm apart)
// squeezes the upper cube onto the lower one: the report has contacts between the two
// hyperelastic bodies (one system) pushing the upper one up. Lifting the hand 10 cm raises the
// upper cube with it (its top face keeps the hand's offsets to 1e-9 m, as the attachment
// drives it) and away from the lower one (no contact left, more than 5 cm apart), while the
// lower cube stays on the ground (no vertex below -1 mm, the solver's contact rows hold to
// round-off) and nothing diverges (the hand's work is in the energy reference).
TEST_F(ClientTest, SoftLiftPressesAndLiftsTheHeldCube) {
  absl::StatusOr<v1::SceneFile> scene = ReadSceneFile(ScenePath("soft_lift"));
  ASSERT_TRUE(scene.ok()) << scene.status();
  absl::StatusOr<LoadedScene> loaded = LoadScene(*connection_, *scene, "lift");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const SessionHandle session =
      connection_->Session(loaded->session.session_id, loaded->session.controller_token);
  const int32_t lower = loaded->bodies[0].body_id();
  const int32_t upper = loaded->bodies[1].body_id();
  const int32_t hand = loaded->bodies[2].body_id();
  auto move_hand = [&](double z_m, int steps) {
    v1::StepControls controls;
    v1::BodyControl* control = controls.add_bodies();
    control->set_body_id(hand);
    control->mutable_kinematic_target()->mutable_position_m()->set_z(z_m);
    control->mutable_kinematic_target()->mutable_orientation()->set_w(1.0);
    return session.Step(steps, controls);
  };
  auto z_range = [](const v1::BodyState& body, bool lowest) {
    double z = lowest ? 1e9 : -1e9;
    for (int i = 2; i < body.positions_m_size(); i += 3) {
      z = lowest ? std::min(z, body.positions_m(i)) : std::max(z, body.positions_m(i));
    }
    return z;
  };
  auto state_of = [](const v1::StepResponse& r, int32_t id) -> const v1::BodyState& {
    for (const v1::BodyState& b : r.bodies()) {
      if (b.body_id() == id) return b;
    }
    ADD_FAILURE() << "no body " << id;
    return r.bodies(0);
  };
  absl::StatusOr<v1::StepResponse> pressed = move_hand(0.204, 30);  // 1 cm down over 0.3 s
  ASSERT_TRUE(pressed.ok()) << pressed.status();
  double up_on_upper = 0.0;
  int between = 0;
  for (const v1::ContactRecord& record : pressed->contacts().contacts()) {
    const bool ab = record.body_a() == upper && record.body_b() == lower;
    const bool ba = record.body_a() == lower && record.body_b() == upper;
    if (!ab && !ba) continue;
    ++between;
    up_on_upper += ab ? record.normal_impulse_ns().z() : -record.normal_impulse_ns().z();
  }
  EXPECT_GT(between, 0);
  EXPECT_GT(up_on_upper, 0.0);

  absl::StatusOr<v1::StepResponse> lifted = move_hand(0.304, 50);  // 10 cm up over 0.5 s
  ASSERT_TRUE(lifted.ok()) << lifted.status();
  for (const v1::ContactRecord& record : lifted->contacts().contacts()) {
    EXPECT_FALSE((record.body_a() == upper && record.body_b() == lower) ||
                 (record.body_a() == lower && record.body_b() == upper));
  }
  const v1::BodyState& hand_state = state_of(*lifted, hand);
  const v1::BodyState& upper_state = state_of(*lifted, upper);
  EXPECT_NEAR(hand_state.p_wb_m().z(), 0.304, 1e-9);
  // The attached top face sits 1 mm under the hand's bottom (0.304 - 0.01 - 0.001).
  for (int v = 18; v < 27; ++v) EXPECT_NEAR(upper_state.positions_m(3 * v + 2), 0.293, 1e-9);
  EXPECT_GT(z_range(upper_state, true), z_range(state_of(*lifted, lower), false) + 0.05);
  EXPECT_GT(z_range(state_of(*lifted, lower), true), -1e-3);
  for (const v1::StepDiagnostics& d : lifted->diagnostics()) EXPECT_FALSE(d.diverged());
}

// The demo's promise: a push moves the box along x, and viscous friction stops it afterwards.
TEST_F(ClientTest, PushBoxSlidesWhenPushedAndStops) {
  absl::StatusOr<v1::SceneFile> scene = ReadSceneFile(ScenePath("push_box"));
  ASSERT_TRUE(scene.ok()) << scene.status();
  absl::StatusOr<LoadedScene> loaded = LoadScene(*connection_, *scene, "pushed");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const SessionHandle session =
      connection_->Session(loaded->session.session_id, loaded->session.controller_token);
  v1::StepControls push;
  v1::BodyControl* control = push.add_bodies();
  control->set_body_id(loaded->bodies[0].body_id());
  control->mutable_force_n()->set_x(5.0);
  absl::StatusOr<v1::StepResponse> pushed = session.Step(50, push);  // 0.5 s
  ASSERT_TRUE(pushed.ok()) << pushed.status();
  const v1::BodyState& moving = pushed->bodies(0);
  EXPECT_GT(moving.p_wb_m().x(), 0.05);
  EXPECT_NEAR(moving.p_wb_m().z(), 0.1, 0.01);  // still on the ground
  EXPECT_GT(moving.v_wb_m_per_s().x(), 0.1);
  absl::StatusOr<v1::StepResponse> coasted = session.Step(150);  // 1.5 s without the push
  ASSERT_TRUE(coasted.ok()) << coasted.status();
  const v1::BodyState& stopped = coasted->bodies(0);
  EXPECT_GT(stopped.p_wb_m().x(), moving.p_wb_m().x());
  EXPECT_LT(std::abs(stopped.v_wb_m_per_s().x()), 0.01);
  EXPECT_NEAR(stopped.p_wb_m().z(), 0.1, 0.01);
  for (const v1::StepDiagnostics& d : coasted->diagnostics()) ASSERT_FALSE(d.diverged());
}

TEST(SceneFileParseTest, ErrorsCarryLineAndColumn) {
  const std::string text =
      "description: \"bad\"\n"
      "session {\n"
      "  nmae: \"typo\"\n"
      "}\n";
  absl::StatusOr<v1::SceneFile> scene = ParseSceneFile(text, "bad.textproto");
  ASSERT_FALSE(scene.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(scene.status())) << scene.status();
  // The parser points at the token after the unknown name: line 3, column 7 (1-based).
  EXPECT_THAT(std::string(scene.status().message()), StartsWith("bad.textproto:3:7: "));
  EXPECT_THAT(std::string(scene.status().message()), HasSubstr("nmae"));
}

// A scene's motors are checked when the file is read: each refusal names the robot, the motor and
// the field, at the field's line and column (1-based).
TEST(SceneFileParseTest, MotorErrorsNameTheLineAndField) {
  struct Case {
    std::string robot;  // inside `robots { ... }`, from line 4 on
    std::string message;
  };
  const std::vector<Case> cases = {
      {"  motors { joint: \"j1\" position { kp: 1 } }\n"
       "  motors { joint: \"j2\"\n"
       "           position { target: 0.5 kp: -5 } }\n",
       "m.textproto:6:35: robots[0].motors[1].position.kp: must be finite and >= 0, got -5"},
      {"  motors { velocity { target: 1 } }\n",
       "m.textproto:4:3: robots[0].motors[0].joint: required (the URDF joint name)"},
      {"  motors { joint: \"j1\" }\n  motors { joint: \"j1\" effort { effort: 1 } }\n",
       "m.textproto:5:12: robots[0].motors[1].joint: 'j1' is also motors[0]'s joint"},
      {"  motors { joint: \"j1\" velocity { target: 1 max_effort: 0 } }\n",
       "m.textproto:4:45: robots[0].motors[0].velocity.max_effort: must be finite and > 0, got 0"},
      {"  motors { joint: \"j1\" effort { effort: inf } }\n",
       "m.textproto:4:33: robots[0].motors[0].effort.effort: must be finite, got inf"},
      {"  default_motor { joint: \"j1\" position { kp: 1 } }\n",
       "m.textproto:4:19: robots[0].default_motor.joint: must be empty"},
      {"  default_motor { position { target: 0.2 kp: 1 } }\n",
       "m.textproto:4:30: robots[0].default_motor.position.target: must be 0 in default_motor"},
  };
  for (const Case& c : cases) {
    const std::string text =
        "session { pipeline: \"rigid_lcp\" }\nrobots {\n  urdf_path: \"a.urdf\"\n" + c.robot +
        "}\n";
    absl::StatusOr<v1::SceneFile> scene = ParseSceneFile(text, "m.textproto");
    ASSERT_FALSE(scene.ok()) << text;
    EXPECT_TRUE(absl::IsInvalidArgument(scene.status())) << scene.status();
    EXPECT_THAT(std::string(scene.status().message()), StartsWith(c.message)) << text;
  }
}

// A string escape can make bytes that are not UTF-8, which no server would decode (its gRPC answers
// UNIMPLEMENTED without a word): refused at parse time, naming the field (a fuzzing finding).
TEST(SceneFileParseTest, StringsThatAreNotUtf8AreRefusedNamingTheField) {
  const std::string text =
      "session { pipeline: \"penalty\" }\n"
      "bodies { name: \"ok\" }\n"
      "bodies { name: \"caf\\303\\251\" }\n"  // "café", valid UTF-8 through escapes
      "bodies { name: \"bad\\377\" }\n";
  absl::StatusOr<v1::SceneFile> scene = ParseSceneFile(text, "escape.textproto");
  ASSERT_FALSE(scene.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(scene.status())) << scene.status();
  EXPECT_EQ(scene.status().message(), "escape.textproto: bodies[2].name: not UTF-8 text");
  for (const char* bad : {"\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"}) {
    EXPECT_FALSE(scenes::IsValidUtf8(bad)) << bad;  // overlong, surrogate, past U+10FFFF, cut short
  }
  EXPECT_TRUE(scenes::IsValidUtf8("\xf0\x9f\xa4\x96 \xe2\x82\xac"));  // U+1F916, U+20AC
}

TEST(SceneFileParseTest, UnreadableFileIsNotFound) {
  absl::StatusOr<v1::SceneFile> scene = ReadSceneFile(ScenePath("no_such_scene"));
  EXPECT_TRUE(absl::IsNotFound(scene.status())) << scene.status();
  EXPECT_THAT(std::string(scene.status().message()), HasSubstr("no_such_scene.textproto"));
}

struct BadPrimitive {
  const char* what;
  v1::BodyKind kind;
  const char* primitive;  // PrimitiveMesh in text format
  absl::StatusCode code;
  const char* message_prefix;
};

class BadPrimitiveTest : public ClientTest, public ::testing::WithParamInterface<BadPrimitive> {};

TEST_P(BadPrimitiveTest, IsRefusedNamingTheFieldAndLeavesTheSessionUnchanged) {
  const BadPrimitive& bad = GetParam();
  absl::StatusOr<CreatedSession> created = connection_->CreateSession(BoxSceneRequest());
  ASSERT_TRUE(created.ok()) << created.status();
  const SessionHandle session =
      connection_->Session(created->session_id, created->controller_token);
  v1::BodySpec body;
  body.set_kind(bad.kind);
  absl::StatusOr<v1::SceneFile> parsed =
      ParseSceneFile(std::string("bodies { primitive { ") + bad.primitive + " } }", bad.what);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  *body.mutable_primitive() = parsed->bodies(0).primitive();
  if (bad.kind == v1::BODY_KIND_RIGID) body.mutable_rigid()->set_density_kg_per_m3(1000.0);
  if (bad.kind == v1::BODY_KIND_FEM) {
    body.mutable_fem()->set_youngs_modulus_pa(1e6);
    body.mutable_fem()->set_poisson_ratio(0.3);
    body.mutable_fem()->set_density_kg_per_m3(1000.0);
  }
  absl::StatusOr<v1::AddBodyResponse> added = session.AddBody(body);
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(added.status().code(), bad.code) << added.status();
  EXPECT_THAT(std::string(added.status().message()), StartsWith(bad.message_prefix))
      << added.status();
  absl::StatusOr<v1::GetSessionResponse> info = session.GetSession();
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->summary().num_bodies(), 0);
}

constexpr absl::StatusCode kInvalid = absl::StatusCode::kInvalidArgument;
constexpr absl::StatusCode kExhausted = absl::StatusCode::kResourceExhausted;

INSTANTIATE_TEST_SUITE_P(
    Primitives, BadPrimitiveTest,
    ::testing::Values(
        BadPrimitive{"tube_zero", v1::BODY_KIND_RIGID,
                     "torus { major_radius_m: 0.5 tube_radius_m: 0 major_segments: 8 "
                     "tube_segments: 4 }",
                     kInvalid, "body.primitive.torus.tube_radius_m: must be finite and > 0"},
        BadPrimitive{"tube_too_thick", v1::BODY_KIND_RIGID,
                     "torus { major_radius_m: 0.5 tube_radius_m: 0.5 major_segments: 8 "
                     "tube_segments: 4 }",
                     kInvalid, "body.primitive.torus.tube_radius_m: must be < major_radius_m"},
        BadPrimitive{"torus_segments", v1::BODY_KIND_STATIC,
                     "torus { major_radius_m: 0.5 tube_radius_m: 0.1 major_segments: 2 "
                     "tube_segments: 4 }",
                     kInvalid, "body.primitive.torus.major_segments: must be >= 3, got 2"},
        BadPrimitive{"torus_too_big", v1::BODY_KIND_STATIC,
                     "torus { major_radius_m: 0.5 tube_radius_m: 0.1 major_segments: 100000 "
                     "tube_segments: 100000 }",
                     kExhausted, "body.primitive.torus: 10000000000 vertices exceed"},
        BadPrimitive{"sphere_subdivisions", v1::BODY_KIND_RIGID,
                     "sphere { radius_m: 0.1 subdivisions: 10 }", kInvalid,
                     "body.primitive.sphere.subdivisions: must be in [0, 9], got 10"},
        BadPrimitive{"sphere_too_big", v1::BODY_KIND_RIGID,
                     "sphere { radius_m: 0.1 subdivisions: 9 }", kExhausted,
                     "body.primitive.sphere: 2621442 vertices exceed"},
        BadPrimitive{"box_negative", v1::BODY_KIND_RIGID,
                     "box { half_extents_m { x: 0.1 y: -1 z: 0.1 } }", kInvalid,
                     "body.primitive.box.half_extents_m.y: must be finite and > 0, got -1"},
        BadPrimitive{"box_unset", v1::BODY_KIND_KINEMATIC, "box { }", kInvalid,
                     "body.primitive.box.half_extents_m.x: must be finite and > 0, got 0"},
        BadPrimitive{"cylinder_height", v1::BODY_KIND_STATIC,
                     "cylinder { radius_m: 0.01 height_m: nan segments: 16 }", kInvalid,
                     "body.primitive.cylinder.height_m: must be finite and > 0"},
        BadPrimitive{"capsule_half_length", v1::BODY_KIND_RIGID,
                     "capsule { radius_m: 0.1 half_length_m: -0.1 segments: 8 cap_rings: 2 }",
                     kInvalid, "body.primitive.capsule.half_length_m: must be finite and >= 0"},
        BadPrimitive{"capsule_rings", v1::BODY_KIND_RIGID,
                     "capsule { radius_m: 0.1 half_length_m: 0.1 segments: 8 cap_rings: 0 }",
                     kInvalid, "body.primitive.capsule.cap_rings: must be >= 1, got 0"},
        BadPrimitive{"bowl_thickness", v1::BODY_KIND_STATIC,
                     "bowl { inner_radius_m: 0.3 thickness_m: 0 segments: 16 rings: 4 }", kInvalid,
                     "body.primitive.bowl.thickness_m: must be finite and > 0, got 0"},
        BadPrimitive{"bowl_rings", v1::BODY_KIND_STATIC,
                     "bowl { inner_radius_m: 0.3 thickness_m: 0.03 segments: 16 rings: 1 }",
                     kInvalid, "body.primitive.bowl.rings: must be >= 2, got 1"},
        BadPrimitive{"bowl_too_big", v1::BODY_KIND_STATIC,
                     "bowl { inner_radius_m: 0.3 thickness_m: 0.03 segments: 100000 rings: "
                     "100000 }",
                     kExhausted, "body.primitive.bowl: 20000000002 vertices exceed"},
        BadPrimitive{"open_rigid", v1::BODY_KIND_RIGID,
                     "cloth_grid { size_x_m: 1 size_y_m: 1 cells_x: 4 cells_y: 4 }", kInvalid,
                     "body.primitive.cloth_grid: an open surface"},
        BadPrimitive{"cloth_cells", v1::BODY_KIND_STATIC,
                     "cloth_grid { size_x_m: 1 size_y_m: 1 cells_x: 4 cells_y: 0 }", kInvalid,
                     "body.primitive.cloth_grid.cells_y: must be >= 1, got 0"},
        BadPrimitive{"tet_for_rigid", v1::BODY_KIND_RIGID,
                     "tet_box { half_extents_m { x: 0.1 y: 0.1 z: 0.1 } cells_x: 1 cells_y: 1 "
                     "cells_z: 1 }",
                     kInvalid, "body.primitive: a tet shape"},
        BadPrimitive{"surface_for_fem", v1::BODY_KIND_FEM,
                     "box { half_extents_m { x: 0.1 y: 0.1 z: 0.1 } }", kInvalid,
                     "body.primitive: a surface shape"},
        BadPrimitive{"tet_box_cells", v1::BODY_KIND_FEM,
                     "tet_box { half_extents_m { x: 0.1 y: 0.1 z: 0.1 } cells_x: 1 cells_y: 1 "
                     "cells_z: 0 }",
                     kInvalid, "body.primitive.tet_box.cells_z: must be >= 1, got 0"},
        BadPrimitive{"tet_sphere_too_big", v1::BODY_KIND_FEM,
                     "tet_sphere { radius_m: 0.1 resolution: 1000 }", kExhausted,
                     "body.primitive.tet_sphere: 1003003001 vertices exceed"},
        BadPrimitive{"no_shape", v1::BODY_KIND_STATIC, "", kInvalid,
                     "body.primitive: no shape set"}),
    [](const ::testing::TestParamInfo<BadPrimitive>& info) { return info.param.what; });

// Deformables from primitives: counts as the shapes' documentation gives them.
TEST_F(ClientTest, ClothAndFemBodiesFromPrimitives) {
  absl::StatusOr<CreatedSession> created = connection_->CreateSession(BoxSceneRequest());
  ASSERT_TRUE(created.ok()) << created.status();
  const SessionHandle session =
      connection_->Session(created->session_id, created->controller_token);
  v1::BodySpec cloth;
  cloth.set_kind(v1::BODY_KIND_CLOTH);
  v1::ClothGridShape* grid = cloth.mutable_primitive()->mutable_cloth_grid();
  grid->set_size_x_m(1.0);
  grid->set_size_y_m(0.5);
  grid->set_cells_x(8);
  grid->set_cells_y(4);
  cloth.mutable_cloth()->set_area_density_kg_per_m2(0.2);
  cloth.mutable_cloth()->set_stretch_stiffness_n_per_m(100.0);
  cloth.mutable_pose()->mutable_position_m()->set_z(0.5);
  absl::StatusOr<v1::AddBodyResponse> added_cloth = session.AddBody(cloth);
  ASSERT_TRUE(added_cloth.ok()) << added_cloth.status();
  EXPECT_EQ(added_cloth->num_vertices(), 9 * 5);
  EXPECT_NEAR(added_cloth->mass_kg(), 0.2 * 0.5, 1e-12);

  v1::BodySpec fem;
  fem.set_kind(v1::BODY_KIND_FEM);
  v1::TetBoxShape* box = fem.mutable_primitive()->mutable_tet_box();
  box->mutable_half_extents_m()->set_x(0.1);
  box->mutable_half_extents_m()->set_y(0.1);
  box->mutable_half_extents_m()->set_z(0.05);
  box->set_cells_x(2);
  box->set_cells_y(2);
  box->set_cells_z(1);
  fem.mutable_fem()->set_youngs_modulus_pa(1e5);
  fem.mutable_fem()->set_poisson_ratio(0.3);
  fem.mutable_fem()->set_density_kg_per_m3(1000.0);
  fem.mutable_pose()->mutable_position_m()->set_z(0.2);
  absl::StatusOr<v1::AddBodyResponse> added_fem = session.AddBody(fem);
  ASSERT_TRUE(added_fem.ok()) << added_fem.status();
  EXPECT_EQ(added_fem->num_vertices(), 3 * 3 * 2);
  EXPECT_NEAR(added_fem->mass_kg(), 0.2 * 0.2 * 0.1 * 1000.0, 1e-9);
}

TEST_F(ClientTest, RefusedBodyClosesTheHalfLoadedSession) {
  absl::StatusOr<v1::SceneFile> scene = ParseSceneFile(R"pb(
    session { name: "half" }
    bodies {
      name: "ok"
      kind: BODY_KIND_STATIC
      primitive { box { half_extents_m { x: 1 y: 1 z: 1 } } }
    }
    bodies {
      name: "bad"
      kind: BODY_KIND_STATIC
      primitive { sphere { radius_m: -1 } }
    }
  )pb");
  ASSERT_TRUE(scene.ok()) << scene.status();
  absl::StatusOr<LoadedScene> loaded = LoadScene(*connection_, *scene);
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(loaded.status())) << loaded.status();
  EXPECT_THAT(std::string(loaded.status().message()),
              StartsWith("bodies[1] (bad): body.primitive.sphere.radius_m: must be"));
  absl::StatusOr<std::vector<v1::SessionSummary>> sessions = connection_->ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  EXPECT_TRUE(sessions->empty());
}

// `contactsim-server --scene`: the same loader over the server's in-process channel.
TEST_F(ClientTest, StartupScenesLoadThroughTheServersOwnApi) {
  absl::StatusOr<std::vector<server::StartupScene>> scenes =
      server::LoadStartupScenes(*server_, {ScenePath("push_box"), ScenePath("box")});
  ASSERT_TRUE(scenes.ok()) << scenes.status();
  ASSERT_EQ(scenes->size(), 2u);
  const server::StartupScene& first = (*scenes)[0];
  EXPECT_EQ(first.file, ScenePath("push_box"));
  EXPECT_EQ(server::StartupSceneLine(first),
            "scene file=" + ScenePath("push_box") +
                " session_id=" + first.loaded.session.session_id +
                " controller_token=" + first.loaded.session.controller_token +
                " viewer_token=" + first.loaded.session.viewer_token);
  // The tokens work from outside the process.
  absl::StatusOr<v1::StepResponse> step =
      connection_->Session(first.loaded.session.session_id, first.loaded.session.controller_token)
          .Step(1);
  ASSERT_TRUE(step.ok()) << step.status();
  absl::StatusOr<std::vector<v1::SessionSummary>> sessions = connection_->ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  EXPECT_EQ(sessions->size(), 2u);
}

// --scene with mesh files: the server reads them itself (here by absolute path; relative paths
// are tested through `contactsim load` in body_cli_test.cc), and a file it refuses closes the
// half-built session naming the entry.
TEST_F(ClientTest, StartupSceneUploadsItsMeshFiles) {
  const std::string meshes = std::string(CONTACTSIM_TEST_DATA_DIR) + "/meshes";
  const std::string path = ::testing::TempDir() + "/mesh_file_scene.textproto";
  {
    std::ofstream file(path);
    file << "mesh_files { name: \"cube\" path: \"" << meshes
         << "/cube_100mm_unshared.obj\" scale_to_m: 0.001 }\n"
            "bodies { kind: BODY_KIND_RIGID mesh_id: \"cube\" rigid { density_kg_per_m3: 1000 } "
            "}\n";
  }
  absl::StatusOr<std::vector<server::StartupScene>> scenes =
      server::LoadStartupScenes(*server_, {path});
  ASSERT_TRUE(scenes.ok()) << scenes.status();
  ASSERT_EQ((*scenes)[0].loaded.bodies.size(), 1u);
  EXPECT_EQ((*scenes)[0].loaded.bodies[0].num_vertices(), 8);  // 36 corners welded
  EXPECT_NEAR((*scenes)[0].loaded.bodies[0].mass_kg(), 1.0, 1e-12);

  absl::StatusOr<v1::SceneFile> read = ReadSceneFile(path);  // an absolute path stays as it is
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->mesh_files(0).path(), meshes + "/cube_100mm_unshared.obj");

  const std::string bad = ::testing::TempDir() + "/bad_mesh_file_scene.textproto";
  {
    std::ofstream file(bad);
    file << "mesh_files { name: \"cube\" path: \"" << meshes
         << "/cube_100mm_unshared.obj\" format: MESH_FILE_FORMAT_GMSH }\n";
  }
  absl::StatusOr<std::vector<server::StartupScene>> refused =
      server::LoadStartupScenes(*server_, {bad});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()),
              StartsWith(bad + ": mesh_files[0] (cube): file_bytes: line 1:"))
      << refused.status();
  absl::StatusOr<std::vector<v1::SessionSummary>> sessions = connection_->ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  EXPECT_EQ(sessions->size(), 1u);  // the first scene's; the refused one was closed
}

TEST_F(ClientTest, StartupSceneErrorsNameTheFile) {
  const std::string path = ::testing::TempDir() + "/broken_scene.textproto";
  {
    std::ofstream file(path);
    file << "session {\n  name: \"x\"\n}\nbodies { name: \"nokind\" }\n";
  }
  absl::StatusOr<std::vector<server::StartupScene>> scenes =
      server::LoadStartupScenes(*server_, {path});
  ASSERT_FALSE(scenes.ok());
  EXPECT_THAT(std::string(scenes.status().message()),
              StartsWith(path + ": bodies[0] (nokind): body.kind: must be set"))
      << scenes.status();
}

}  // namespace
}  // namespace contactsim::client::clienttest
