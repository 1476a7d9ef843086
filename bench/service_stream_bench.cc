// service_stream_bench: do viewers slow the controller? One process starts the server library on
// 127.0.0.1 and creates one session with a ~10k-vertex mass-spring cloth (100 x 100 vertices,
// 1 m square) dropped onto the ground plane and left to settle there (every vertex in contact).
// A controller steps it as fast as it can (Step(n_steps = --steps-per-call) in a loop) in
// alternating phases of --seconds, --rounds times: without viewers, then with --viewers viewers on
// StreamState (max_rate_hz 60, float32 positions, no contacts; they connect before and disconnect
// after their phase). Alternating short phases is fair on a noisy machine: both conditions see
// the same drift. Prints the controller's steps/s (total steps over total time of each
// condition, and per phase), the ratio with/without, and per viewer the frames delivered, bytes
// per frame and coalesced frames.
//
//   service_stream_bench [--seconds 2] [--rounds 4] [--viewers 16] [--steps-per-call 1]
//                        [--grid 100] [--hanging]
//
// Target (issue 4): with viewers, at least 95 % of the steps/s without. Everything (server,
// controller, viewers) shares this machine's cores, so the viewers' own decoding competes with
// the server for CPU; the ratio includes that.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "clients/cpp/client.h"
#include "clients/cpp/percentiles.h"
#include "core/geometry/generators.h"
#include "server/convert/mesh_convert.h"
#include "server/service/server.h"

namespace {

namespace v1 = contactsim::v1;
using Clock = std::chrono::steady_clock;

// Cloth of side 1 m with grid x grid vertices. Explicit stability at dt = 1 ms: a vertex of
// mass m = rho_A A / n = 5e-5 kg (rho_A = 0.5 kg/m^2, 1e4 vertices) with six stretch springs
// k = 5 N/m has omega^2 <~ 12 k / m, (omega dt)^2 <~ 1.2 < 4; the plane contact k = 50 N/m gives
// k dt^2 / m = 1.
v1::CreateSessionRequest SceneRequest(bool hanging) {
  v1::CreateSessionRequest request;
  request.set_pipeline("penalty");
  request.set_name("stream-bench");
  request.mutable_settings()->set_dt_s(0.001);
  request.mutable_settings()->set_stiffness_n_per_m(50.0);
  request.mutable_settings()->set_contact_model(v1::CONTACT_MODEL_CPF);
  if (!hanging) request.add_ground_planes()->mutable_normal()->set_z(1.0);
  return request;
}

// `hanging`: the first `grid` vertices (one edge of the grid) pinned, no plane: a contact-free
// swinging curtain, so that a Step reply is the state alone and calls come faster.
absl::StatusOr<v1::BodySpec> Cloth(int grid, bool hanging) {
  auto mesh = contactsim::core::MakeClothGrid(1.0, 1.0, grid - 1, grid - 1);
  if (!mesh.ok()) return mesh.status();
  v1::BodySpec body;
  body.set_name("cloth");
  body.set_kind(v1::BODY_KIND_CLOTH);
  *body.mutable_triangle_mesh() = contactsim::server::ToProto(*mesh);
  body.mutable_pose()->mutable_position_m()->set_z(0.05);
  v1::ClothMaterial* material = body.mutable_cloth();
  material->set_area_density_kg_per_m2(0.5);
  material->set_stretch_stiffness_n_per_m(5.0);
  material->set_bend_stiffness_n_per_m(0.5);
  material->set_spring_damping_ns_per_m(0.001);
  material->set_mass_damping_per_s(0.5);
  body.set_self_collision_disabled(true);
  if (hanging) {
    for (int i = 0; i < grid; ++i) body.add_pinned_vertices(i);
  }
  return body;
}

struct ControllerRun {
  int64_t steps = 0;
  double seconds = 0.0;
  double p50_ms = 0.0;
  size_t reply_bytes = 0;  // of the last Step reply (state + contact report)
  double steps_per_s() const { return steps / seconds; }
};

absl::StatusOr<ControllerRun> RunController(const contactsim::client::SessionHandle& controller,
                                            int steps_per_call, double seconds) {
  ControllerRun run;
  std::vector<double> round_trips;
  const Clock::time_point start = Clock::now();
  const Clock::time_point end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  Clock::time_point now = start;
  while (now < end) {
    auto reply = controller.Step(steps_per_call);
    const Clock::time_point after = Clock::now();
    if (!reply.ok()) return reply.status();
    round_trips.push_back(std::chrono::duration<double, std::milli>(after - now).count());
    run.reply_bytes = reply->ByteSizeLong();
    run.steps += steps_per_call;
    now = after;
  }
  run.seconds = std::chrono::duration<double>(now - start).count();
  run.p50_ms = contactsim::client::demo::PercentileOfSorted(
      contactsim::client::demo::Sorted(std::move(round_trips)), 0.5);
  return run;
}

// One viewer: counts what its stream delivers after its first frame (which carries the topology).
struct Viewer {
  std::atomic<int64_t> frames{0};
  std::atomic<int64_t> bytes{0};
  std::atomic<int64_t> coalesced{0};
  std::atomic<bool> got_first{false};
  contactsim::client::StreamStop stop;
  absl::Status status;
  std::thread thread;
};

// Starts `count` viewers and returns once each has its first frame (the controller keeps stepping
// meanwhile, so that frames are published), or an error after 30 s.
absl::StatusOr<std::vector<std::unique_ptr<Viewer>>> StartViewers(
    int count, const contactsim::client::SessionHandle& watcher,
    const contactsim::client::SessionHandle& controller) {
  std::vector<std::unique_ptr<Viewer>> viewers;
  for (int i = 0; i < count; ++i) {
    auto viewer = std::make_unique<Viewer>();
    Viewer* v = viewer.get();
    v->thread = std::thread([v, &watcher] {
      v1::StreamStateRequest request;
      request.set_max_rate_hz(60.0);
      request.set_precision(v1::PRECISION_FLOAT32);
      v->status = watcher.StreamState(
          request,
          [v](const v1::StateFrame& frame) {
            if (v->got_first.exchange(true)) {
              v->frames.fetch_add(1);
              v->bytes.fetch_add(static_cast<int64_t>(frame.ByteSizeLong()));
              v->coalesced.fetch_add(frame.coalesced());
            }
            return true;
          },
          &v->stop);
    });
    viewers.push_back(std::move(viewer));
  }
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(30);
  for (const auto& v : viewers) {
    while (!v->got_first.load()) {
      if (Clock::now() > deadline) return absl::DeadlineExceededError("viewers: no first frame");
      if (auto s = controller.Step(1); !s.ok()) return s.status();
    }
  }
  for (const auto& v : viewers) {
    v->frames = 0;
    v->bytes = 0;
    v->coalesced = 0;
  }
  return viewers;
}

// Totals of one condition over the rounds.
struct Condition {
  int64_t steps = 0;
  double seconds = 0.0;
  std::vector<double> p50_ms;  // per phase
  std::vector<double> steps_per_s;
  size_t reply_bytes = 0;
  void Add(const ControllerRun& run) {
    steps += run.steps;
    seconds += run.seconds;
    p50_ms.push_back(run.p50_ms);
    steps_per_s.push_back(run.steps_per_s());
    reply_bytes = run.reply_bytes;
  }
  double rate() const { return steps / seconds; }
};

std::string Join(const std::vector<double>& values, const char* format) {
  std::string text;
  char buffer[32];
  for (double v : values) {
    std::snprintf(buffer, sizeof(buffer), format, v);
    text += (text.empty() ? "" : ", ") + std::string(buffer);
  }
  return text;
}

int Fail(const char* what, const absl::Status& status) {
  std::fprintf(stderr, "service_stream_bench: %s: %s\n", what, status.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 2.0;
  int rounds = 4;
  int num_viewers = 16;
  int steps_per_call = 1;
  int grid = 100;
  bool hanging = false;
  CLI::App app{"Controller steps/s with and without StreamState viewers of a 10k-vertex cloth"};
  app.add_option("--seconds", seconds, "length of each phase [s]")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--rounds", rounds, "pairs of phases (without, with viewers)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--viewers", num_viewers, "viewers in the phases with viewers")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--steps-per-call", steps_per_call, "n_steps of each Step call")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--grid", grid, "cloth vertices per side")
      ->check(CLI::Range(2, 1000))
      ->capture_default_str();
  app.add_flag("--hanging", hanging,
               "cloth pinned along one edge, no ground plane (no contacts, faster Step calls)");
  CLI11_PARSE(app, argc, argv);

  contactsim::server::ServerOptions server_options;
  server_options.listen_address = "127.0.0.1:0";
  auto server = contactsim::server::ContactSimServer::Start(server_options);
  if (!server.ok()) return Fail("server", server.status());
  contactsim::client::Connection connection({.target = (*server)->address()});
  auto created = connection.CreateSession(SceneRequest(hanging));
  if (!created.ok()) return Fail("CreateSession", created.status());
  const auto controller = connection.Session(created->session_id, created->controller_token);
  const auto watcher = connection.Session(created->session_id, created->viewer_token);
  auto cloth = Cloth(grid, hanging);
  if (!cloth.ok()) return Fail("cloth", cloth.status());
  auto added = controller.AddBody(*cloth);
  if (!added.ok()) return Fail("AddBody", added.status());
  // Land the cloth first (it falls 5 cm in about 0.1 s; 0.3 s lets it settle), so that every
  // phase steps the same steady state: the cloth lying on the plane, every vertex in contact.
  // (A hanging cloth swings on; it has no contacts in any phase.)
  if (auto s = controller.Step(300); !s.ok()) return Fail("Step", s.status());
  if (auto s = RunController(controller, steps_per_call, 0.5); !s.ok()) {
    return Fail("Step", s.status());
  }

  Condition without, with;
  int64_t frames = 0, bytes = 0, coalesced = 0, min_frames = -1, max_frames = 0;
  absl::Status viewer_status;
  for (int round = 0; round < rounds; ++round) {
    auto alone = RunController(controller, steps_per_call, seconds);
    if (!alone.ok()) return Fail("Step", alone.status());
    without.Add(*alone);
    auto viewers = StartViewers(num_viewers, watcher, controller);
    if (!viewers.ok()) return Fail("StreamState", viewers.status());
    auto watched = RunController(controller, steps_per_call, seconds);
    if (!watched.ok()) return Fail("Step", watched.status());
    with.Add(*watched);
    for (const auto& v : *viewers) {
      const int64_t f = v->frames.load();
      frames += f;
      bytes += v->bytes.load();
      coalesced += v->coalesced.load();
      min_frames = min_frames < 0 ? f : std::min(min_frames, f);
      max_frames = std::max(max_frames, f);
    }
    for (const auto& v : *viewers) v->stop.Stop();
    for (const auto& v : *viewers) {
      v->thread.join();
      if (!v->status.ok()) viewer_status = v->status;
    }
  }
  (*server)->Shutdown(std::chrono::seconds(2));
  if (!viewer_status.ok()) return Fail("StreamState", viewer_status);

  const double viewer_phases = static_cast<double>(num_viewers) * rounds;
  const int64_t calls_with = with.steps / steps_per_call;
  std::printf(
      "Cloth %d x %d = %d vertices %s, Step(n_steps = %d) in a loop; %d rounds "
      "of %.1f s without viewers then %.1f s with %d viewers (max_rate_hz 60, float32 positions, "
      "no contacts)\n\n",
      grid, grid, added->num_vertices(),
      hanging ? "hanging from one edge (no contacts)" : "lying on the plane", steps_per_call,
      rounds, seconds, seconds, num_viewers);
  std::printf("| condition | controller steps/s (all rounds) | per round | Step p50 per round |\n");
  std::printf("|---|---|---|---|\n");
  std::printf("| no viewers | %.1f | %s | %s ms |\n", without.rate(),
              Join(without.steps_per_s, "%.1f").c_str(), Join(without.p50_ms, "%.1f").c_str());
  std::printf("| %d viewers | %.1f | %s | %s ms |\n\n", num_viewers, with.rate(),
              Join(with.steps_per_s, "%.1f").c_str(), Join(with.p50_ms, "%.1f").c_str());
  std::printf("With / without viewers: %.1f %% (target >= 95 %%: %s)\n",
              100.0 * with.rate() / without.rate(),
              with.rate() >= 0.95 * without.rate() ? "met" : "NOT met");
  std::printf(
      "Step reply: %zu bytes (every vertex's position and velocity, and the contact "
      "report)\n",
      with.reply_bytes);
  std::printf(
      "Per viewer and phase: %.1f frames (min %lld, max %lld) = %.1f frames/s, %.0f bytes per "
      "frame, %.1f coalesced (%.1f %% of the frames published: one per Step call)\n",
      frames / viewer_phases, static_cast<long long>(min_frames),
      static_cast<long long>(max_frames), frames / viewer_phases / (with.seconds / rounds),
      frames ? double(bytes) / frames : 0.0, coalesced / viewer_phases,
      100.0 * coalesced / viewer_phases / std::max<double>(1.0, double(calls_with) / rounds));
  return 0;
}
