// CCD scene benchmark: one step's full continuous collision detection (broad phase + narrow
// phase, core/collision/ccd_sweep.h) on the chain and cloth scenes of bench/ccd_bench_scenes.h,
// with one thread and with all cores. Warm-up steps (which also build the BVHs) are not timed;
// the table reports means over the timed steps, and the speed-up of all cores over one thread.
//
//   ccd_scene_bench                      all scenes, default step counts
//   ccd_scene_bench --scene chain --steps 100
//   ccd_scene_bench --quick              a short run (a few steps per scene)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_format.h"
#include "bench/ccd_bench_scenes.h"
#include "core/collision/ccd_sweep.h"
#include "core/common/status_macros.h"
#include "oneapi/tbb/global_control.h"
#include "oneapi/tbb/info.h"

namespace contactsim::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct RunTotals {
  int steps = 0;
  double total_ms = 0.0;
  double broad_ms = 0.0;
  double narrow_ms = 0.0;
  int64_t vertex_face = 0;
  int64_t edge_edge = 0;
  int64_t hits = 0;
  int64_t rebuilds = 0;
};

struct BenchFlags {
  int steps = 10;
  int warmup = 1;
  int first_step = -1;
  int threads = 0;
  bool progress = true;
};

absl::StatusOr<RunTotals> RunScene(CcdScene& scene, int threads, const BenchFlags& flags) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
  core::CcdSweep sweep;
  core::CcdSweepResult result;
  core::CcdOptions options;
  options.min_separation_m = scene.min_separation_m;
  const int first = flags.first_step >= 0 ? flags.first_step : scene.first_step;
  RunTotals totals;
  const Clock::time_point start = Clock::now();
  Clock::time_point last_report = start;
  for (int i = 0; i < flags.warmup + flags.steps; ++i) {
    scene.SetStep(first + i);
    const std::vector<core::CollisionBody> views = scene.Views();
    RETURN_IF_ERROR(sweep.Run(views, options, &result));
    if (i < flags.warmup) continue;
    const core::CcdSweepStats& s = result.stats;
    ++totals.steps;
    totals.total_ms += s.total_ms;
    totals.broad_ms += s.broad_phase_ms;
    totals.narrow_ms += s.narrow_phase_ms;
    totals.vertex_face += s.vertex_face_candidates;
    totals.edge_edge += s.edge_edge_candidates;
    totals.hits += static_cast<int64_t>(result.hits.size());
    totals.rebuilds += s.broad_phase.trees_rebuilt;
    const Clock::time_point now = Clock::now();
    if (flags.progress && now - last_report > std::chrono::seconds(2)) {
      last_report = now;
      std::fprintf(stderr, "  [%s, %d thread%s] step %d/%d, %.1f s\n", scene.name.c_str(), threads,
                   threads == 1 ? "" : "s", totals.steps, flags.steps,
                   std::chrono::duration<double>(now - start).count());
    }
  }
  return totals;
}

void PrintHeader() {
  std::printf("%-12s %9s %7s %5s %13s %13s %11s %11s %11s %10s %10s %11s %8s\n", "scene",
              "triangles", "threads", "steps", "VF cand/step", "EE cand/step", "BP Mpair/s",
              "NP ns/query", "hits/step", "BP ms/step", "NP ms/step", "CCD ms/step", "rebuilds");
}

void PrintRow(const CcdScene& scene, int threads, const RunTotals& t) {
  const double n = std::max(1, t.steps);
  const double candidates = static_cast<double>(t.vertex_face + t.edge_edge);
  const double pairs_per_s = t.broad_ms > 0 ? candidates / (t.broad_ms * 1e-3) : 0.0;
  const double ns_per_query = candidates > 0 ? t.narrow_ms * 1e6 / candidates : 0.0;
  std::printf("%-12s %9d %7d %5d %13.0f %13.0f %11.2f %11.1f %11.1f %10.2f %10.2f %11.2f %8lld\n",
              scene.name.c_str(), scene.num_triangles(), threads, t.steps, t.vertex_face / n,
              t.edge_edge / n, pairs_per_s * 1e-6, ns_per_query, t.hits / n, t.broad_ms / n,
              t.narrow_ms / n, t.total_ms / n, static_cast<long long>(t.rebuilds));
  std::fflush(stdout);
}

int Main(int argc, char** argv) {
  CLI::App app{"CCD scene benchmark: chain of torus links and cloth, 1 thread vs all cores"};
  std::string scene_name = "all";
  BenchFlags flags;
  flags.threads = tbb::info::default_concurrency();
  int cloth_quads = 181;
  bool quick = false;
  bool quiet = false;
  app.add_option("--scene", scene_name, "all, chain, cloth-drape or cloth-fold")
      ->check(CLI::IsMember({"all", "chain", "cloth-drape", "cloth-fold"}));
  app.add_option("--steps", flags.steps, "timed steps per run")->check(CLI::PositiveNumber);
  app.add_option("--warmup", flags.warmup, "untimed steps before timing (they build the BVHs)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--first-step", flags.first_step,
                 "first simulated step (default: where the scene's contacts begin)");
  app.add_option("--threads", flags.threads, "threads of the 'all cores' run")
      ->check(CLI::PositiveNumber);
  app.add_option("--cloth-quads", cloth_quads, "cloth quads per side (181: 65,522 triangles)")
      ->check(CLI::Range(2, 2000));
  app.add_flag("--quick", quick, "short run: 2 timed steps, 1 warm-up step");
  app.add_flag("--quiet", quiet, "no progress lines on stderr");
  CLI11_PARSE(app, argc, argv);
  if (quick) {
    flags.steps = 2;
    flags.warmup = 1;
  }
  flags.progress = !quiet;

  std::vector<std::string> names;
  for (const char* name : {"chain", "cloth-drape", "cloth-fold"}) {
    if (scene_name == "all" || scene_name == name) names.emplace_back(name);
  }
  std::printf(
      "CCD scene benchmark: %d timed steps after %d warm-up steps; all cores = %d "
      "threads\n",
      flags.steps, flags.warmup, flags.threads);
  std::printf(
      "BP = broad phase (boxes, BVH refit/rebuild, traversal, sort); NP = narrow phase;\n"
      "NP ns/query = narrow-phase wall time / candidate pairs.\n\n");
  PrintHeader();
  std::vector<std::string> speedups;
  for (const std::string& name : names) {
    absl::StatusOr<CcdScene> scene = name == "chain"         ? MakeChainScene()
                                     : name == "cloth-drape" ? MakeClothDrapeScene(cloth_quads)
                                                             : MakeClothFoldScene(cloth_quads);
    if (!scene.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), scene.status().ToString().c_str());
      return 1;
    }
    std::vector<int> thread_counts = {1};
    if (flags.threads > 1) thread_counts.push_back(flags.threads);
    std::vector<double> ms_per_step;
    for (const int threads : thread_counts) {
      absl::StatusOr<RunTotals> totals = RunScene(*scene, threads, flags);
      if (!totals.ok()) {
        std::fprintf(stderr, "%s: %s\n", name.c_str(), totals.status().ToString().c_str());
        return 1;
      }
      PrintRow(*scene, threads, *totals);
      ms_per_step.push_back(totals->total_ms / std::max(1, totals->steps));
    }
    if (ms_per_step.size() == 2) {
      speedups.push_back(absl::StrFormat("%s: %.2fx (%d threads over 1)", name,
                                         ms_per_step[0] / ms_per_step[1], flags.threads));
    }
  }
  if (!speedups.empty()) {
    std::printf("\nspeed-up of the CCD step\n");
    for (const std::string& s : speedups) std::printf("  %s\n", s.c_str());
  }
  return 0;
}

}  // namespace
}  // namespace contactsim::bench

int main(int argc, char** argv) { return contactsim::bench::Main(argc, argv); }
