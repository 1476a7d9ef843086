// service_latency_bench: the lockstep overhead of the service. One process starts the server
// library on 127.0.0.1 (an ephemeral port) and, through the C++ client library on one channel,
// times the round trip of Step(n_steps = 1) on a one-body scene (a 1 kg box resting on the ground
// plane) against the bare Ping rpc and GetSession (token check, session lock, small reply), in
// alternating blocks so that all see the same noise. Then times World::Step(1) of the same scene
// built in-process from the same messages (the physics alone) to show how much of Step's round trip
// is the step itself.
//
// --scene arm (issue 24): the repository's arm holding one part (bench/arm_hold_scene.h) in a
// rigid_lcp session at 1 kHz instead of the box; each timed Step sends the arm's seven joint
// commands and asks for reply_parts {joint_states, body_poses}, what a 1 kHz controller needs.
//
//   service_latency_bench [--calls 20000] [--block 100] [--warmup 1000] [--scene box|arm]
//                         [--no-heap-tuning]
//
// Targets (issues 4 and 24): Step / Ping at most 1.3x at p50 and 1.5x at p99.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/arm_hold_scene.h"
#include "clients/cpp/box_mesh.h"
#include "clients/cpp/client.h"
#include "clients/cpp/percentiles.h"
#include "core/sim/world.h"
#include "server/convert/body_convert.h"
#include "server/convert/settings_convert.h"
#include "server/convert/step_convert.h"
#include "server/service/server.h"
#include "tbb/global_control.h"

namespace {

namespace v1 = contactsim::v1;
using contactsim::client::demo::PercentileOfSorted;
using contactsim::client::demo::Sorted;
using Clock = std::chrono::steady_clock;

// The tested box scene (scenes/requests/box_scene_request.h): CPF, k = 2.5 kN/m, dt = 10 ms, a 1 kg
// cube on z = 0. It rests within 3 s (tests/physics/box_rest_jitter_test.cc).
v1::CreateSessionRequest SceneRequest() {
  v1::CreateSessionRequest request;
  request.set_pipeline("penalty");
  request.set_name("latency");
  request.mutable_settings()->set_dt_s(0.01);
  request.mutable_settings()->set_stiffness_n_per_m(2500.0);
  request.mutable_settings()->set_contact_model(v1::CONTACT_MODEL_CPF);
  request.add_ground_planes()->mutable_normal()->set_z(1.0);
  return request;
}

v1::BodySpec Box() {
  v1::BodySpec body;
  body.set_name("box");
  body.set_kind(v1::BODY_KIND_RIGID);
  *body.mutable_triangle_mesh() = contactsim::client::BoxMesh(0.1, 0.1, 0.1);
  body.mutable_rigid()->set_density_kg_per_m3(125.0);
  body.mutable_pose()->mutable_position_m()->set_z(0.1005);
  return body;
}

constexpr int kSettleSteps = 300;  // 3 s: the box is at rest

struct Row {
  std::string name;
  std::vector<double> sorted_us;
  double Q(double q) const { return PercentileOfSorted(sorted_us, q); }
};

void PrintRow(const Row& row) {
  std::printf("| %-38s | %7zu | %8.1f | %8.1f | %8.1f | %8.1f |\n", row.name.c_str(),
              row.sorted_us.size(), row.Q(0.5), row.Q(0.9), row.Q(0.99), row.Q(0.999));
}

// The same scene as a core World in this process, through the server's own converters.
absl::StatusOr<contactsim::core::World> CoreWorld() {
  namespace server = contactsim::server;
  const v1::CreateSessionRequest request = SceneRequest();
  auto settings =
      server::WorldSettingsFromProto(request.settings(), "settings", server::ServerLimits{});
  if (!settings.ok()) return settings.status();
  auto world = contactsim::core::World::Create(*settings);
  if (!world.ok()) return world.status();
  auto plane = server::GroundPlaneFromProto(request.ground_planes(0), "ground_planes[0]");
  if (!plane.ok()) return plane.status();
  if (auto id = world->AddGroundPlane(plane->normal, plane->offset_m); !id.ok()) return id.status();
  auto body = server::BodyFromProto(Box(), server::ServerLimits{}, "body");
  if (!body.ok()) return body.status();
  if (auto id = world->AddBody(std::move(body->body), std::move(body->options)); !id.ok()) {
    return id.status();
  }
  return world;
}

int Fail(const char* what, const absl::Status& status) {
  std::fprintf(stderr, "service_latency_bench: %s: %s\n", what, status.ToString().c_str());
  return 1;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A controller's Step(n_steps = 1) with reply_parts (SessionHandle::StepInto has none): the
// request and the reply on an arena whose first block is kept, as clients/cpp/step_reply.h does,
// so that the two scenes' Step rows pay the same client costs.
class PartsStep {
 public:
  PartsStep(const contactsim::client::Connection& connection, std::string session_id,
            std::string token, v1::StepControls controls, v1::StepReplyParts parts)
      : connection_(connection),
        session_id_(std::move(session_id)),
        token_(std::move(token)),
        controls_(std::move(controls)),
        parts_(std::move(parts)),
        first_block_(new char[kFirstBlockBytes]),
        arena_(Options(first_block_.get())) {}

  absl::Status Call() {
    arena_.Reset();
    auto* request = google::protobuf::Arena::CreateMessage<v1::StepRequest>(&arena_);
    response_ = google::protobuf::Arena::CreateMessage<v1::StepResponse>(&arena_);
    request->set_session_id(session_id_);
    request->set_n_steps(1);
    *request->mutable_controls() = controls_;
    *request->mutable_reply_parts() = parts_;
    grpc::ClientContext context;
    connection_.PrepareSessionContext(context, session_id_, token_);
    const grpc::Status status = connection_.stub().Step(&context, *request, response_);
    if (!status.ok()) {
      return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                          status.error_message());
    }
    return absl::OkStatus();
  }
  const v1::StepResponse& response() const { return *response_; }

 private:
  static constexpr size_t kFirstBlockBytes = 16 * 1024;
  static google::protobuf::ArenaOptions Options(char* block) {
    google::protobuf::ArenaOptions options;
    options.initial_block = block;
    options.initial_block_size = kFirstBlockBytes;
    return options;
  }
  const contactsim::client::Connection& connection_;
  std::string session_id_, token_;
  v1::StepControls controls_;
  v1::StepReplyParts parts_;
  std::unique_ptr<char[]> first_block_;  // before arena_: the arena uses it until destroyed
  google::protobuf::Arena arena_;
  v1::StepResponse* response_ = nullptr;
};

// The arm scene through the service (bench/arm_hold_scene.h): AddRobot, the start pose, the
// grasp and the lift, one Step(1) per tick; returns the robot id.
absl::StatusOr<int32_t> SetUpArmSession(const contactsim::client::SessionHandle& controller,
                                        const std::string& urdf) {
  namespace bench = contactsim::bench;
  if (auto cube = controller.AddBody(bench::ArmHoldCube()); !cube.ok()) return cube.status();
  auto robot = controller.AddRobot(bench::ArmHoldRobot(urdf));
  if (!robot.ok()) return robot.status();
  auto pose = bench::ArmHoldStartPose();
  if (!pose.ok()) return pose.status();
  if (auto set = controller.SetJointState(robot->robot_id(), *pose); !set.ok()) {
    return set.status();
  }
  auto steps = bench::ArmHoldSetUpSteps(robot->robot_id());
  if (!steps.ok()) return steps.status();
  for (const v1::StepControls& controls : *steps) {
    if (auto s = controller.Step(1, controls); !s.ok()) return s.status();
  }
  return robot->robot_id();
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 20000;
  int block = 100;
  int warmup = 1000;
  CLI::App app{"Step(n_steps = 1) round trip against Ping on one loopback channel"};
  app.add_option("--calls", calls, "timed calls of each rpc")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--block", block, "calls per alternating block")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--warmup", warmup, "untimed calls of each rpc first")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  int physics_threads = 0;
  app.add_option("--physics-threads", physics_threads,
                 "TBB threads for the whole process (0: TBB's default, one per core)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  std::string scene = "box";
  app.add_option("--scene", scene,
                 "box: a 1 kg box on the ground (penalty); arm: the arm holding a part (rigid_lcp, "
                 "bench/arm_hold_scene.h)")
      ->check(CLI::IsMember({"box", "arm"}))
      ->capture_default_str();
  std::string urdf_path = std::string(CONTACTSIM_REPO_DIR) + "/scenes/robots/six_axis_arm.urdf";
  app.add_option("--urdf", urdf_path, "the arm's URDF (--scene arm)")->capture_default_str();
  bool no_heap_tuning = false;
  app.add_flag("--no-heap-tuning", no_heap_tuning,
               "the in-process server keeps glibc's malloc thresholds (the server's "
               "--no-heap-tuning; server/service/heap_tuning.h)");
  CLI11_PARSE(app, argc, argv);
  const bool arm = scene == "arm";
  const std::string urdf = arm ? ReadText(urdf_path) : "";
  if (arm && urdf.empty()) {
    return Fail("--urdf", absl::NotFoundError(urdf_path + " is empty or unreadable"));
  }
  std::optional<tbb::global_control> tbb_limit;
  if (physics_threads > 0) {
    tbb_limit.emplace(tbb::global_control::max_allowed_parallelism, physics_threads);
  }

  contactsim::server::ServerOptions server_options;
  server_options.listen_address = "127.0.0.1:0";
  server_options.heap_tuning = !no_heap_tuning;
  auto server = contactsim::server::ContactSimServer::Start(server_options);
  if (!server.ok()) return Fail("server", server.status());
  contactsim::client::Connection connection({.target = (*server)->address()});
  auto created =
      connection.CreateSession(arm ? contactsim::bench::ArmHoldSessionRequest() : SceneRequest());
  if (!created.ok()) return Fail("CreateSession", created.status());
  const auto controller = connection.Session(created->session_id, created->controller_token);
  std::optional<PartsStep> arm_step;
  if (arm) {
    auto robot_id = SetUpArmSession(controller, urdf);
    if (!robot_id.ok()) return Fail("arm set-up", robot_id.status());
    auto hold = contactsim::bench::ArmHoldControls(*robot_id);
    if (!hold.ok()) return Fail("arm controls", hold.status());
    v1::StepReplyParts parts;
    parts.set_joint_states(true);
    parts.set_body_poses(true);
    arm_step.emplace(connection, created->session_id, created->controller_token, *hold, parts);
  } else {
    if (auto added = controller.AddBody(Box()); !added.ok()) return Fail("AddBody", added.status());
    auto settled = controller.Step(kSettleSteps);
    if (!settled.ok()) return Fail("Step", settled.status());
  }

  int contacts = 0;
  size_t reply_bytes = 0;
  auto time_ping = [&]() -> absl::StatusOr<double> {
    const Clock::time_point t0 = Clock::now();
    auto pong = connection.Ping();
    const Clock::time_point t1 = Clock::now();
    if (!pong.ok()) return pong.status();
    return std::chrono::duration<double, std::micro>(t1 - t0).count();
  };
  auto time_get_session = [&]() -> absl::StatusOr<double> {
    const Clock::time_point t0 = Clock::now();
    auto info = controller.GetSession();
    const Clock::time_point t1 = Clock::now();
    if (!info.ok()) return info.status();
    return std::chrono::duration<double, std::micro>(t1 - t0).count();
  };
  // A controller's loop: StepInto with one StepReply (request and reply on its arena).
  const contactsim::v1::StepControls no_controls;
  contactsim::client::StepReply reply;
  double cube_z = 0.0;  // the held part's height in the last reply (--scene arm)
  auto time_step = [&]() -> absl::StatusOr<double> {
    const Clock::time_point t0 = Clock::now();
    const absl::Status stepped =
        arm ? arm_step->Call() : controller.StepInto(1, no_controls, &reply);
    const Clock::time_point t1 = Clock::now();
    if (!stepped.ok()) return stepped;
    const v1::StepResponse& response = arm ? arm_step->response() : reply.response();
    contacts = response.contacts().contacts_size();
    reply_bytes = response.ByteSizeLong();
    if (arm) cube_z = response.bodies(0).p_wb_m().z();  // the cube: body 0, added first
    return std::chrono::duration<double, std::micro>(t1 - t0).count();
  };
  // Ping: the transport's floor. GetSession: a unary call with the token check, the session
  // lookup and lock and a small reply, so Step - GetSession is what stepping itself adds.
  Row ping{"Ping", {}}, get_session{"GetSession (token, session lock)", {}},
      step{"Step(n_steps = 1)", {}};
  struct Timed {
    Row* row;
    std::function<absl::StatusOr<double>()> call;
  };
  const Timed timed[] = {{&ping, time_ping}, {&get_session, time_get_session}, {&step, time_step}};
  for (int i = 0; i < warmup; ++i) {
    for (const Timed& t : timed) {
      if (auto us = t.call(); !us.ok()) return Fail(t.row->name.c_str(), us.status());
    }
  }
  for (const Timed& t : timed) t.row->sorted_us.reserve(calls);
  for (int done = 0; done < calls; done += block) {
    const int n = std::min(block, calls - done);
    for (const Timed& t : timed) {
      if (getenv("ONLY") && t.row->name != getenv("ONLY")) continue;
      for (int i = 0; i < n; ++i) {
        auto us = t.call();
        if (!us.ok()) return Fail(t.row->name.c_str(), us.status());
        t.row->sorted_us.push_back(*us);
      }
    }
  }
  for (const Timed& t : timed) t.row->sorted_us = Sorted(std::move(t.row->sorted_us));
  (*server)->Shutdown(std::chrono::seconds(2));

  // The physics alone: the same scene, settled the same way, World::Step(1) in this process
  // (the arm: its joint commands applied every step, as the service does).
  int32_t robot_id = 0, cube_id = 0;
  auto world = arm ? contactsim::bench::ArmHoldCoreWorld(urdf, &robot_id, &cube_id) : CoreWorld();
  if (!world.ok()) return Fail("core world", world.status());
  contactsim::core::StepControls hold;
  if (arm) {
    auto message = contactsim::bench::ArmHoldControls(robot_id);
    if (!message.ok()) return Fail("arm controls", message.status());
    auto controls = contactsim::server::StepControlsFromProto(*message);
    if (!controls.ok()) return Fail("arm controls", controls.status());
    hold = *std::move(controls);
  }
  std::vector<contactsim::core::StepDiagnostics> diagnostics;
  contactsim::core::StepOutcome outcome;
  auto physics_step = [&](int n) {
    diagnostics.clear();
    outcome = {};
    return arm ? world->Step(n, hold, &outcome) : world->Step(n, &diagnostics);
  };
  if (auto s = physics_step(arm ? warmup : kSettleSteps + warmup); !s.ok()) {
    return Fail("World::Step", s);
  }
  Row physics{"World::Step(1), same scene (core only)", {}};
  physics.sorted_us.reserve(calls);
  int lcp_size = 0;
  std::vector<double> pivots;  // Lemke's per step (--scene arm)
  for (int i = 0; i < calls; ++i) {
    const Clock::time_point t0 = Clock::now();
    const absl::Status s = physics_step(1);
    const Clock::time_point t1 = Clock::now();
    if (!s.ok()) return Fail("World::Step", s);
    physics.sorted_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    if (arm) {
      lcp_size = std::max(lcp_size, outcome.diagnostics.back().rigid_lcp.lcp_size);
      pivots.push_back(outcome.diagnostics.back().rigid_lcp.pivots);
    }
  }
  physics.sorted_us = Sorted(std::move(physics.sorted_us));
  pivots = Sorted(std::move(pivots));

  if (arm) {
    std::printf(
        "Step(n_steps = 1) vs Ping (and GetSession), %d calls each in alternating blocks of %d, "
        "one loopback channel; the arm holding a 0.1 kg cube (bench/arm_hold_scene.h), seven "
        "joint commands per call, reply_parts {joint_states, body_poses} (Step reply %zu bytes; "
        "the cube's centre at z = %.4f m in the last reply, %.4f m asked; largest LCP %d "
        "unknowns, Lemke pivots per step p50 %.0f, p90 %.0f, max %.0f)\n\n",
        calls, block, reply_bytes, cube_z, contactsim::bench::ArmHoldLiftedHeight(), lcp_size,
        PercentileOfSorted(pivots, 0.5), PercentileOfSorted(pivots, 0.9), pivots.back());
  } else {
    std::printf(
        "Step(n_steps = 1) vs Ping (and GetSession), %d calls each in alternating blocks of %d, "
        "one loopback channel; one 1 kg box resting on the ground (%d contact pairs per step, "
        "Step reply %zu bytes)\n\n",
        calls, block, contacts, reply_bytes);
  }
  std::printf("| %-38s | %7s | %8s | %8s | %8s | %8s |\n", "call", "calls", "p50 us", "p90 us",
              "p99 us", "p99.9 us");
  std::printf("|%s|%s|%s|%s|%s|%s|\n", std::string(40, '-').c_str(), std::string(9, '-').c_str(),
              std::string(10, '-').c_str(), std::string(10, '-').c_str(),
              std::string(10, '-').c_str(), std::string(10, '-').c_str());
  PrintRow(ping);
  PrintRow(get_session);
  PrintRow(step);
  PrintRow(physics);
  std::printf("| %-38s | %7s | %7.2fx | %7.2fx | %7.2fx | %7.2fx |\n", "ratio Step / Ping", "",
              step.Q(0.5) / ping.Q(0.5), step.Q(0.9) / ping.Q(0.9), step.Q(0.99) / ping.Q(0.99),
              step.Q(0.999) / ping.Q(0.999));
  std::printf("\nTargets: Step/Ping p50 <= 1.3x: %s (%.2fx); p99 <= 1.5x: %s (%.2fx)\n",
              step.Q(0.5) / ping.Q(0.5) <= 1.3 ? "met" : "NOT met", step.Q(0.5) / ping.Q(0.5),
              step.Q(0.99) / ping.Q(0.99) <= 1.5 ? "met" : "NOT met", step.Q(0.99) / ping.Q(0.99));
  std::printf(
      "Physics step p50 = %.1f%% of Step's p50 round trip. At p50: Step - Ping = %.1f us, of "
      "which GetSession - Ping = %.1f us (token, session, a unary call with metadata) and Step - "
      "GetSession = %.1f us (stepping, %.1f us of it the physics; the reply's state and "
      "contacts; the frame published)\n",
      100.0 * physics.Q(0.5) / step.Q(0.5), step.Q(0.5) - ping.Q(0.5),
      get_session.Q(0.5) - ping.Q(0.5), step.Q(0.5) - get_session.Q(0.5), physics.Q(0.5));
  return 0;
}
