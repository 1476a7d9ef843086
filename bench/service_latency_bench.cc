// service_latency_bench: the lockstep overhead of the service. One process starts the server
// library on 127.0.0.1 (an ephemeral port) and, through the C++ client library on one channel,
// times the round trip of Step(n_steps = 1) on a one-body scene (a 1 kg box resting on the ground
// plane) against the bare Ping rpc and GetSession (token check, session lock, small reply), in
// alternating blocks so that all see the same noise. Then times World::Step(1) of the same scene
// built in-process from the same messages (the physics alone) to show how much of Step's round trip
// is the step itself.
//
//   service_latency_bench [--calls 20000] [--block 100] [--warmup 1000]
//
// Targets (issue 4): Step / Ping at most 1.3x at p50 and 1.5x at p99.
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "clients/cpp/box_mesh.h"
#include "clients/cpp/client.h"
#include "clients/cpp/percentiles.h"
#include "core/sim/world.h"
#include "server/convert/body_convert.h"
#include "server/convert/settings_convert.h"
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
  CLI11_PARSE(app, argc, argv);
  std::optional<tbb::global_control> tbb_limit;
  if (physics_threads > 0) {
    tbb_limit.emplace(tbb::global_control::max_allowed_parallelism, physics_threads);
  }

  contactsim::server::ServerOptions server_options;
  server_options.listen_address = "127.0.0.1:0";
  auto server = contactsim::server::ContactSimServer::Start(server_options);
  if (!server.ok()) return Fail("server", server.status());
  contactsim::client::Connection connection({.target = (*server)->address()});
  auto created = connection.CreateSession(SceneRequest());
  if (!created.ok()) return Fail("CreateSession", created.status());
  const auto controller = connection.Session(created->session_id, created->controller_token);
  if (auto added = controller.AddBody(Box()); !added.ok()) return Fail("AddBody", added.status());
  auto settled = controller.Step(kSettleSteps);
  if (!settled.ok()) return Fail("Step", settled.status());

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
  auto time_step = [&]() -> absl::StatusOr<double> {
    const Clock::time_point t0 = Clock::now();
    const absl::Status stepped = controller.StepInto(1, no_controls, &reply);
    const Clock::time_point t1 = Clock::now();
    if (!stepped.ok()) return stepped;
    contacts = reply->contacts().contacts_size();
    reply_bytes = reply->ByteSizeLong();
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

  // The physics alone: the same scene, settled the same way, World::Step(1) in this process.
  auto world = CoreWorld();
  if (!world.ok()) return Fail("core world", world.status());
  std::vector<contactsim::core::StepDiagnostics> diagnostics;
  if (auto s = world->Step(kSettleSteps + warmup, &diagnostics); !s.ok()) {
    return Fail("World::Step", s);
  }
  Row physics{"World::Step(1), same scene (core only)", {}};
  physics.sorted_us.reserve(calls);
  for (int i = 0; i < calls; ++i) {
    diagnostics.clear();
    const Clock::time_point t0 = Clock::now();
    const absl::Status s = world->Step(1, &diagnostics);
    const Clock::time_point t1 = Clock::now();
    if (!s.ok()) return Fail("World::Step", s);
    physics.sorted_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  physics.sorted_us = Sorted(std::move(physics.sorted_us));

  std::printf(
      "Step(n_steps = 1) vs Ping (and GetSession), %d calls each in alternating blocks of %d, one "
      "loopback "
      "channel; one 1 kg box resting on the ground (%d contact pairs per step, Step reply "
      "%zu bytes)\n\n",
      calls, block, contacts, reply_bytes);
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
