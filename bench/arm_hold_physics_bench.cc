// arm_hold_physics_bench: World::Step(1) of the service bench's arm scene (bench/arm_hold_scene.h:
// the repository's arm holding a 0.1 kg cube at 1 kHz, seven joint commands per step) in a loop,
// the physics alone, without the service: its p50/p90/p99, how many steps the previous step's
// active set solved, and a digest of the serialized world at the end, so that two builds can be
// compared bit for bit (same digest: same states, impulses and warm start). The timed loop is one
// function (TimedSteps) for perf and callgrind (--toggle-collect) to single out.
//
//   arm_hold_physics_bench [--steps 5000] [--warmup 300] [--urdf PATH]
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/arm_hold_scene.h"
#include "clients/cpp/percentiles.h"
#include "core/dynamics/rigid_body.h"
#include "core/sim/serialization/checksum.h"
#include "core/sim/serialization/world_serialization.h"
#include "core/sim/world.h"
#include "server/convert/step_convert.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Timed {
  std::vector<double> us;  // per step
  int warm = 0;            // steps whose largest island was solved on the previous active set
  int max_pivots = 0;
  int lcp_size = 0;
};

// Not inlined: the profilers' handle on the timed steps.
[[gnu::noinline]] absl::Status TimedSteps(contactsim::core::World& world,
                                          const contactsim::core::StepControls& controls, int steps,
                                          Timed* out) {
  contactsim::core::StepOutcome outcome;
  for (int i = 0; i < steps; ++i) {
    outcome = {};
    const Clock::time_point t0 = Clock::now();
    const absl::Status s = world.Step(1, controls, &outcome);
    const Clock::time_point t1 = Clock::now();
    if (!s.ok()) return s;
    out->us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    const contactsim::core::RigidLcpStepStats& lcp = outcome.diagnostics.back().rigid_lcp;
    out->warm += lcp.solver_path == "warm_active_set" ? 1 : 0;
    out->max_pivots = std::max(out->max_pivots, lcp.pivots);
    out->lcp_size = std::max(out->lcp_size, lcp.lcp_size);
  }
  return absl::OkStatus();
}

int Fail(const char* what, const absl::Status& status) {
  std::fprintf(stderr, "%s: %s\n", what, status.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"World::Step(1) of the arm holding a part (bench/arm_hold_scene.h), physics only"};
  int steps = 5000;
  int warmup = 300;
  std::string urdf_path = std::string(CONTACTSIM_REPO_DIR) + "/scenes/robots/six_axis_arm.urdf";
  app.add_option("--steps", steps, "timed steps")->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "untimed holding steps first")->check(CLI::NonNegativeNumber);
  app.add_option("--urdf", urdf_path, "the arm's URDF")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  std::ifstream file(urdf_path);
  std::stringstream urdf;
  urdf << file.rdbuf();
  if (!file || urdf.str().empty()) {
    std::fprintf(stderr, "cannot read %s\n", urdf_path.c_str());
    return 1;
  }

  int32_t robot_id = 0, cube_id = 0;
  auto world = contactsim::bench::ArmHoldCoreWorld(urdf.str(), &robot_id, &cube_id);
  if (!world.ok()) return Fail("core world", world.status());
  auto message = contactsim::bench::ArmHoldControls(robot_id);
  if (!message.ok()) return Fail("arm controls", message.status());
  auto controls = contactsim::server::StepControlsFromProto(*message);
  if (!controls.ok()) return Fail("arm controls", controls.status());

  Timed untimed, timed;
  if (auto s = TimedSteps(*world, *controls, warmup, &untimed); !s.ok()) return Fail("warmup", s);
  timed.us.reserve(steps);
  if (auto s = TimedSteps(*world, *controls, steps, &timed); !s.ok()) return Fail("step", s);

  auto bytes = contactsim::core::SerializeWorld(*world);
  if (!bytes.ok()) return Fail("serialize", bytes.status());
  const auto* cube = dynamic_cast<const contactsim::core::RigidBody*>(world->body(cube_id));
  const double cube_z = cube != nullptr ? cube->state().p_WB_m.z() : 0.0;
  const std::vector<double> sorted = contactsim::client::demo::Sorted(std::move(timed.us));
  using contactsim::client::demo::PercentileOfSorted;
  std::printf(
      "steps=%d p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f lcp=%d warm=%d/%d "
      "pivots_max=%d cube_z=%.6f digest=%016llx\n",
      steps, PercentileOfSorted(sorted, 0.5), PercentileOfSorted(sorted, 0.9),
      PercentileOfSorted(sorted, 0.99), sorted.back(), timed.lcp_size, timed.warm, steps,
      timed.max_pivots, cube_z,
      static_cast<unsigned long long>(contactsim::core::serialization::Fnv1a64(*bytes)));
  return 0;
}
