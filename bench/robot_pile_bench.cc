// robot_pile_bench: the pick-from-a-pile scene of issue 24 (scenes/robots/pick_pile_scene.h) in a
// core World at 1 kHz: the arm runs its scripted pick under position motors (commanded before
// every step, as a lockstep controller would) while the pile, the target and the bin are stepped
// with it. Per step: the wall time of World::Step(1) alone, the largest LCP solved (unknowns of
// the step's largest island, StepDiagnostics::rigid_lcp.lcp_size), Lemke's pivots and PGS's
// sweeps (summed over the step's islands; of the accepted answers), the accepted solver path:
// "warm" counts the steps whose largest island was solved on the previous step's active set
// (no pivot), "fallbacks" those answered by the fallback chain past plain Lemke (other covering
// vectors, regularization, or PGS after a pivoting failure), whose failed attempts cost time the
// pivots do not show. Prints a table per
// segment of the script and over the run (median and max), and the same steps of the same scene
// without the arm (the baseline, in the same process, alternating with it per round): steps/s and
// their ratio.
//
//   robot_pile_bench [--parts 20] [--rounds 1] [--steps 0 (the whole script)] [--csv steps.csv]
//                    [--threads 0 (TBB's default)]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "core/dynamics/rigid_body.h"
#include "scenes/robots/pick_pile_scene.h"
#include "tbb/global_control.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace scenes = contactsim::scenes;

struct StepRecord {
  int segment = 0;  // in the pick script
  double us = 0.0;  // World::Step(1) wall time
  int lcp_size = 0;
  int pivots = 0;
  int iterations = 0;
  int attempts = 0;  // solvers one island tried (a missed warm guess counts as one)
  std::string path;
};

struct Run {
  std::vector<StepRecord> steps;
  double seconds = 0.0;  // sum of the steps' wall times
  double StepsPerSecond() const { return steps.size() / seconds; }
  contactsim::core::Vec3 target_end_m = contactsim::core::Vec3::Zero();
  bool target_in_bin = false;
};

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int Fail(const char* what, const absl::Status& status) {
  std::fprintf(stderr, "robot_pile_bench: %s: %s\n", what, status.ToString().c_str());
  return 1;
}

// Steps `steps` steps of the scene; with the arm, its motors are set from the script first.
absl::StatusOr<Run> Step(scenes::PickPileScene& scene,
                         const std::vector<scenes::PickWaypoint>& script, int steps) {
  Run run;
  run.steps.reserve(steps);
  std::vector<contactsim::core::StepDiagnostics> diagnostics;
  for (int i = 0; i < steps; ++i) {
    StepRecord record;
    record.segment = scenes::PickSegmentAt(script, scene.world.time_s());
    if (scene.robot_id >= 0) {
      if (auto s = scenes::CommandPick(scene.world, scene.robot_id, script, scene.world.time_s());
          !s.ok()) {
        return s;
      }
    }
    diagnostics.clear();
    const Clock::time_point t0 = Clock::now();
    const absl::Status stepped = scene.world.Step(1, &diagnostics);
    const Clock::time_point t1 = Clock::now();
    if (!stepped.ok()) return stepped;
    record.us = std::chrono::duration<double, std::micro>(t1 - t0).count();
    const contactsim::core::RigidLcpStepStats& lcp = diagnostics.back().rigid_lcp;
    record.lcp_size = lcp.lcp_size;
    record.pivots = lcp.pivots;
    record.iterations = lcp.iterations;
    record.attempts = lcp.solver_attempts;
    record.path = lcp.solver_path;
    run.seconds += record.us * 1e-6;
    run.steps.push_back(std::move(record));
  }
  const auto& target =
      static_cast<const contactsim::core::RigidBody&>(*scene.world.body(scene.target_id));
  run.target_end_m = target.state().p_WB_m;
  const contactsim::core::Vec3 d = run.target_end_m - scene.bin_floor_center_m;
  run.target_in_bin = std::abs(d.x()) < scene.bin_inner_half_m.x() &&
                      std::abs(d.y()) < scene.bin_inner_half_m.y() && d.z() > 0.0 &&
                      d.z() < scene.bin_inner_half_m.z();
  return run;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double Max(const std::vector<double>& v) {
  return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
}

void PrintRow(const char* name, const std::vector<const StepRecord*>& steps) {
  std::vector<double> us, lcp, pivots, sweeps;
  double seconds = 0.0;
  int fallbacks = 0, warm = 0;
  for (const StepRecord* s : steps) {
    us.push_back(s->us);
    lcp.push_back(s->lcp_size);
    pivots.push_back(s->pivots);
    sweeps.push_back(s->iterations);
    seconds += s->us * 1e-6;
    warm += s->path == "warm_active_set" ? 1 : 0;
    // A step's path is its largest island's; PGS is a fallback only after pivoting failed.
    const bool chain_pgs = s->path == "projected_gauss_seidel" && s->attempts > 1;
    fallbacks += s->path == "lemke_other_covering" || s->path == "lemke_regularized" || chain_pgs;
  }
  std::printf(
      "| %-22s | %6zu | %8.0f | %8.0f | %9.0f | %6.0f | %6.0f | %7.0f | %7.0f | %6.0f | %6d | %9d "
      "|\n",
      name, steps.size(), steps.empty() ? 0.0 : steps.size() / seconds, Median(us), Max(us),
      Median(lcp), Max(lcp), Median(pivots), Max(pivots), Max(sweeps), warm, fallbacks);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "The arm's scripted pick from a pile at 1 kHz (rigid_lcp): steps/s, LCP sizes and "
      "pivots per step, against the pile without the arm"};
  scenes::PickPileOptions options;
  int rounds = 1;
  int steps = 0;
  std::string csv;
  std::string urdf_path = std::string(CONTACTSIM_REPO_DIR) + "/scenes/robots/six_axis_arm.urdf";
  app.add_option("--parts", options.pile_parts, "pile parts besides the target (0-40)")
      ->capture_default_str();
  app.add_option("--seed", options.seed, "the pile's seed")->capture_default_str();
  app.add_option("--rounds", rounds, "baseline and arm runs, alternating")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--steps", steps, "steps per run (0: the whole script)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--csv", csv, "per-step rows of the last arm run to this file");
  app.add_option("--urdf", urdf_path, "the arm's URDF")->capture_default_str();
  int threads = 0;
  app.add_option("--threads", threads, "TBB threads for the process (0: TBB's default)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  std::optional<tbb::global_control> tbb_limit;
  if (threads > 0) tbb_limit.emplace(tbb::global_control::max_allowed_parallelism, threads);

  const std::string urdf = ReadText(urdf_path);
  if (urdf.empty()) {
    return Fail("--urdf", absl::NotFoundError(urdf_path + " is empty or unreadable"));
  }
  std::vector<scenes::PickWaypoint> script;
  std::vector<Run> arm_runs, pile_runs;
  int parts = 0;
  for (int round = 0; round < rounds; ++round) {
    for (const bool with_arm : {false, true}) {
      scenes::PickPileOptions o = options;
      o.with_arm = with_arm;
      auto scene = scenes::BuildPickPileScene(urdf, o);
      if (!scene.ok()) return Fail("scene", scene.status());
      script = scenes::PickScript(*scene);
      const int n = steps > 0 ? steps
                              : static_cast<int>(std::lround(scenes::PickScriptDuration(script) /
                                                             scene->world.settings().dt_s));
      parts = scene->world.num_bodies();
      auto run = Step(*scene, script, n);
      if (!run.ok()) return Fail(with_arm ? "arm run" : "pile run", run.status());
      std::fprintf(stderr, "round %d %s: %zu steps, %.0f steps/s\n", round,
                   with_arm ? "arm + pile" : "pile only", run->steps.size(), run->StepsPerSecond());
      (with_arm ? arm_runs : pile_runs).push_back(*std::move(run));
    }
  }

  const Run& arm = arm_runs.back();
  const Run& pile = pile_runs.back();
  std::printf(
      "Pick from a pile (scenes/robots/pick_pile_scene.h): %d pile parts + the target, h = %g ms, "
      "%zu steps per run, %d round(s); last round's arm run (World::Step(1) wall time only; %d "
      "bodies with the arm's links)\n\n",
      options.pile_parts, 1e3 * options.dt_s, arm.steps.size(), rounds, parts);
  std::printf("| %-22s | %6s | %8s | %8s | %9s | %6s | %6s | %7s | %7s | %6s | %6s | %9s |\n",
              "segment", "steps", "steps/s", "p50 us", "max us", "LCP50", "LCPmax", "piv50",
              "pivmax", "sweeps", "warm", "fallbacks");
  std::printf("|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n", std::string(24, '-').c_str(),
              std::string(8, '-').c_str(), std::string(10, '-').c_str(),
              std::string(10, '-').c_str(), std::string(11, '-').c_str(),
              std::string(8, '-').c_str(), std::string(8, '-').c_str(), std::string(9, '-').c_str(),
              std::string(9, '-').c_str(), std::string(8, '-').c_str(), std::string(8, '-').c_str(),
              std::string(11, '-').c_str());
  for (size_t seg = 0; seg < script.size(); ++seg) {
    std::vector<const StepRecord*> in;
    for (const StepRecord& s : arm.steps) {
      if (s.segment == static_cast<int>(seg)) in.push_back(&s);
    }
    if (!in.empty()) PrintRow(script[seg].phase, in);
  }
  std::vector<const StepRecord*> all, base;
  for (const StepRecord& s : arm.steps) all.push_back(&s);
  for (const StepRecord& s : pile.steps) base.push_back(&s);
  PrintRow("all (arm + pile)", all);
  PrintRow("baseline: pile, no arm", base);

  std::vector<double> ratios;
  for (size_t r = 0; r < arm_runs.size(); ++r) {
    ratios.push_back(arm_runs[r].StepsPerSecond() / pile_runs[r].StepsPerSecond());
  }
  std::printf(
      "\nsteps/s with the arm / without (same steps, same process): %.2fx (median of %zu "
      "round(s); per round:",
      Median(ratios), ratios.size());
  for (const double r : ratios) std::printf(" %.2f", r);
  std::printf(")\n");
  std::printf("target at the end: (%.3f, %.3f, %.3f) m, %s the bin\n", arm.target_end_m.x(),
              arm.target_end_m.y(), arm.target_end_m.z(), arm.target_in_bin ? "inside" : "NOT in");

  if (!csv.empty()) {
    std::ofstream out(csv);
    out << "step,segment,us,lcp_size,pivots,iterations,attempts,path\n";
    for (size_t i = 0; i < arm.steps.size(); ++i) {
      const StepRecord& s = arm.steps[i];
      out << i + 1 << ',' << script[s.segment].phase << ',' << s.us << ',' << s.lcp_size << ','
          << s.pivots << ',' << s.iterations << ',' << s.attempts << ',' << s.path << '\n';
    }
  }
  return 0;
}
