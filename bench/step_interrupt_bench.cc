// What asking a step's interrupt costs the penalty and local_global pipelines (World::Step's
// interrupt: the service's deadline, cancellation and drain, asked inside a step since issue 21).
// Per scene: the questions one step asks, the time of one question (an interrupt shaped like the
// service's: two clock reads and two atomic loads, through World's and Session's wrappers' one
// std::function call each, timed alone in a loop), their product as a share of the step, and the
// step's time with and without the interrupt, stepped alternately on two identical Worlds (the
// same bits: a ratio in one run, so the shared machine's load cancels out).
//
//   step_interrupt_bench [--rounds 5] [--steps 20]
//
// Scenes: the penalty bucket (scenes/penalty, the largest deformable scene: FEM balls and a cloth
// in a bucket) and the rings, and a local_global World of a Neo-Hookean block of 16 x 16 x 16
// cells (24,576 tets) resting on the ground with the default settings (10 iterations, 24 CR).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "bench/median_time.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/geometry/generators.h"
#include "core/linalg/cpu_backend.h"
#include "core/sim/world.h"
#include "scenes/penalty/penalty_scenes.h"

namespace contactsim::bench {
namespace {

using core::World;

// An interrupt like the service's (server/service/simulation_service.cc) that never stops.
struct ServiceLikeInterrupt {
  std::atomic<int64_t> drain_stop_at_ns{INT64_MAX};
  std::atomic<bool> cancelled{false};
  std::chrono::system_clock::time_point deadline =
      std::chrono::system_clock::now() + std::chrono::hours(24);
  int64_t questions = 0;

  std::function<absl::Status()> Function() {
    return [this]() -> absl::Status {
      ++questions;
      if (std::chrono::steady_clock::now().time_since_epoch().count() >= drain_stop_at_ns.load()) {
        return absl::UnavailableError("the server is shutting down");
      }
      if (cancelled.load()) return absl::CancelledError("the call was cancelled");
      if (std::chrono::system_clock::now() >= deadline) {
        return absl::DeadlineExceededError("the call's deadline passed");
      }
      return absl::OkStatus();
    };
  }
};

World LocalGlobalBlock() {
  core::WorldSettings settings;
  settings.pipeline = core::PipelineKind::kLocalGlobal;
  settings.dt_s = 0.01;
  absl::StatusOr<World> world = World::Create(settings);
  if (!world.ok() || !world->AddGroundPlane(core::Vec3::UnitZ(), 0.0).ok()) std::abort();
  absl::StatusOr<core::TetMesh> box = core::MakeTetBox(core::Vec3(0.12, 0.12, 0.12), 16, 16, 16);
  if (!box.ok()) std::abort();
  core::Points3 x = box->vertices();
  x.col(2).array() += 0.1201;
  absl::StatusOr<core::TetMesh> placed = core::TetMesh::Create(x, box->tets());
  if (!placed.ok()) std::abort();
  core::HyperelasticBodyParams params;
  params.material = {1.0e6, 0.3, 1000.0};
  params.time_step_s = settings.dt_s;
  auto body = core::HyperelasticBody::Create(*std::move(placed), params,
                                             std::make_shared<core::CpuBackend>());
  if (!body.ok() || !world->AddBody(*std::move(body)).ok()) std::abort();
  return *std::move(world);
}

World PenaltyScene(const char* name) {
  absl::StatusOr<core::PenaltyScene> scene = core::MakePenaltyScene(name, {});
  if (!scene.ok()) {
    std::fprintf(stderr, "%s\n", scene.status().ToString().c_str());
    std::abort();
  }
  return std::move(scene->world);
}

void Run(const char* name, const std::function<World()>& make, int rounds, int steps) {
  World plain = make();
  World asked = make();
  ServiceLikeInterrupt interrupt;
  const std::function<absl::Status()> ask = interrupt.Function();
  // Warm up both (contacts form, caches fill).
  core::StepOutcome outcome;
  if (!plain.Step(steps, core::StepControls{}, &outcome).ok()) std::abort();
  if (!asked.Step(steps, core::StepControls{}, &outcome, ask).ok()) std::abort();
  interrupt.questions = 0;
  std::vector<double> plain_s, asked_s;
  for (int r = 0; r < rounds; ++r) {
    Clock::time_point t = Clock::now();
    if (!plain.Step(steps, core::StepControls{}, &outcome).ok()) std::abort();
    plain_s.push_back(Seconds(t, Clock::now()) / steps);
    t = Clock::now();
    if (!asked.Step(steps, core::StepControls{}, &outcome, ask).ok()) std::abort();
    asked_s.push_back(Seconds(t, Clock::now()) / steps);
  }
  const double questions_per_step =
      static_cast<double>(interrupt.questions) / (static_cast<double>(rounds) * steps);
  // One question through World's recorded wrapper and Session's: three std::function calls.
  const std::function<absl::Status()> world_wrapper = [&ask] { return ask(); };
  const std::function<absl::Status()> session_wrapper = [&world_wrapper] {
    return world_wrapper();
  };
  constexpr int kCalls = 1'000'000;
  const double question_s = MedianTime(5, 1,
                                       [&] {
                                         for (int i = 0; i < kCalls; ++i) {
                                           if (!session_wrapper().ok()) std::abort();
                                         }
                                       }) /
                            kCalls;
  std::sort(plain_s.begin(), plain_s.end());
  std::sort(asked_s.begin(), asked_s.end());
  const double plain_median = plain_s[plain_s.size() / 2];
  const double asked_median = asked_s[asked_s.size() / 2];
  std::printf(
      "%-22s step %8.2f ms  questions/step %7.1f  question %5.1f ns  share %.5f %%  "
      "with/without (median of %d rounds of %d steps) %.3f\n",
      name, 1e3 * plain_median, questions_per_step, 1e9 * question_s,
      100.0 * questions_per_step * question_s / plain_median, rounds, steps,
      asked_median / plain_median);
}

}  // namespace
}  // namespace contactsim::bench

int main(int argc, char** argv) {
  int rounds = 5;
  int steps = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--steps") == 0) steps = std::atoi(argv[i + 1]);
  }
  if (rounds < 1 || steps < 1) {
    std::fprintf(stderr, "usage: step_interrupt_bench [--rounds N >= 1] [--steps N >= 1]\n");
    return 2;
  }
  using contactsim::bench::Run;
  Run(
      "penalty bucket", [] { return contactsim::bench::PenaltyScene("bucket"); }, rounds, steps);
  Run(
      "penalty rings", [] { return contactsim::bench::PenaltyScene("rings"); }, rounds, steps);
  Run("local_global block 16^3", contactsim::bench::LocalGlobalBlock, rounds, steps);
  return 0;
}
